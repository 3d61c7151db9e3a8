"""An online adaptive martingale booster (after Long & Servedio's adaptive martingale boosting).

The batch algorithm builds a leveled branching program: an example starts at position 0 of
level 0 and, at each level ``t``, the node it reaches moves it by ``gamma_t * h(x)`` (its weak
hypothesis, confidence-rated in ``[-1, 1]``), randomly rounded to the level's grid of multiples
of ``gamma_t / 2``. The final hypothesis is the sign of the last position. The path of an
example depends only on ``x``, never on its label, which is what makes martingale boosting
tolerant to random classification noise. This module grows that program with the stream.

"""

from __future__ import annotations

import copy
import math
import random
from array import array

from river import base

from . import forest as _forest_mod
from ._params import check_choice
from ._params import clone as _clone
from ._pickles import Stateful, seed_or_entropy
from .engine._clean import Cleaner
from .engine._contract import as_binary_label, check_sample_weight
from .engine._format import rng_state, set_rng_state
from .learners import accepts_sample_weight, replicas
from .pool import default_model
from .potentials import sigmoid

__all__ = ["MartingaleBooster", "freezing_threshold", "round_to_grid", "balance", "node_model"]


def node_model() -> base.Classifier:
    """The default node learner: a Hoeffding tree that tries to split every 50 examples with
    split confidence 0.01. A node sees only the examples routed to it, a fraction of the
    stream, and River's defaults (200, 1e-7) leave most node trees unsplit; measured in
    ``benchmarks/RESULTS.md``. Built on :func:`~river_boost.pool.default_model` (River's tree
    with a faster, result-identical split search and naive-Bayes leaves)."""
    return _clone(default_model(), {"grace_period": 50, "delta": 0.01})


def freezing_threshold(gammas, epsilon: float) -> float:
    """``A_t = sqrt(8 * sum_{s<t} gamma_s^2 * (2 ln t + ln(4 / epsilon)))`` (section 4.1).

    ``gammas`` are the steps of the ``t`` levels above level ``t``; nodes at level ``t`` whose
    position exceeds ``A_t`` in absolute value are frozen. ``inf`` at level 0.

    Examples
    --------

    >>> round(freezing_threshold([0.5, 0.5], epsilon=0.1), 4)
    4.5056

    """
    t = len(gammas)
    if t == 0:
        return math.inf
    return math.sqrt(
        8.0 * sum(g * g for g in gammas) * (2.0 * math.log(t) + math.log(4.0 / epsilon))
    )


def grid_neighbours(target: float, step: float) -> tuple:
    """``(i, rho)`` with ``target = (i + rho) * step`` and ``0 <= rho < 1``: the grid point
    below ``target`` and how far up to the next one it lies."""
    scaled = target / step
    i = math.floor(scaled)
    return i, scaled - i


def round_to_grid(target: float, step: float, u: float) -> int:
    """Randomised rounding of ``target`` to a multiple of ``step`` (section 3).

    With ``target = (i + rho) * step``, ``0 <= rho < 1``, returns ``i + 1`` if ``u < rho``
    else ``i`` (``u`` uniform in ``[0, 1)``), so the expected grid position is ``target``.

    Examples
    --------

    >>> round_to_grid(0.35, 0.1, u=0.4), round_to_grid(0.35, 0.1, u=0.6)
    (4, 3)

    """
    i, rho = grid_neighbours(target, step)
    return i + 1 if u < rho else i


def balance(h: float, mean: float) -> float:
    """The balanced variant of a confidence ``h`` given its mean ``E[h]`` (Definition 5).

    An affine map of ``[-1, 1]`` into itself that sends ``mean`` to 0 and keeps the endpoint
    opposite the mean fixed, so the balanced hypothesis has mean 0 under the balanced
    distribution and its advantage on positives equals its advantage on negatives (Lemma 7).

    Examples
    --------

    >>> balance(0.5, 0.5), round(balance(1.0, 0.5), 4), balance(-1.0, 0.5)
    (0.0, 0.3333, -1.0)

    """
    if mean >= 0:
        return (h + 1.0) / (mean + 1.0) - 1.0
    return (h - 1.0) / (1.0 - mean) + 1.0


