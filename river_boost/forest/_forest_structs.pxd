# The compiled forest's C structures, shared by its modules (_splitters, _criteria, _leaves,
# _trees, _registry, _forest), and the small allocation helpers they all use. The helpers are
# `cdef inline`: each module that cimports them compiles its own copy, so they cost no
# cross-module call (a function of another Cython module is called through a pointer and
# cannot be inlined).
#
# The sizes of these structs enter River's memory accounting as the forest reproduces it
# (_trees.tree_bytes and _trees.estimate_model_size measure sizeof(Node), sizeof(Tree), ...):
# changing a struct changes where a max_size limit binds. Add no field lightly.

from libc.stdlib cimport calloc, free, realloc


# ----------------------------------------------------------------------------- integer codes
# The values are fixed: they are part of a pickled forest's state (export_node) and of what
# forest/__init__.py reads (_forest's maps from River's parameter strings, to_river). An enum
# of small values is int-sized (gcc, clang, MSVC), so the struct fields typed with them keep
# the structs' sizes, which the memory accounting measures (see above).

cdef enum Criterion:
    # HoeffdingTreeClassifier(split_criterion=...): InfoGainSplitCriterion ("info_gain"),
    # GiniSplitCriterion ("gini"), HellingerDistanceCriterion ("hellinger")
    CRIT_INFO_GAIN = 0
    CRIT_GINI = 1
    CRIT_HELLINGER = 2


cdef enum LeafPrediction:
    # HoeffdingTreeClassifier(leaf_prediction=...): LeafMajorityClass ("mc"), LeafNaiveBayes
    # ("nb"), LeafNaiveBayesAdaptive ("nba")
    LEAF_MAJORITY_CLASS = 0
    LEAF_NAIVE_BAYES = 1
    LEAF_NAIVE_BAYES_ADAPTIVE = 2


cdef enum SplitKind:
    # The branch a split makes (River's NumericBinaryBranch, NominalBinaryBranch,
    # NominalMultiwayBranch)
    SPLIT_NUMERIC_BINARY = 0
    SPLIT_NOMINAL_BINARY = 1
    SPLIT_NOMINAL_MULTIWAY = 2


cdef enum SplitDecision:
    # What HoeffdingTreeClassifier._attempt_to_split decides at a leaf (_leaves'
    # leaf_split_decision): no split; the null split wins (pre-pruning: the leaf is
    # deactivated); a split
    DECIDE_NO_SPLIT = 0
    DECIDE_PRE_PRUNE = 1
    DECIDE_SPLIT = 2


cdef struct GCls:
    # One class's Gaussian in a numeric splitter (river.proba.Gaussian over stats.Var(ddof=1))
    int cid
    double n        # Mean.n (sum of weights)
    double mean     # Mean._mean
    double S        # Var._S
    double mn       # GaussianSplitter._min_per_class
    double mx       # GaussianSplitter._max_per_class
    int nb_state    # naive-Bayes cache: 0 stale, 1 usable, 2 log_pdf is -inf, 3 usable and
                    # nb_lp is log_pdf(nb_x)
    int sig_ok      # sigma cached (Gaussian.sigma = Var.get() ** 0.5)
    double sig
    double nb_neg2var   # -2.0 * variance
    double nb_halflog   # 0.5 * math.log(variance)
    double nb_x         # the last x whose log_pdf was asked (nb_state 3)
    double nb_lp        # its log_pdf


cdef struct NCls:
    # One class's value counts in a nominal splitter (an inner dict of _att_dist_per_class)
    int cid
    int n_ord
    int cap_ord
    int* ord        # value positions in the dict's insertion order
    double* w       # weight by value position
    char* has       # value position present in the dict
    int cap_w
    int sum_ok
    double sum      # sum(class_dist.values()), cached


cdef struct Spl:
    int fid
    int nominal
    int n_cls
    int cap_cls
    GCls* g         # numeric: classes in _att_dist_per_class order
    NCls* c         # nominal: classes in _att_dist_per_class order
    double tot_w    # NominalSplitterClassif._total_weight_observed
    double miss_w   # NominalSplitterClassif._missing_weight_observed
    int n_vals
    int cap_vals
    int* vals       # vid by position (order of first appearance = the set's insertion order)
    int* vpos       # vid -> position or -1
    int vpos_cap
    int set_n       # n_vals when set_ord was computed, -1 if never
    int* set_ord    # positions in CPython's iteration order of the set of values
    # The order in which River added the values to its set, when it is not the order of
    # first appearance: copy.deepcopy (copy_tree) rebuilds a set by adding the values in the
    # source set's iteration order, which can place colliding values differently. ins holds
    # the first n_ins additions (a permutation of positions 0..n_ins-1); the values at later
    # positions were added afterwards, in position order. n_ins = 0: first appearance.
    int n_ins
    int* ins
    int* cix        # class id -> index in g / c, plus 1 (0: absent)
    int cix_cap


