# The compiled regression trees' C structures (River's HoeffdingTreeRegressor: Var statistics,
# E-BST, quantization (QO) and nominal regression splitters, the LinearRegression leaf model, leaves, nodes and
# trees), shared by _linear, _ebst, _criteria (variance reduction) and _regtrees, and the
# inline arithmetic of river.stats.Var they all use, operation by operation as River's.
#
# Their sizes enter the memory accounting of the regression trees (_regtrees.rleaf_bytes):
# changing a struct changes where a BoundedHoeffdingTreeRegressor's limit binds.

from river_boost.forest._forest_structs cimport SplitKind, grow_cap, xrealloc
from river_boost.forest._pymath cimport py_pow


cdef enum RegLeafPrediction:
    # HoeffdingTreeRegressor(leaf_prediction=...): LeafMean ("mean"), LeafModel ("model"),
    # LeafAdaptive ("adaptive")
    RLEAF_MEAN = 0
    RLEAF_MODEL = 1
    RLEAF_ADAPTIVE = 2


cdef struct VarS:
    # river.stats.Var(ddof=1): Mean.n, Mean._mean, Var._S
    double n
    double mean
    double S


cdef struct EBNode:
    # river.tree.splitter.ebst_splitter.EBSTNode (univariate)
    double att
    VarS est
    EBNode* left
    EBNode* right


cdef enum RSplKind:
    # a regression splitter's kind (RSpl.kind; the number the state keeps)
    RSPL_EBST = 0       # EBSTSplitter / TEBSTSplitter (numeric)
    RSPL_NOMINAL = 1    # NominalSplitterReg
    RSPL_QO = 2         # QOSplitter (numeric): a QSpl


cdef struct RSpl:
    # A regression splitter: EBSTSplitter / TEBSTSplitter (numeric) or NominalSplitterReg; a
    # QOSplitter is a QSpl, which begins with the same two fields (a leaf keeps every
    # splitter through RSpl*, and its kind says which struct it is)
    int fid
    int kind            # RSplKind
    EBNode* root        # numeric: the E-BST
    long long n_nodes   # numeric: its nodes
    int n_vals          # nominal: _statistics, values in insertion order
    int cap_vals
    int* vals           # vid by position
    VarS* st            # Var by position
    int* vpos           # vid -> position + 1 (0: absent)
    int vpos_cap


cdef struct QSlot:
    # river.tree.splitter.qo_splitter.Slot: x_stats (a Mean) and y_stats (a Var). Both are
    # updated with the same weights from 0, so x_stats.n is y.n: only x_stats._mean is kept
    double key          # math.floor(x / radius), an integer (exact as a double)
    double x_mean
    VarS y


cdef struct QSpl:
    # river.tree.splitter.QOSplitter (its FeatureQuantizer's hash): the slots sorted by key,
    # the order in which River iterates them
    int fid
    int kind            # RSPL_QO
    int below           # MidpointQOSplitter: a split's left side is the slots below it
    double radius
    int n_slots
    int cap_slots
    QSlot* slots


cdef struct Lin:
    # river.linear_model.LinearRegression() (SGD(0.01), squared loss, intercept_lr 0.01,
    # clip_gradient 1e12, zero initial weights): weights in insertion order
    double intercept
    long long n_iter
    int n_w
    int cap_w
    int* wf             # feature id by position
    double* w
    int* wpos           # fid -> position + 1 (0: absent)
    int wpos_cap


cdef struct RLeaf:
    int depth
    int active          # splitters is not None
    double last_split
    VarS st             # the leaf's stats (target Var)
    Lin lm              # model and adaptive leaves
    double fmse_mean    # adaptive leaves
    double fmse_model
    int n_spl
    int cap_spl
    RSpl** spl          # splitters, insertion order
    int* sidx           # fid -> splitter index + 1; 0 none; -1 disabled attribute
    int sidx_cap


