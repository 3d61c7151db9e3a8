"""The exact laws behind OnlineMBBM's potentials for many votes left
(:class:`~river_boost.potentials.MulticlassZeroOnePotential`): Loader's binomial and Poisson
pmfs, a bounded cache of them, and the banded dynamic program's driver
(:func:`banded_potential`; its rows are compiled, ``river_boost.engine._dp.capped_rows``).
NumPy oracles of all of it are in ``tests/oracles/dp_oracle.py``."""

from __future__ import annotations

import math
from collections import OrderedDict

import numpy as np
from scipy.stats import binom as binom_dist

from . import _dp

#: terms below this are left out of the large-``n`` DP (see :func:`banded_potential`)
DROP = 1e-30
#: a potential within this of 1 or 0 (by one gap's law and a union bound) is exactly 1 or 0
DECIDED = 2.0**-60


def banded_potential(n: int, k: int, p_right: float, gaps: tuple, gap_tail) -> float:
    """``phi_n`` for ``k`` labels and the sorted ``gaps`` above the dense DP's ``n``
    (:class:`~river_boost.potentials.MulticlassZeroOnePotential`): the banded DP over the
    binding labels, one row per ``m`` (the right label's votes). ``gap_tail`` is
    ``(P(D >= d), P(D <= d))`` of one gap's law after ``n`` votes, at index ``d + n``.

    Given ``m``, the ``T = n - m`` wrong votes are uniform over ``K = k - 1`` labels: the
    law of ``K`` independent ``Poisson(lam)`` counts conditioned on their sum being ``T``,
    for any ``lam``. So ``Q(m) = P(every X_l <= m + g_l - 1 | m)`` is
    ``P(Y_l <= cap_l for all l, sum Y = T) / P(Poisson(K lam) = T)``. With one ``lam`` for
    every ``m`` the kernel is the same for all rows (only the caps differ): the numerator
    is a convolution of Poisson pmfs cut at the caps, label by label (tightest first, a
    band of about ``20 sqrt(lam)`` entries), and once no mass of the kernel lies above a
    row's cap that label and all looser ones are one ``Poisson((K - j) lam)`` factor,
    applied when the row is closed. Cost: about ``rows x band x width`` per binding
    label, ``O(n^2)`` for ``n`` votes instead of the dense DP's ``O(n^3)``.

    Terms below ``DROP`` (``P(m)``, kernel entries, partial sums) are left out: far under
    the float64 rounding of ``1 - win`` (tested against the dense DP and brute force). The
    rows' DP is compiled (``river_boost.engine._dp.capped_rows``), reading this module's
    cached laws.
    """
    K = k - 1
    # Decided potentials, from the law of one gap D = X_r - X_l: r wins at most as often
    # as it beats the closest label, and loses at most sum_l P(D <= -g_l). Below 2^-60
    # the result rounds to exactly 1 or 0 (the DP would give 1.0, or 0 up to rounding).
    upper, lower = gap_tail  # P(D >= d), P(D <= d) at index d + n
    if upper[min(2 * n + 1, max(0, n + 1 - gaps[0]))] < DECIDED:
        return 1.0
    if math.fsum(lower[min(2 * n, -g + n)] for g in gaps if -g >= -n) < DECIDED:
        return 0.0
    caps_off = np.asarray(gaps, dtype=np.int64) - 1  # sorted: tightest first
    # int64: capped_rows reads 8-byte ints (NumPy 1's default int has 4 on Windows)
    m = np.arange(n + 1, dtype=np.int64)
    T = n - m
    p_m = binomial_pmf_vector(n, p_right)
    bind = m + caps_off[0] < T
    terms = p_m[~bind].tolist()  # no wrong label can reach r: Q = 1
    rows = np.flatnonzero(bind & (p_m > DROP))
    if rows.size:
        terms += _dp.capped_rows(
            K, caps_off, m[rows], T[rows], p_m[rows], poisson_pmf_range, poisson_pmf_at, DROP
        )
    win = math.fsum(terms)
    return min(1.0, max(0.0, 1.0 - win))


def gap_laws(n: int, k: int, gamma: float, p_right: float):
    """``(j, law)`` for ``j = 0..n``: the law of the gap ``D = X_r - X_l`` between the right
    label and one wrong label after ``j`` votes (on ``d = -j..j``), by ``j`` convolutions
    with ``(q, 1 - p - q, p)``, ``q = (1 - gamma) / k`` and ``p = p_right``."""
    q = (1.0 - gamma) / k
    kernel = np.array([q, max(0.0, 1.0 - p_right - q), p_right])
    law = np.ones(1)
    yield 0, law
    for j in range(1, n + 1):
        law = np.convolve(law, kernel)
        yield j, law


