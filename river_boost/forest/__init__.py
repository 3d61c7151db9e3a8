"""A compiled forest of River Hoeffding trees: N trees that learn and predict exactly as
:class:`river.tree.HoeffdingTreeClassifier`, some 40-50 times faster than River's tree
(``benchmarks/forest_speed.py``: ten trees, predict and learn every example).

A booster runs ``N`` weak learners on every example. :class:`HoeffdingForest` holds ``N``
Hoeffding trees in C structures (``river_boost.forest._forest``, compiled from Cython at install
time): no Python object per node, leaf, splitter or class distribution, and ``x`` is
converted once per call into arrays of (feature id, value). Each tree keeps its own
parameters (the boosters diversify ``delta``, ``tau`` and ``grace_period`` per tree) and may
see its own subset of the features (``feature_filter``).

Exactness
---------
Every tree is River's ``HoeffdingTreeClassifier`` (River 0.26), bit for bit: the same splits
(features, thresholds, nominal values), the same leaf statistics, and
``predict_proba_all(x)[i] == trees[i].predict_proba_one(x)`` as dicts with the same keys in
the same order and the same float bits. ``tests/forest/test_forest.py`` checks this against River's
own tree on every call of many streams and configurations. The arithmetic is River's,
operation by operation and in River's order (including CPython's ``sum()``, which is
compensated from Python 3.12 on, ``float.__pow__`` through the C library's ``pow``, and the
exceptions Python raises on division by zero or ``math`` domain errors), and River's
tie-breaking is kept: dict insertion orders of classes and features per leaf, ``max`` keeping
the first maximum, stable sorts, and CPython's iteration order of a ``set`` of nominal values.

Supported: Gaussian splitters on numeric features (River's ``GaussianSplitter``, any
``n_splits``); nominal features (``nominal_attributes``, or any non-numeric value) with
River's ``NominalSplitterClassif``, multiway and ``binary_split=True``; criteria
``info_gain``, ``gini``, ``hellinger``; leaves ``mc``, ``nb``, ``nba`` with
``nb_threshold``; ``grace_period``, ``delta``, ``tau``, ``max_depth``, ``merit_preprune``,
``min_branch_fraction``, ``max_share_to_split``, ``remove_poor_attrs``; any positive float
sample weight (also ``1e-300`` or ``1e300``); missing features (River's traversal to the
most common path); classes and features that first appear mid-stream; new values of a
nominal feature at a multiway split (River adds a branch); River's memory management
(``max_size``, ``memory_estimate_period``, ``stop_mem_management``) and its
deactivation/reactivation policy.

Differences from River, all deliberate:

- **Memory measurement.** River measures a tree with ``sys.getsizeof`` over its Python
  objects; the forest measures its C structures (a deterministic function of their content,
  so a pickled forest measures the same). The policy that uses the measurements is River's.
  Results can therefore differ only when the size limit actually binds, i.e. when
  ``_estimate_model_size`` finds the model larger than ``max_size`` or when, after a split,
  River's leaf-size estimates times the number of leaves exceed ``max_size``; with River's
  default 100 MiB and 1,000,000-instance period, in practice never. Everywhere else —
  including ``stop_mem_management``, which stops growth at the first split after *any* leaf
  became inactive, and the reactivation of pre-pruned leaves after every split — the trees
  are River's. Outside that policy, ``sys.getsizeof(forest)``, and so River's memory
  measures of a booster (``_raw_memory_usage``, ``_memory_usage``, ``show_memory=True`` in
  ``evaluate.progressive_val_score``), count the C memory the trees hold (as allocated,
  capacities included), which Python's object walk cannot see (ten trees after 20,000 SEA
  examples: about a tenth of what River's own trees measure, and about 4 times the forest's
  pickle, a compact encoding without capacity slack or caches).
- **Numbers that are not Python ints or floats.** Feature values and weights are converted
  to C doubles once, and the forest then does what River does with Python floats. Python
  ints, bools and floats (what River's datasets and the pool produce) are exact, as are
  integers up to 2**53 in magnitude. River itself computes differently with NumPy scalars:
  ``numpy.float32`` features are carried through its statistics in float32 (NumPy 2's
  promotion rules); ``numpy.float64`` features make its Gaussian CDF return ``inf``/``nan``
  arithmetic instead of catching ``ZeroDivisionError`` when a class's weights at a leaf sum
  to at most 1; and on Python >= 3.12 ``sum()`` does not compensate ``numpy.float64``
  weights. With such inputs the forest follows River-on-Python-floats. Integers beyond 2**53
  (which Python compares exactly) may also differ.
- **Inputs River cannot learn from.** ``None`` as a feature value raises ``ValueError``
  (drop the key to mark a feature missing); a feature whose values mix numbers and
  non-numbers (without being in ``nominal_attributes``) raises ``TypeError``. River
  raises in most such cases too, but only after partly updating the tree; the forest raises
  before touching it.

- **Set order after unpickling.** Binary splits on nominal features try the values in
  CPython's iteration order of River's ``set`` of values; with string values that order
  depends on the process's hash seed. Within one process the forest and River agree; a
  pickled River tree and a pickled forest restored in another process may break an exact
  tie between two values differently.

Where River itself raises, the forest raises the same exception at the same call, after the
same partial update (the same operations run in the same order): ``w = 0`` gives
``ZeroDivisionError`` when a class's first weight at a Gaussian splitter is 0; and River's
running variance (Welford's update) can turn slightly negative by rounding when weights of
very different magnitudes meet in one leaf (seen with a 1e-300 or a 1e300 weight among
ordinary ones), after which its ``Gaussian.sigma`` is a complex number and every split
attempt at that leaf raises ``TypeError`` (``math.erf`` of a complex).

Pickling (any protocol) and ``copy.deepcopy`` work at any point of the stream and give a
forest that continues identically.

Bounded memory
--------------
River's size limit does not bind under boosting (see above): a booster's trees grow for as
long as the stream lasts. :class:`BoundedHoeffdingTree` is River's tree with one change, a
size measurement whenever the weight learned reaches or crosses a multiple of
``memory_estimate_period``, and a limit that binds (2 MiB per tree, measured every 1,000
units of weight): past it, River's (and MOA's) policy deactivates the least promising
leaves. The forest compiles it as it compiles River's tree. On a million examples of a
drifting SEA stream its trees stop growing at no cost in accuracy
(``benchmarks/drift_memory.py``; ``benchmarks/RESULTS.md``, "A million examples: memory").

Regression
----------
:class:`HoeffdingRegressionForest` compiles River's ``HoeffdingTreeRegressor`` the same way, bit
for bit (with River's E-BST or quantization observers, and :class:`MidpointQOSplitter`, River's
quantization observer with the paper's split candidates), and
:class:`BoundedHoeffdingTreeRegressor` is its bounded tree: see
``river_boost/forest/_regression.py``.

Converting ``x`` once
---------------------
``learn_one(i, x, y, w)`` converts ``x`` on every call. A booster that teaches several trees
the same ``x``, or walks many trees for one ``x`` (the martingale booster's exact prediction
visits every node a coin flip could reach), converts it once with :meth:`~HoeffdingForest.load`
and then calls ``predict_loaded(i)``, ``predict_loaded_row(i, labels)``,
``predict_loaded_matrix(labels, trees)`` and ``learn_loaded(i, y, w)`` on any trees, in any
order. The loaded ``x`` is the forest's own converted copy, taken at ``load``: the
``*_loaded`` methods take no ``x``, so a dict mutated (or replaced) since can never be served
a stale conversion. Any method that converts another ``x`` unloads it, and the ``*_loaded``
methods then raise ``RuntimeError`` rather than guess.

Trees that come and go
----------------------
:meth:`~HoeffdingForest.add` appends a fresh tree, :meth:`~HoeffdingForest.reset` makes a tree
fresh again (its own or new parameters), :meth:`~HoeffdingForest.copy_tree` makes a tree an
exact copy of another (River's ``copy.deepcopy``: e.g. a tree trained in the background
swapped in), :meth:`~HoeffdingForest.remove` deletes one (later trees move down an index).
The nodes of reset, overwritten and removed trees are freed. Feature views: the
``feature_filter`` is asked ``keeps(i, feature)`` once per tree and feature, and the answers
are kept with the tree: a reset tree keeps its index and so its view (``refilter=True``
asks again), a copy takes its source's answers, a moved tree keeps its own. Pickling,
``to_river``, ``summary`` and the diagnostics follow the trees as they are.
"""

from __future__ import annotations

from ._classifier import BoundedHoeffdingTree, HoeffdingForest
from ._classifier import _rebuild as _rebuild  # 0.2.0's pickles load through it, by this name
from ._regression import (
    BoundedHoeffdingTreeRegressor,
    HoeffdingRegressionForest,
    MidpointQOSplitter,
)

__all__ = [
    "ENABLED",
    "BoundedHoeffdingTree",
    "BoundedHoeffdingTreeRegressor",
    "HoeffdingForest",
    "HoeffdingRegressionForest",
    "MidpointQOSplitter",
]

#: Whether boosters whose weak learners the forest supports use it. Set it to False to run
#: River's own trees, the reference: the same results, as long as no tree's size limit binds
#: (River measures its Python objects, several times the forest's C trees: see "Memory
#: measurement"; the default BoundedHoeffdingTree's limit binds in Python on smaller trees).
ENABLED = True
