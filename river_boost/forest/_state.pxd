# The trees' state (_state.pyx), both kinds: a tree's nodes exported (as tuples) and imported
# back, for copy_tree, to_river and the tests; a tree written to and read from the flat streams
# of _flat.pxd, for pickles.

from river_boost.forest._flat cimport Flat, Rd, Tables
from river_boost.forest._forest_structs cimport Node, Tree
from river_boost.forest._reg_structs cimport RNode, RTree
from river_boost.forest._registry cimport Registry


# the classifier's (_trees)
cdef object export_node(Node* nd, bint deep, Registry reg)
cdef Node* import_node(tuple st, int nf) except NULL
cdef int tree_write(Tree* t, const unsigned char* fstate, int nf, int nc, Flat* f) except -1
cdef int tree_read(Rd* r, Tree* t, unsigned char* fstate, const Tables* tb) except -1
# the regressor's (_regtrees)
cdef list rtree_export(RTree* t)
cdef RNode* rtree_import(list flat, int nf) except? NULL
cdef int rtree_write(RTree* t, Flat* f) except -1
cdef int rtree_read(Rd* r, RTree* t, const Tables* tb) except -1
cdef int rtree_write_caps(RTree* t, Flat* f) except -1
cdef int rtree_read_caps(Rd* r, RTree* t, const Tables* tb) except -1
