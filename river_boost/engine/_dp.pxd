# The dynamic programs of the exact potentials, once (river_boost/engine/_dp.pyx): the cdef entry
# points the compiled walk calls on its cache misses.

cdef enum:
    DENSE_MAX_N = 40  # potentials.TENSOR_MAX_N: the dense DP up to this many votes left

cdef double dense_potential(int n, int k, double p_right, const long long* gaps) except? -1.0
