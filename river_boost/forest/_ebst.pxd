# The regression trees' split observers (_ebst.pyx): River's EBSTSplitter / TEBSTSplitter
# (numeric features: the extended binary search tree of target statistics; a QOSplitter, _qo,
# through the same rspl_* functions) and
# NominalSplitterReg (nominal features), in the RSpl struct of _reg_structs.pxd: update, best
# split suggestion (variance reduction, from _criteria), the E-BST's removal of bad splits,
# copies, sizes and state.

from river_boost.forest._flat cimport Flat, Rd
from river_boost.forest._reg_structs cimport RSpl, RSugg, VarS


cdef RSpl* rspl_new(int fid, int kind) except NULL
cdef void rspl_free(RSpl* s) noexcept
cdef int ebst_update(RSpl* s, double att, double y, double w) except -1
cdef int rnom_update(RSpl* s, int vid, double y, double w) except -1
cdef int ebst_best(RSpl* s, VarS* pre, double min_samples, RSugg* out) except -1
cdef int rnom_best(RSpl* s, VarS* pre, double min_samples, bint binary_only, int* order,
                   RSugg* out) except -1
cdef int ebst_remove_bad_splits(RSpl* s, VarS* pre, double min_samples, double ratio,
                                double vr, double e) except -1
cdef long long rspl_bytes(RSpl* s) noexcept
cdef tuple rspl_export(RSpl* s)
cdef RSpl* rspl_import(tuple st) except NULL
cdef int rspl_write(RSpl* s, Flat* f) except -1
cdef RSpl* rspl_read(Rd* r, int nf, const int* nvals) except NULL