cdef struct Leaf:
    int depth
    int active
    double last_split
    double mc_correct
    double nb_correct
    int n_st
    int cap_st
    int* st_c       # classes of the leaf's stats, insertion order
    double* st_w
    int n_spl
    int cap_spl
    Spl** spl       # splitters, insertion order
    int* sidx       # fid -> splitter index + 1; 0 none; -1 disabled attribute
    int sidx_cap


cdef struct Node:
    # _reg_structs.RNode begins with the same fields, up to vmap_cap (see there)
    int is_leaf
    int depth
    Leaf* lf
    SplitKind kind
    int fid
    double thr
    int vid
    int n_ch
    int cap_ch
    Node** ch
    int* ch_vid     # multiway: value of each child (the branch's _r_mapping)
    int* vmap       # multiway: vid -> child index + 1
    int vmap_cap
    int n_bst       # the branch's stats (the split leaf's stats)
    int* bst_c
    double* bst_w


cdef struct Tree:
    Node* root
    # parameters
    double grace_period
    double delta
    double tau
    double nb_threshold
    LeafPrediction leaf_pred
    Criterion crit
    int binary_split
    double min_branch_fraction
    double max_share_to_split
    double max_byte_size
    double mem_period
    int stop_mem
    int remove_poor
    int merit_preprune
    long long max_depth
    int n_splits
    # 1: measure the size whenever the weight learned reaches or crosses a multiple of
    # mem_period (forest.BoundedHoeffdingTree), not only when it equals one (River). It
    # fills the padding after n_splits: sizeof(Tree), which River's accounting measures,
    # is unchanged.
    int mem_crossing
    # state
    long long n_active
    long long n_inactive
    # kept for _enforce_size_limit (checked against a walk over the leaves by the tests): the
    # number of leaves, and of inactive leaves above max_depth (which it would reactivate)
    long long n_leaves
    long long n_reactivable
    double inactive_est
    double active_est
    double overhead
    int growth_allowed
    double train_weight
    char* has_cls
    int ccap
    # naive-Bayes votes computed by the last prediction, reused by the next learn_one of the
    # same x at the same, unchanged leaf (an adaptive leaf scores naive Bayes before learning)
    long long ver       # bumped by every learn_one
    Leaf* nbc_leaf
    long long nbc_ver
    int nbc_n
    double* nbc_out
    int nbc_cap
    int nbc_nv
    int* nbc_f
    int* nbc_v
    double* nbc_d
    int nbc_xcap


cdef struct View:
    # a tree's view of the features (the storage keeps one per tree, of either kind), per
    # feature: bit0 filter decided, bit1 kept, bit2 nominal attribute, bit3 kind known, bit4
    # kind is non-numeric
    unsigned char* fstate
    int fcap


cdef enum:
    F_DECIDED = 1
    F_KEEP = 2
    F_NOMATTR = 4
    F_KIND = 8
    F_NONNUM = 16


cdef struct Dists:
    # A list of class distributions (the post-split dists), flat
    int nd
    int cap_d
    int* off        # nd + 1 offsets
    int n
    int cap
    int* c
    double* w


cdef struct Sugg:
    double merit
    int fid         # -1: null split (feature None)
    SplitKind kind
    double thr
    int vpos        # nominal binary: value position in the splitter
    int vid         # nominal binary: the value's id
    int sidx        # index of the splitter in the leaf


cdef struct XV:
    # x converted once per call: entries in x's order
    int nx
    int cap
    int* f          # feature id
    double* d       # numeric value (if isnum)
    int* v          # nominal value id (or -1 if not computed)
    char* isnum
    # the current tree's view (feature filter applied), entries in x's order
    int nv
    int* vj
    unsigned int stamp
    unsigned int* vst   # fid -> stamp if in the current view
    int* vpos           # fid -> entry index
    int fcap