_BINARY_LABELS = (False, True)


class _ForestTree:
    """A node's learner when the booster holds its nodes' trees in one compiled forest: tree
    ``index`` of ``forest``. It answers River's ``predict_proba_one`` and ``learn_one`` (for
    inspection); the booster itself goes through the forest's convert-once API (``load``,
    ``predict_loaded_row``, ``learn_loaded``), which gives the same results."""

    def __init__(self, forest, index: int):
        self.forest = forest
        self.index = index

    def predict_proba_one(self, x) -> dict:
        return self.forest.predict_proba_one(self.index, x)

    def learn_one(self, x, y, w=1.0) -> None:
        self.forest.learn_one(self.index, x, y, w)

    def to_river(self):
        """The tree as a River object (a copy carrying its state)."""
        return self.forest.to_river(self.index)

    def __repr__(self):
        return f"_ForestTree(index={self.index})"


class _Node:
    """A node of the branching program: its weak learner and the running statistics the
    booster needs (class counts for balancing, per-class mean confidence for Definition 5 and
    the two-sided advantage)."""

    _balanced_mean = None  # balanced_mean()'s cache (a class default: older pickles lack it)

    def __init__(self, position: float, model: base.Classifier | None, memory: int):
        self.position = position
        self.model = model  # None: a frozen node, classifying by sign(position)
        self.memory = memory
        self.counts = [0.0, 0.0]  # weighted examples of class False / True
        self.mean_h = [0.0, 0.0]  # running mean of the raw confidence h per class
        self.n_h = [0, 0]

    def __getstate__(self):  # balanced_mean()'s cache: a copy recomputes it
        return {k: v for k, v in self.__dict__.items() if k != "_balanced_mean"}

    @property
    def frozen(self) -> bool:
        return self.model is None

    def confidence(self, x, hard: bool) -> float:
        """Raw confidence ``h(x) = P(True) - P(False)`` in ``[-1, 1]`` (0 before learning),
        or its sign if ``hard``. A forest node reads the ``x`` loaded in its forest (the
        booster loads ``x`` before it walks), the same floats as its ``predict_proba_one``."""
        model = self.model
        if type(model) is _ForestTree:
            p_false, p_true = model.forest.predict_loaded_row(model.index, _BINARY_LABELS)
            h = p_true - p_false
        else:
            proba = model.predict_proba_one(x)
            h = float(proba.get(True, 0.0)) - float(proba.get(False, 0.0))
        return (h > 0) - (h < 0) if hard else h

    def balanced_mean(self) -> float:
        """``E[h]`` under the class-balanced distribution of this node (Definition 4)."""
        # cached until the node learns: the prediction walk asks every node it visits
        mean = self._balanced_mean
        if mean is None:
            seen = [m for m, n in zip(self.mean_h, self.n_h) if n]
            mean = self._balanced_mean = sum(seen) / len(seen) if seen else 0.0
        return mean

    def advantage(self, min_samples: int) -> float | None:
        """Two-sided advantage of the balanced hypothesis: ``E+[h^] = E-[-h^]``.

        With ``m`` the balanced mean, ``h^`` is affine in ``h`` and ``E+[h^] + E-[h^] = 0``, so
        both sides equal ``(E+[h] - E-[h]) / (2 (1 + |m|))``. ``None`` until each class has been
        seen ``min_samples`` times.
        """
        if min(self.n_h) < min_samples:
            return None
        m = self.balanced_mean()
        return 0.5 * (self.mean_h[1] - self.mean_h[0]) / (1.0 + abs(m))

    def learn(
        self,
        x,
        y: bool,
        h: float,
        w: float,
        accepts_w: bool,
        rng: random.Random,
        balanced: bool = True,
    ):
        c = int(y)
        self._balanced_mean = None
        # Running mean that forgets (window ~ memory): the learner keeps changing.
        self.n_h[c] += 1
        self.mean_h[c] += (h - self.mean_h[c]) / min(self.n_h[c], self.memory)
        self.counts[c] += w
        # Class-balanced importance weight (Definition 4): each class weighs half the total.
        weight = w * sum(self.counts) / (2.0 * self.counts[c]) if balanced else w
        if not weight > 0.0:  # underflowed: River's trees cannot take a weight of 0
            return
        model = self.model
        if type(model) is _ForestTree:
            model.forest.learn_loaded(model.index, y, weight)  # x is loaded, as above
        elif accepts_w:
            model.learn_one(x, y, w=weight)
        else:
            for _ in range(replicas(weight, rng)):
                self.model.learn_one(x, y)


