# The compiled forest's entry points for the boosters' engines (river_boost.engine._engine
# cimports them): a forest's load, predict_loaded_matrix and learn_loaded without a Python
# call each, checks included.

# forest.load(x)
cdef int forest_load(object forest, object x) except -1
# forest.predict_loaded_matrix(labels, range(n_rows)) into out (n_rows x len(labels))
cdef int forest_loaded_matrix(object forest, object labels, int n_rows, double* out) except -1
# forest.learn_loaded(i, y, w)
cdef int forest_learn_loaded(object forest, int i, object y, double w) except -1
# which conversion of x is loaded (every conversion counts one), or -1 if none is
cdef long long forest_loaded_version(object forest) noexcept