cdef inline bint in_view(XV* xv, int fid) noexcept:
    return fid < xv.fcap and xv.vst[fid] == xv.stamp


cdef struct Work:
    # A forest's scratch buffers, lent to the functions that learn and predict (they do not
    # grow with the trees, and are reused from call to call)
    Dists post      # the post-split distributions of the split being evaluated
    Dists tmp
    Dists best      # the winning split's children
    double* ds      # one total per post-split distribution
    int ds_cap
    double* votes   # a leaf's prediction
    int votes_cap
    Sugg* sug       # a leaf's split suggestions
    int sug_cap
    Spl** nbq       # naive Bayes: the leaf's splitters of the features in x
    int* nbj
    int nbq_cap


# ----------------------------------------------------------------------------- allocation helpers

cdef inline void* xrealloc(void* p, size_t n) except NULL:
    cdef void* q
    if n == 0:
        n = 1
    q = realloc(p, n)
    if q == NULL:
        raise MemoryError()
    return q


cdef inline void* xcalloc(size_t n, size_t size) except NULL:
    cdef void* q = calloc(n if n > 0 else 1, size)
    if q == NULL:
        raise MemoryError()
    return q


cdef inline int grow_cap(int cap, int need) noexcept:
    if cap < 2:
        cap = 2
    while cap < need:
        cap *= 2
    return cap


cdef inline int make_room(int n, int* cap, void** a, size_t size_a, void** b,
                          size_t size_b) except -1:
    """Room for item n in the growable array a[0] (items of size_a bytes), and in b[0] (of
    size_b) unless b is NULL, which share the capacity cap[0]."""
    cdef int nc
    if n >= cap[0]:
        nc = grow_cap(cap[0], n + 1)
        a[0] = xrealloc(a[0], nc * size_a)
        if b != NULL:
            b[0] = xrealloc(b[0], nc * size_b)
        cap[0] = nc
    return 0


cdef inline int push_ptr(void*** arr, int* n, int* cap, void* p) except -1:
    """Append p to the growable array of pointers arr[0] (n[0] of cap[0] used): n[0] after."""
    make_room(n[0], cap, <void**>arr, sizeof(void*), NULL, 0)
    arr[0][n[0]] = p
    n[0] += 1
    return n[0]


cdef inline int dists_reset(Dists* d) except -1:
    d.nd = 0
    d.n = 0
    if d.cap_d == 0:
        d.cap_d = 8
        d.off = <int*>xrealloc(d.off, 9 * sizeof(int))
    d.off[0] = 0
    return 0


cdef inline int dists_push(Dists* d, int c, double w) except -1:
    make_room(d.n, &d.cap, <void**>&d.c, sizeof(int), <void**>&d.w, sizeof(double))
    d.c[d.n] = c
    d.w[d.n] = w
    d.n += 1
    return 0


cdef inline int dists_close(Dists* d) except -1:
    # end the current distribution
    cdef int nc
    if d.nd + 1 >= d.cap_d:
        nc = grow_cap(d.cap_d, d.nd + 2)
        d.off = <int*>xrealloc(d.off, (nc + 1) * sizeof(int))
        d.cap_d = nc
    d.nd += 1
    d.off[d.nd] = d.n
    return 0


cdef inline void dists_free(Dists* d) noexcept:
    free(d.off)
    free(d.c)
    free(d.w)
    d.off = NULL
    d.c = NULL
    d.w = NULL
    d.cap = 0
    d.cap_d = 0
    d.n = 0
    d.nd = 0


cdef inline double* work_ds(Work* wk, int n) except NULL:
    if n > wk.ds_cap:
        wk.ds_cap = grow_cap(wk.ds_cap, n)
        wk.ds = <double*>xrealloc(wk.ds, wk.ds_cap * sizeof(double))
    return wk.ds


cdef inline double* work_votes(Work* wk, int n) except NULL:
    if n > wk.votes_cap:
        wk.votes_cap = grow_cap(wk.votes_cap, n)
        wk.votes = <double*>xrealloc(wk.votes, wk.votes_cap * sizeof(double))
    return wk.votes


cdef inline void work_free(Work* wk) noexcept:
    dists_free(&wk.post)
    dists_free(&wk.tmp)
    dists_free(&wk.best)
    free(wk.ds)
    free(wk.votes)
    free(wk.sug)
    free(wk.nbq)
    free(wk.nbj)