class MartingaleBooster(Stateful, base.Classifier):
    """Online adaptive martingale boosting: a branching program that grows with the stream.

    After Long & Servedio's *adaptive martingale boosting* (batch), made online:

    - **Program.** Level ``t`` holds nodes at multiples of ``gamma_{t-1} / 2``; every node owns
      a clone of ``model`` trained only on the examples that reach it. An example at node
      ``(beta, t)`` moves to ``beta + gamma_t * h^(x)``, randomly rounded to one of the two
      neighbouring grid points of level ``t + 1`` so that its expected position is exact
      (section 3; seeded). Nodes are created when an example first reaches them.
    - **Two-sided, balanced hypotheses** (section 5.1). Each node trains its learner with
      class-balanced importance weights from its running class counts, and reads the learner
      as ``h = P(True) - P(False)``, balanced against its running mean under the balanced
      distribution (Definition 5), so ``h^`` has the same advantage on both classes. With
      ``train_balanced=False`` the learner sees the node's examples unweighted and only the
      hypothesis is balanced (see *Noise*).
    - **Adaptive steps.** Each node tracks the per-class means of ``h`` (a running mean with a
      window of ``memory`` examples), hence its two-sided advantage. The level's step is the
      minimum advantage over its nodes that have seen ``min_node_samples`` examples of each
      class, floored at ``gamma_min``. **Stability rule:** level ``t``'s step is committed
      once, when level ``t + 1`` activates, and never changes afterwards, so node positions
      never churn. The deepest level's step (no level below depends on it) follows the live
      estimate.
    - **Activation.** Level ``t + 1`` activates once ``grace_period`` examples have reached
      level ``t`` *and* level ``t`` is stable: its nodes with an advantage estimate carry at
      least half of its traffic (so the committed step is not one node's guess). At most
      ``n_levels`` levels.
    - **Freezing** (section 4.1). A node created at level ``t`` beyond
      ``A_t = sqrt(8 sum_{s<t} gamma_s^2 (2 ln t + ln(4/epsilon)))`` is frozen: it has no
      learner, examples stop there and it classifies by ``sign(beta)``.
    - **Prediction** is derandomised: the distribution of the final position over the
      rounding coins is propagated exactly through the levels (no side effects, no sampling).
      The deepest active level moves each example by its live step without rounding. With
      ``prediction="sign"`` (the paper's hypothesis) ``P(True)`` is the probability that the
      final position is positive (a tie counts 1/2). With ``prediction="calibrated"`` it is
      ``sigmoid(a * E[beta_T] + b)``, fitted online by logistic regression on the expected
      final position (Platt scaling, ``a >= 0`` so the order is that of ``E[beta_T]``).
      ``predict_one`` is the most probable class.
    - **Noise.** The route of an example never depends on its label; labels only train the
      node learners and their class counts. Balancing the *training* distribution breaks
      that independence, as section 5.2 notes: at a node far from 0 most examples share one
      class, most of the other class are flipped labels, and balancing weights them up by
      the inverse class share. The paper's repair (via Kalai & Servedio) is not implemented;
      ``train_balanced=False`` is a simpler one: the node's learner is trained on the node's
      examples as they come (the noise stays independent of ``x``), and its confidence is
      balanced afterwards (Definition 5). Lemma 7 then gives the two-sided advantage
      whenever the learner's mean confidence is higher on the node's positives than on its
      negatives, which is its advantage on the balanced distribution. Measured in
      ``benchmarks/RESULTS.md``: smaller drops under noise on four of five streams, slightly
      lower accuracy without noise; not the default.
    - **Compiled nodes.** When the compiled forest supports ``model`` (River's or this
      package's Hoeffding tree with a Gaussian splitter, as :func:`node_model`), the nodes'
      trees live in one :class:`~river_boost.forest.HoeffdingForest`: a tree is added per new
      node (``warm_start`` copies the parent's), ``x`` is converted once per prediction walk
      and once per training path, and every node's tree is River's to the last bit, so every
      probability, step and diagnostic is what Python nodes give, several times faster.
      ``river_boost.forest.ENABLED = False`` at construction keeps River's trees in the nodes.

    Size stays bounded: with steps ``>= gamma_min`` the positions at level ``t`` lie within
    ``1.5 * sum_{s<t} gamma_s`` of 0, so level ``t + 1`` has at most
    ``6 * sum_{s<t} gamma_s / gamma_min + 2`` nodes (fewer with freezing); ``n_nodes`` reports
    the counts.

    Parameters
    ----------
    model
        The weak learner cloned into every node (default: :func:`node_model`, a Hoeffding
        tree with ``grace_period=50, delta=0.01``).
    n_levels
        Maximum number of levels ``T``.
    epsilon
        Target error of the freezing rule (larger freezes more).
    gamma_min
        Floor on every level's step.
    grace_period
        Examples that must reach a level before the next one activates.
    min_node_samples
        Examples of each class a node must have seen before its advantage counts.
    memory
        Window of the running means of the nodes' confidences.
    step_rule
        ``"min"`` (the paper: the smallest advantage over the level's nodes with enough data)
        or ``"mean"`` (their traffic-weighted mean: larger steps, no worst-case guarantee).
    hard
        Read each node's learner as its vote ``sign(P(True) - P(False))`` instead of the
        confidence ``P(True) - P(False)``.
    warm_start
        A new node starts from a copy of its parent's learner instead of a fresh clone.
    train_balanced
        Train each node's learner with class-balanced importance weights (the paper); with
        ``False``, on the node's examples unweighted (see *Noise*).
    prediction
        ``"calibrated"`` (default) or ``"sign"``, see above.
    seed
        Seed of the rounding coins.

    References
    ----------
    [^1]: Long, P.M. and Servedio, R.A., 2008. Adaptive martingale boosting. In Advances in
    Neural Information Processing Systems 21.
    [^2]: Long, P.M. and Servedio, R.A., 2005. Martingale boosting. In COLT.

    Examples
    --------

    A branching program of at most five levels:

    >>> from river import datasets, evaluate, metrics
    >>> import river_boost

    >>> model = river_boost.MartingaleBooster(n_levels=5, seed=42)
    >>> evaluate.progressive_val_score(datasets.Phishing(), model, metrics.Accuracy())
    Accuracy: 88.48%

    >>> model.n_nodes
    [1, 5, 15]

    """

    PREDICTIONS = ("calibrated", "sign")
    STEP_RULES = ("min", "mean")
    _forest = None  # the nodes' compiled forest, if any (also for boosters pickled without)
    _changed = True  # (a booster of an older pickle has learned)
    _walked = None  # (clean x, the final position's distribution) for the last x, if current

    def __init__(
        self,
        model: base.Classifier | None = None,
        n_levels: int = 10,
        epsilon: float = 0.1,
        gamma_min: float = 0.1,
        grace_period: int = 200,
        min_node_samples: int = 20,
        memory: int = 500,
        step_rule: str = "min",
        hard: bool = False,
        warm_start: bool = False,
        train_balanced: bool = True,
        prediction: str = "calibrated",
        seed: int | None = None,
    ):
        if n_levels < 1:
            raise ValueError(f"n_levels must be >= 1, got {n_levels}")
        if not 0.0 < epsilon < 1.0:
            raise ValueError(f"epsilon must lie in (0, 1), got {epsilon}")
        if not 0.0 < gamma_min <= 1.0:
            raise ValueError(f"gamma_min must lie in (0, 1], got {gamma_min}")
        if grace_period < 1 or min_node_samples < 0 or memory < 1:
            raise ValueError("grace_period and memory must be >= 1, min_node_samples >= 0")
        check_choice("step_rule", step_rule, self.STEP_RULES)
        check_choice("prediction", prediction, self.PREDICTIONS)
        self.model = model
        self.n_levels = n_levels
        self.epsilon = epsilon
        self.gamma_min = gamma_min
        self.grace_period = grace_period
        self.min_node_samples = min_node_samples
        self.memory = memory
        self.step_rule = step_rule
        self.hard = hard
        self.warm_start = warm_start
        self.train_balanced = train_balanced
        self.prediction = prediction
        self.seed = seed

        # the nodes' learners are clones of it (on the forest, its trees share it: never learned)
        self._template = _clone(model) if model is not None else node_model()
        self._accepts_w = accepts_sample_weight(self._template)
        # The nodes' trees in one compiled forest when the forest supports the template (the
        # same trees to the last bit, much faster), unless river_boost.forest.ENABLED is off
        if _forest_mod.ENABLED and _forest_mod.HoeffdingForest.supports(self._template):
            self._forest = _forest_mod.HoeffdingForest._of(self._template, 0)
        seed, self._entropy = seed_or_entropy(seed)
        self._rng = random.Random(seed)
        self._changed = False  # learned or predicted: the state is no longer the parameters'
        self._steps: list[float] = []  # committed gamma_t of every level but the deepest
        self._levels: list[dict[int, _Node]] = [{0: self._new_node(0.0, 0)}]
        self._level_seen = [0]
        # Platt scaling of the expected final position (AdaGrad on the log loss).
        self._platt = [4.0, 0.0]
        self._platt_g2 = [1e-8, 1e-8]
        self._memo = Cleaner()  # x cleaned once for a prediction and the learning after it

    @classmethod
    def _unit_test_params(cls):
        yield {"n_levels": 3, "grace_period": 20, "min_node_samples": 5, "seed": 1}
        yield {
            "n_levels": 4,
            "grace_period": 30,
            "min_node_samples": 5,
            "gamma_min": 0.2,
            "prediction": "sign",
            "epsilon": 0.9,
            "train_balanced": False,
            "seed": 2,
        }

    @property
    def _multiclass(self):
        return False

    # ------------------------------------------------------------------ state (pickling)

    def _get_state(self) -> tuple:
        """``(entropy, program)``: the program as flat arrays (each level's node keys,
        positions, statistics and learners: a tree of the forest by index, a River model,
        or none for a frozen node), the committed steps, the visits, Platt's scaling, the
        kinds of the features, the generator and the forest; None while the booster has
        neither learned nor predicted."""
        if not self._changed:
            return (self._entropy, None)
        levels, models = [], []
        for level in self._levels:
            keys, positions, stats = array("q"), array("d"), array("d")
            n_h, learners = array("q"), array("q")
            for key, node in level.items():
                keys.append(key)
                positions.append(node.position)
                stats.extend(node.counts + node.mean_h)
                n_h.extend(node.n_h)
                model = node.model
                if model is None:
                    learners.append(-1)
                elif type(model) is _ForestTree:
                    learners.append(model.index)
                else:  # a River model of its own
                    learners.append(-2 - len(models))
                    models.append(model)
            levels.append((keys, positions, stats, n_h, learners))
        program = (
            levels,
            models,
            array("d", self._steps),
            array("q", self._level_seen),
            (*self._platt, *self._platt_g2),
            dict(self._memo.nominal),
            rng_state(self._rng),
            None if self._forest is None else self._forest._state(),
        )
        return (self._entropy, program)

    def _take_state(self, state: tuple) -> None:
        _, program = state
        if program is None:
            return
        levels, models, steps, level_seen, platt, nominal, rng, forest = program
        if type(models) is not list:
            raise ValueError("learners that are not River models")
        # the nodes' trees in a forest if the pickle's were (river_boost.forest.ENABLED may
        # have been otherwise when either booster was built)
        self._forest = None if forest is None else _forest_mod.HoeffdingForest._empty()
        if forest is not None:
            self._forest._take_state(forest)
        n_trees = 0 if forest is None else self._forest.n_models
        if not (len(steps) == len(levels) - 1 == len(level_seen) - 1 <= self.n_levels - 1):
            raise ValueError("levels, steps and visits that disagree")
        self._levels = []
        for keys, positions, stats, n_h, learners in levels:
            if (
                not (
                    len(keys) == len(positions) == len(learners) == len(stats) // 4 == len(n_h) // 2
                )
                or len(stats) % 4
                or len(n_h) % 2
            ):
                raise ValueError("a level of the wrong shape")
            level = {}
            for k, key in enumerate(keys):
                learner = learners[k]
                if learner == -1:
                    model = None
                elif 0 <= learner < n_trees:
                    model = _ForestTree(self._forest, learner)
                else:
                    model = models[-2 - learner]  # (IndexError out of range)
                    if learner >= 0 or not isinstance(model, base.Classifier):
                        raise ValueError("a node's learner out of range")
                node = level[key] = _Node(positions[k], model, self.memory)
                node.counts = list(stats[4 * k : 4 * k + 2])
                node.mean_h = list(stats[4 * k + 2 : 4 * k + 4])
                node.n_h = list(n_h[2 * k : 2 * k + 2])
            self._levels.append(level)
        self._steps, self._level_seen = list(steps), list(level_seen)
        self._platt, self._platt_g2 = [*map(float, platt[:2])], [*map(float, platt[2:4])]
        self._memo = Cleaner(dict(nominal))
        set_rng_state(self._rng, rng)
        self._changed = True

    # ------------------------------------------------------------------ program structure

    def _new_node(self, position: float, level: int, parent: _Node | None = None) -> _Node:
        if abs(position) > freezing_threshold(self._steps[:level], self.epsilon):
            return _Node(position, None, self.memory)
        forest = self._forest
        if forest is not None:
            model = _ForestTree(forest, forest._add_shared(self._template))
            if self.warm_start and parent is not None:
                forest.copy_tree(parent.model.index, model.index)  # as deepcopy: exact
        elif self.warm_start and parent is not None:
            model = copy.deepcopy(parent.model)
        else:
            model = _clone(self._template)
        return _Node(position, model, self.memory)

    def _qualified(self, t: int) -> list:
        """``(node, advantage)`` for level ``t``'s live nodes with enough data of each class."""
        return [
            (node, a)
            for node in self._levels[t].values()
            if not node.frozen and (a := node.advantage(self.min_node_samples)) is not None
        ]

    def _level_gamma(self, t: int) -> float:
        """Committed step of level ``t``, or the live estimate for the deepest level."""
        if t < len(self._steps):
            return self._steps[t]
        qualified = [(a, sum(node.n_h)) for node, a in self._qualified(t)]
        if not qualified:
            return self.gamma_min
        if self.step_rule == "min":
            gamma = min(a for a, _ in qualified)
        else:  # traffic-weighted mean
            gamma = sum(a * n for a, n in qualified) / sum(n for _, n in qualified)
        return min(1.0, max(self.gamma_min, gamma))

    def _maybe_activate_next_level(self) -> None:
        deepest = len(self._levels) - 1
        if (
            deepest + 1 < self.n_levels
            and self._level_seen[deepest] >= self.grace_period
            # stable: nodes with an advantage estimate carry at least half the level's traffic
            and 2 * sum(sum(n.n_h) for n, _ in self._qualified(deepest))
            >= self._level_seen[deepest]
        ):
            self._steps.append(self._level_gamma(deepest))  # committed for good
            self._levels.append({})
            self._level_seen.append(0)

    def _walk(self, x) -> list:
        """Exact distribution of the final position: ``[(position, probability), ...]``."""
        final = []
        dist = {0: 1.0}
        depth = len(self._levels)
        if self._forest is not None:
            self._forest.load(x)  # converted once for every node the walk visits
        for t in range(depth):
            level, nxt = self._levels[t], {}
            gamma = self._level_gamma(t)
            for key, p in dist.items():
                node = level.get(key)
                beta = node.position if node is not None else self._position(t, key)
                if node is not None and node.frozen:
                    final.append((beta, p))
                    continue
                # A grid point no training example reached yet has no learner: h^ = 0.
                h = balance(node.confidence(x, self.hard), node.balanced_mean()) if node else 0.0
                target = beta + gamma * h
                if t == depth - 1:
                    final.append((target, p))
                    continue
                i, rho = grid_neighbours(target, gamma / 2.0)
                nxt[i] = nxt.get(i, 0.0) + p * (1.0 - rho)
                if rho > 0.0:
                    nxt[i + 1] = nxt.get(i + 1, 0.0) + p * rho
            dist = nxt
        return final

    def _position(self, t: int, key: int) -> float:
        return 0.0 if t == 0 else key * self._steps[t - 1] / 2.0

    def _final(self, x) -> tuple:
        """``(clean x, exact distribution of the final position)`` for the raw ``x``."""
        clean = self._memo.cleaned(x)  # (the same dict while x and the kinds are unchanged)
        self._changed = True
        walked = self._walked
        if walked is None or walked[0] is not clean:
            walked = self._walked = (clean, self._walk(clean))
        return walked

    # ------------------------------------------------------------------ River API

    def learn_one(self, x, y, w=1.0, **kwargs):
        y = as_binary_label(y)
        w = check_sample_weight(w)
        x, final = self._final(x)  # validates x before any state changes
        if w == 0.0:
            return
        mean_position = sum(b * p for b, p in final)
        self._fit_platt(mean_position, y, w)
        if self._forest is not None:
            self._forest.load(x)  # for the path's nodes (the walk above may be a memo's)
        # Train along one random path (the paper's randomised routing).
        beta, key, parent = 0.0, 0, None
        depth = len(self._levels)
        for t in range(depth):
            node = self._levels[t].get(key)
            if node is None:
                node = self._levels[t][key] = self._new_node(beta, t, parent)
            parent = node
            self._level_seen[t] += 1
            if node.frozen:
                break
            h = node.confidence(x, self.hard)
            h_bal = balance(h, node.balanced_mean())
            node.learn(x, y, h, w, self._accepts_w, self._rng, self.train_balanced)
            if t == depth - 1:
                break
            gamma = self._steps[t]
            key = round_to_grid(beta + gamma * h_bal, gamma / 2.0, self._rng.random())
            beta = key * gamma / 2.0
        self._memo.learned()
        self._walked = None  # the learners changed
        self._maybe_activate_next_level()

    def _fit_platt(self, score: float, y: bool, w: float) -> None:
        a, b = self._platt
        p = sigmoid(a * score + b)
        grads = ((p - y) * score * w, (p - y) * w)
        for i, g in enumerate(grads):
            self._platt_g2[i] += g * g
            self._platt[i] -= 0.5 * g / math.sqrt(self._platt_g2[i])
        self._platt[0] = max(0.0, self._platt[0])

    def predict_proba_one(self, x, **kwargs):
        _, final = self._final(x)
        if self.prediction == "sign":
            p_true = sum(p * (1.0 if b > 0 else 0.5 if b == 0 else 0.0) for b, p in final)
        else:
            a, b = self._platt
            p_true = sigmoid(a * sum(pos * p for pos, p in final) + b)
        p_true = min(1.0, max(0.0, p_true))
        return {False: 1.0 - p_true, True: p_true}

    def predict_one(self, x, **kwargs):
        return self.predict_proba_one(x)[True] >= 0.5

    # ------------------------------------------------------------------ diagnostics

    @property
    def n_nodes(self) -> list:
        """Number of nodes at each active level (frozen ones included)."""
        return [len(level) for level in self._levels]

    @property
    def level_visits(self) -> list:
        """How many training examples reached each active level (each trained one node)."""
        return list(self._level_seen)

    @property
    def n_frozen(self) -> list:
        """Number of frozen nodes at each active level."""
        return [sum(node.frozen for node in level.values()) for level in self._levels]

    @property
    def gammas(self) -> list:
        """Step of each active level: committed ones, then the deepest level's live estimate."""
        return [self._level_gamma(t) for t in range(len(self._levels))]

    @property
    def advantages(self) -> list:
        """Per level, ``{position: two-sided advantage}`` of the nodes with enough data."""
        return [
            {node.position: a for node, a in self._qualified(t)} for t in range(len(self._levels))
        ]