cdef struct RNode:
    # the same fields as _forest_structs.Node up to vmap_cap, in the same order: a split node
    # is walked (branch_no) and kept (_state) through Node* in both kinds
    int is_leaf
    int depth
    RLeaf* lf
    SplitKind kind
    int fid
    double thr
    int vid
    int n_ch
    int cap_ch
    RNode** ch
    int* ch_vid         # multiway: value of each child
    int* vmap           # multiway: vid -> child index + 1
    int vmap_cap
    VarS bst            # the branch's stats (the split leaf's)


cdef struct RTree:
    RNode* root
    # parameters
    double grace_period
    double delta
    double tau
    RegLeafPrediction leaf_pred
    int growth_allowed      # (state: here, beside leaf_pred, so that radius costs no bytes)
    double decay            # model_selector_decay
    double min_samples      # min_samples_split
    int binary_split
    int qo_below            # MidpointQOSplitter (beside binary_split: no bytes added)
    double max_byte_size
    double mem_period
    int stop_mem
    int remove_poor
    int merit_preprune
    long long max_depth
    int digits              # TEBSTSplitter.digits; -1000: EBSTSplitter (no rounding)
    int mem_crossing        # BoundedHoeffdingTreeRegressor: measure on crossing a multiple
    double radius           # QOSplitter.radius; 0: the numeric splitters are E-BSTs
    # state
    long long n_active
    long long n_inactive
    double inactive_est
    double active_est
    double overhead
    double train_weight


cdef struct RSugg:
    # a BranchFactory
    double merit
    int fid             # -1: feature None (the null split, or an empty E-BST)
    SplitKind kind
    double thr
    int vid             # nominal binary
    int sidx            # the splitter's index in the leaf
    VarS left           # children_stats (binary splits)
    VarS right


# ----------------------------------------------------------------------------- river.stats.Var

cdef inline void var_update(VarS* v, double x, double w) noexcept:
    """Var.update (Mean.update inside). w > 0 (checked by the forest), so n > 0 after."""
    cdef double mean_old = v.mean
    v.n += w
    v.mean += (w / v.n) * (x - v.mean)
    v.S += w * (x - mean_old) * (x - v.mean)


cdef inline double var_get(VarS* v) noexcept:
    """Var.get (ddof=1)."""
    if v.n > 1.0:
        return v.S / (v.n - 1.0)
    return 0.0


cdef inline int var_iadd(VarS* a, VarS* b) except -1:
    """Var.__iadd__: a += b."""
    cdef double S, old_n, d
    if a.n + b.n == 0.0:
        raise ZeroDivisionError("float division by zero")
    d = py_pow(a.mean - b.mean, 2.0)
    S = a.S + b.S + d * a.n * b.n / (a.n + b.n)
    old_n = a.n
    a.n += b.n
    a.mean = (old_n * a.mean + b.n * b.mean) / a.n
    a.S = S
    return 0


cdef inline int var_isub(VarS* a, VarS* b) except -1:
    """Var.__isub__: a -= b (Mean.__isub__ first)."""
    cdef double old_n = a.n
    a.n -= b.n
    if a.n > 0:
        a.mean = (old_n * a.mean - b.n * b.mean) / a.n
    else:
        a.n = 0.0
        a.mean = 0.0
    if a.n + b.n == 0.0:
        raise ZeroDivisionError("float division by zero")
    a.S = a.S - b.S - py_pow(a.mean - b.mean, 2.0) * a.n * b.n / (a.n + b.n)
    return 0


# ----------------------------------------------------------------------------- index maps

cdef inline int grow_imap(int** p, int* cap, int need) except -1:
    """Room for index need in a zero-filled map of ints (an id -> position + 1 map)."""
    cdef int nc, q
    if need < cap[0]:
        return 0
    nc = grow_cap(cap[0], need + 1)
    p[0] = <int*>xrealloc(p[0], nc * sizeof(int))
    for q in range(cap[0], nc):
        p[0][q] = 0
    cap[0] = nc
    return 0
