# The compiled forest's C entry points for the compiled walk (river_boost.engine._walk): the forest's
# load, predict_loaded_matrix and learn_loaded without a Python call each, passed from
# river_boost.forest._forest to river_boost.engine._walk in a capsule (_forest.forest_api()).

from cpython.object cimport PyObject


ctypedef struct ForestAPI:
    # forest.load(x)
    int (*load)(object forest, object x) except -1
    # forest.load(x) of a dict holding the n items (keys[j], vals[j]), in this order
    int (*load_items)(object forest, PyObject** keys, PyObject** vals, int n) except -1
    # forest.predict_loaded_matrix(labels, range(n_rows)) into out (n_rows x len(labels))
    int (*loaded_matrix)(object forest, object labels, int n_rows, double* out) except -1
    # forest.learn_loaded(i, y, w)
    int (*learn_loaded)(object forest, int i, object y, double w) except -1
    # which conversion of x is loaded (every conversion counts one), or -1 if none is
    long long (*loaded_version)(object forest) noexcept
