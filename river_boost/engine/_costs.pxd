# The multiclass cost matrices of the walk's rules (river_boost.engine._costs).

cdef Py_ssize_t mbbm_cache_bytes() noexcept
cdef int normalised_costs(const double* C, int k, double* D) except -1
cdef object label_pairs(object relevant, int k)
cdef int rank_gradient(const double* s, const char* rel, int k, double* out,
                       double* work) except -1


cdef class LogisticCosts:
    cdef double* T  # the pairs' tanh (T[r, l] for r < l), then their inputs g and places at
    cdef double* g
    cdef int* at
    cdef Py_ssize_t cap  # doubles at T
    cdef int _scratch(self, int k) except -1
    cdef int along(self, const double* s, int k, double* C, int changed) except -1


cdef class MBBMCosts:
    cdef object rule
    cdef int n
    cdef object pot  # the potential whose cost matrices mc_keys holds (None: empty)
    cdef double* maxw  # maxw_pot.max_weight(n_left) by n_left (-1: not read yet)
    cdef object maxw_pot
    cdef long long* mc_keys  # the table's keys: per slot its epoch, n_left, s (k + 2)
    cdef double* mc_vals  # per slot its C and normalised D (2 k^2)
    cdef Py_ssize_t mc_slots  # a power of two
    # the table's buffers are kept from one reset to the next while they are large enough
    # (mc_keys_cap words, mc_vals_cap doubles): a slot is filled in this table when its
    # first word is mc_epoch, which every reset makes larger than any word the buffer held
    cdef Py_ssize_t mc_keys_cap, mc_vals_cap
    cdef long long mc_epoch
    cdef int mc_k  # the labels the table is for (0: no table)
    # the potentials by (gamma, n_left, sorted gaps), at most `size` (OrderedDict); one gap's
    # peaks and tails by (gamma, k, n) (gap_pass); the weights' bounds by (gamma, k, n_left);
    # the rule for the labels known when they are not the rule's (pot_for)
    cdef readonly object values  # (readable: the tests)
    cdef object gap_tails, resized
    cdef dict gap_peaks, bounds
    cdef Py_ssize_t size

    cdef object pot_for(self, int k)
    cdef double* costs(self, object pot, int n_left, const double* s, int k, double* C) except NULL
    cdef int reset(self, int k) except -1
    cdef int matrix(self, object pot, int n_left, const double* s, int k, double* C) except -1
    cdef double max_weight(self, object pot, int n_left) except? -1.0
    cpdef double value(self, object pot, int n_left, tuple gaps) except? -1.0
    cpdef double bound(self, object pot, int n_left) except? -1.0


cdef class PairLaw:
    cdef object law  # the (P, SP, SD) tuple, kept alive with its arrays
    cdef Py_buffer bufs[3]
    cdef int held  # how many of bufs are held
    cdef const double* P  # 2n + 1 values
    cdef const double* SP  # 2n + 2 values (one extra 0)
    cdef const double* SD


cdef class PairCosts:
    cdef object rule
    cdef int n
    cdef bint hinge
    cdef double* kb  # scratch (_scratch)
    cdef Py_ssize_t cap  # doubles at kb
    # the rule's difference laws (PairLaw) by n_left * (k + 1) + relevant labels, for the
    # rule and number of labels they were read for (pure functions of those: never stale)
    cdef list laws
    cdef object laws_rule
    cdef int laws_k
    cdef Py_ssize_t laws_bytes  # the arrays the table holds (bounded)
    cdef readonly object known  # the laws by (n_left, nr, k), at most `size` (OrderedDict)
    cdef Py_ssize_t size
    cdef int _scratch(self, int k) except -1
    cdef int rank_terms(self, const double* g, int q, int n, const double* P, const double* SP,
                        double shift, double* out) except -1
    cdef PairLaw law(self, int n_left, int nr, int k)
    cdef int cost_vector(self, const double* s, const char* rel, int k, int n_left,
                         double* out) except -1
