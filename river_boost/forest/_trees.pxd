# The compiled forest's tree storage (River's HoeffdingTreeClassifier over DTBranch and leaf
# nodes): nodes, walking an x to its leaf, learning (the leaf's, then growth: split attempts,
# splits, the memory-size policy) and sizes in bytes; its state is _state's.

from river_boost.forest._forest_structs cimport (
    SPLIT_NOMINAL_BINARY, SPLIT_NUMERIC_BINARY, XV, Node, Tree, Work, in_view,
)
from river_boost.forest._registry cimport Registry


cdef inline int branch_no(Node* nd, XV* xv) noexcept:
    """DTBranch.branch_no, or -1 where River raises KeyError (feature missing, unseen value)."""
    cdef int j, vid
    if not in_view(xv, nd.fid):
        return -1
    j = xv.vpos[nd.fid]
    if nd.kind == SPLIT_NUMERIC_BINARY:
        return 0 if xv.d[j] <= nd.thr else 1
    if nd.kind == SPLIT_NOMINAL_BINARY:
        return 0 if xv.v[j] == nd.vid else 1
    vid = xv.v[j]  # SPLIT_NOMINAL_MULTIWAY
    if vid < 0 or vid >= nd.vmap_cap or nd.vmap[vid] == 0:
        return -1
    return nd.vmap[vid] - 1


ctypedef void (*OwnFree)(Node* nd) noexcept
ctypedef double (*NodeTotal)(Node* nd) noexcept
cdef void subtree_free(Node* nd, OwnFree own) noexcept
cdef void node_free(Node* nd) noexcept
cdef int heaviest_child(Node* nd, NodeTotal total) noexcept
cdef Node* walk_to_leaf(Node* nd, XV* xv) noexcept
cdef void count_nodes(Node* nd, long long* n_nodes, long long* n_leaves, long long* height,
                      long long depth) noexcept
cdef long long count_reactivable(Node* nd, long long max_depth) noexcept
cdef long long tree_allocated(Tree* t) noexcept
cdef int tree_init(Tree* t, tuple params) except -1
cdef void tree_free(Tree* t) noexcept
cdef int tree_learn(Tree* t, const unsigned char* fstate, int i, XV* xv, Work* wk, Registry reg,
                    int cid, double w) except -1
