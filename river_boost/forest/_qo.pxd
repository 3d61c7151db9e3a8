# The regression trees' quantization observer (_qo.pyx): River's QOSplitter (Mastelini & de
# Carvalho 2021) in the QSpl struct of _reg_structs.pxd: update, best binary split suggestion
# (variance reduction, from _criteria), size and state. _ebst's rspl_* functions hand a
# splitter of kind RSPL_QO to these.

from river_boost.forest._flat cimport Flat, Rd
from river_boost.forest._reg_structs cimport QSpl, RSpl, RSugg, VarS


cdef RSpl* qspl_new(int fid, double radius, int below) except NULL
cdef void qspl_free(QSpl* s) noexcept
cdef int qo_update(QSpl* s, double x, double y, double w) except -1
cdef int qo_best(QSpl* s, VarS* pre, double min_samples, RSugg* out) except -1
cdef long long qspl_bytes(QSpl* s) noexcept
cdef tuple qspl_export(QSpl* s)
cdef RSpl* qspl_import(tuple st) except NULL
cdef int qspl_write(QSpl* s, Flat* f) except -1
cdef RSpl* qspl_read(Rd* r, int fid) except NULL