def tails(law):
    """Upper (with one extra 0 at the end) and lower cumulative sums of a pmf, within 1."""
    upper = np.append(np.minimum(np.cumsum(law[::-1])[::-1], 1.0), 0.0)
    return upper, np.minimum(np.cumsum(law), 1.0)


class LawCache:
    """Pure, read-only pmf vectors of the large-``n`` DP by key, the oldest dropped first
    beyond ``max_bytes`` of data (module level: never pickled). A booster asks the same
    laws over and over (the same ``n``, the same Poisson rate for the same tightest gap):
    cached, a law is computed once instead of once per potential, with the same floats."""

    def __init__(self, max_bytes: int):
        self.max_bytes = max_bytes
        self.nbytes = 0
        # the oldest dropped in constant time (a plain dict finds its first entry by skipping
        # the slots its deleted entries left, until it next resizes)
        self._laws = OrderedDict()

    def get(self, key, build):
        law = self._laws.get(key)
        if law is None:
            law = build()
            law.flags.writeable = False
            while self._laws and self.nbytes + law.nbytes > self.max_bytes:
                self.nbytes -= self._laws.popitem(last=False)[1].nbytes
            self._laws[key] = law
            self.nbytes += law.nbytes
        return law


#: at most 8 MB of laws: about 2,000 vectors at ``n = 500``
LAWS = LawCache(8 * 2**20)


def binomial_pmf_vector(n: int, q: float):
    """``P(Binomial(n, q) = m)`` for ``m = 0..n`` to about 1e-15 relative (scipy's Boost
    ``binom.pmf``; ``exp(lgamma ...)`` loses ~1e-13 to cancellation at ``n = 1000``);
    cached (read-only)."""
    return LAWS.get(("binom", n, q), lambda: binom_dist.pmf(np.arange(n + 1), n, q))


def poisson_pmf_range(lam: float, top: int):
    """``poisson_pmf(lam, np.arange(top + 1))``, cached (read-only)."""
    return LAWS.get(("poisson", lam, top), lambda: poisson_pmf(lam, np.arange(top + 1)))


def poisson_pmf_at(lam: float, x):
    """``poisson_pmf(lam, x)`` for an integer array ``x``, cached under its bytes
    (read-only)."""
    x = np.ascontiguousarray(x, dtype=np.int64)
    return LAWS.get(("poisson at", lam, x.tobytes()), lambda: poisson_pmf(lam, x))


_STIRLERR_SMALL = np.array(
    [0.0]
    + [
        math.lgamma(x + 1.0) - (x + 0.5) * math.log(x) + x - 0.5 * math.log(2 * math.pi)
        for x in range(1, 16)
    ]
)


def _stirlerr(x):
    """``log(x!) - log(sqrt(2 pi x) (x / e)^x)`` for integers ``x >= 1`` (Loader 2000)."""
    xs = np.minimum(x, 15).astype(np.int64)
    big = np.maximum(x, 16.0)
    nn = big * big
    series = (
        1.0 / 12 - (1.0 / 360 - (1.0 / 1260 - (1.0 / 1680 - 1.0 / (1188 * nn)) / nn) / nn) / nn
    ) / big
    return np.where(x <= 15, _STIRLERR_SMALL[xs], series)


def _bd0(x, mu: float):
    """``x log(x / mu) + mu - x`` without cancellation (Loader 2000)."""
    x = np.asarray(x, dtype=float)
    near = np.abs(x - mu) < 0.1 * (x + mu)
    with np.errstate(divide="ignore", invalid="ignore"):
        far = x * np.log(x / mu) + mu - x
    v = np.where(near, (x - mu) / (x + mu), 0.0)
    total = (x - mu) * v
    term = 2.0 * x * v
    v2 = v * v
    for j in range(1, 40):
        term = term * v2
        nxt = total + term / (2 * j + 1)
        if np.array_equal(nxt, total):
            break
        total = nxt
    return np.where(near, total, far)


def poisson_pmf(lam: float, x):
    """``P(Poisson(lam) = x)`` elementwise for integers ``x >= 0``, to about 1e-15 relative
    (Loader's saddle-point form, as R's ``dpois``)."""
    x = np.asarray(x, dtype=float)
    one = np.maximum(x, 1.0)
    out = np.exp(-_stirlerr(one) - _bd0(one, lam)) / np.sqrt(2.0 * math.pi * one)
    return np.where(x == 0, math.exp(-lam), out)
