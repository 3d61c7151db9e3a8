# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False, embedsignature=False
"""The engine's calls into its weak learners (:class:`Learners`): the one place where the
walk (river_boost.engine._engine) meets the forest, compiled or not."""

from cpython.buffer cimport PyObject_GetBuffer, PyBuffer_Release, PyBUF_C_CONTIGUOUS, PyBUF_FORMAT
from libc.string cimport memcpy

from river_boost.forest._forest cimport ForestCore


cdef class Learners:
    """The engine's calls into its weak learners: the compiled forest through its C entry
    points (``ForestCore``'s cdef methods, ``river_boost.forest._forest.pxd``), anything else
    with the forest's interface (River classifiers,
    :class:`~river_boost.learners.ClassifierLearners`) through its Python methods.
    It remembers which clean x the forest has loaded, so that a prediction's conversion serves
    the learning that follows."""

    def __cinit__(self, object forest, int n):
        self.forest = forest
        self.compiled = isinstance(forest, ForestCore)
        self.row_ids = list(range(n))
        self.loaded_version = -1

    cdef int load(self, object clean) except -1:
        """forest.load(clean), unless the forest still holds this very clean x, converted
        last (no conversion since, and still loaded)."""
        if not self.compiled:
            self.forest.load(clean)
            return 0
        cdef ForestCore core = <ForestCore>self.forest
        if (self.loaded_clean is clean and self.loaded_version >= 0
                and core.loaded_version_c() == self.loaded_version):
            return 0
        self.loaded_clean = None
        core.load_c(clean)
        self.loaded_version = core.loaded_version_c()
        self.loaded_clean = clean
        return 0

    cdef int rows(self, object labels, int n, int k, double* out) except -1:
        """The first n learners' probabilities of the loaded x at ``labels`` (n x k)."""
        cdef Py_buffer view
        if self.compiled:
            (<ForestCore>self.forest).loaded_matrix_c(labels, n, out)
            return 0
        M = self.forest.predict_loaded_matrix(labels, self.row_ids)
        # an (n, k) C-contiguous float64 array: its buffer, without a typed memoryview
        PyObject_GetBuffer(M, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT)
        try:
            if view.len != n * k * <Py_ssize_t>sizeof(double) or view.format != b"d":
                raise ValueError("predict_loaded_matrix returned an unexpected array")
            memcpy(out, view.buf, n * k * sizeof(double))
        finally:
            PyBuffer_Release(&view)
        return 0

    cdef int learn(self, int i, object label, double w) except -1:
        """forest.learn_loaded(i, label, w)."""
        if self.compiled:
            return (<ForestCore>self.forest).learn_loaded_c(i, label, w)
        self.forest.learn_loaded(i, label, w)
        return 0

    cdef int forget_loaded(self) except -1:
        """The forest's trees changed outside the walk (drift adaptation): load x again."""
        self.loaded_clean = None
        self.loaded_version = -1
        return 0
