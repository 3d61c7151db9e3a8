# The compiled forest's input (_input.pyx): an x converted once to ids and floats (the XV
# view of _forest_structs), each tree's view of it (the feature filter, River's type checks),
# and whether an x is loaded (ForestCore.load). The forest (_forest.ForestCore) owns one, beside
# its trees (_storage.Storage), where the input registers the features it meets.

from cpython.object cimport PyObject

from river_boost.forest._forest_structs cimport XV
from river_boost.forest._registry cimport Registry
from river_boost.forest._storage cimport Storage


cdef class Input:
    cdef XV xv
    cdef Storage store
    cdef Registry reg       # store's
    cdef object feature_filter
    # conversion cache: the previous x's keys, by position, and their feature ids
    cdef list lkeys
    cdef int* lfid
    cdef int lcap
    cdef object number_type  # numbers.Number
    # whether xv holds an x loaded by load() (every other conversion unloads it, and so does a
    # tree that makes a loaded numeric feature nominal: Storage.mark_nominal)
    cdef bint loaded
    cdef long long n_conversions  # conversions of an x so far (which one is loaded: the API)
    # > 0 while the feature filter runs: a filter that calls back into the forest must not
    # convert another x or reallocate the trees under the caller
    cdef int in_filter

    # what the conversion left unregistered: (position in x, key or None, value) of each
    # feature or nominal value the forest has not learned (complete() registers them)
    cdef list pending

    cdef int convert(self, object x) except -1
    cdef int complete(self) except -1
    cdef int fit_features(self) except -1
    cdef int reserve(self, Py_ssize_t n) except -1
    cdef int convert_item(self, int j, PyObject* key, PyObject* val) except -1
    cdef int view(self, int i, bint learning) except -1
    cdef int check_free(self) except -1
    cdef int check_loaded(self) except -1
