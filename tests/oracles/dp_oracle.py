"""The potentials' dynamic programs in NumPy, as the papers write them: the readable oracles
of the compiled ones (``river_boost.engine._dp``), slow and plain.

- :func:`dense_potential`: Jung, Goetz & Tewari (2017)'s ``phi_n`` by the dense DP over the
  wrong labels' votes (``MulticlassZeroOnePotential`` up to ``TENSOR_MAX_N`` votes left);
- :func:`poisson_potential`: the same potential by the banded DP on Poisson counts
  conditioned on their sum (above ``TENSOR_MAX_N``), with the potential's laws;
- :func:`max_gap_pmf`: the largest probability of one gap ``X_r - X_l``, a trinomial sum;
- :func:`difference_law`: ``RankingPairPotential``'s law of ``X_r - X_l`` by ``n``
  convolutions, and its suffix sums.
"""

from __future__ import annotations

import math

import numpy as np

from river_boost.engine import _costs, laws


def binomial(a: int, x: int, q: float) -> float:
    """``P(Binomial(a, q) = x)``."""
    return math.comb(a, x) * q**x * (1 - q) ** (a - x)


def transition(n: int, labels: int):
    """``T[a, b] = P(Binomial(a, 1 / labels) = a - b)`` for ``b <= a <= n``, else 0: one of
    ``labels`` labels takes ``a - b`` of ``a`` votes."""
    T = np.zeros((n + 1, n + 1))
    for a in range(n + 1):
        for b in range(a + 1):
            T[a, b] = binomial(a, a - b, 1.0 / labels)
    return T


def capped_votes(n: int, k: int, gaps) -> np.ndarray:
    """``V[m, a]``: given ``m`` votes for the right label, the probability that ``a`` of the
    other ``n - m`` votes are left once every wrong label that can bind took at most
    ``m + g - 1`` (``gaps`` sorted, tightest first)."""
    m = np.arange(n + 1)
    V = np.zeros((n + 1, n + 1))
    V[m, n - m] = 1.0
    a = np.arange(n + 1)
    x = a[:, None] - a[None, :]  # votes one label takes: a left -> b left
    remaining = k - 1
    for g in gaps:
        caps = m + g - 1
        if np.all(caps >= n - m):  # binds for no m: neither do the looser labels
            break
        allowed = x[None, :, :] <= caps[:, None, None]
        V = np.einsum("ma,mab->mb", V, transition(n, remaining)[None, :, :] * allowed)
        remaining -= 1
    return V


def dense_potential(n: int, k: int, p_right: float, gaps) -> float:
    """``phi_n``: 1 minus the probability that the right label beats every wrong one."""
    if n == 0:
        return 1.0 if min(gaps) <= 0 else 0.0
    p_m = np.array([binomial(n, m, p_right) for m in range(n + 1)])
    win = float(np.dot(p_m, capped_votes(n, k, gaps).sum(axis=1)))
    return min(1.0, max(0.0, 1.0 - win))


def max_gap_pmf(k: int, gamma: float, p_right: float, n: int) -> float:
    """``max_c P(X_r - X_l = c)`` after ``n`` votes: ``t`` votes land on ``{r, l}``, ``j`` of
    them on ``r``, the gap is ``2 j - t``."""
    if n == 0:
        return 1.0
    p_other = (1.0 - gamma) / k
    both = p_right + p_other
    rho = p_right / both
    pmf = np.zeros(2 * n + 1)
    for t in range(n + 1):
        p_t = binomial(n, t, both) if both < 1 else float(t == n)
        for j in range(t + 1):
            pmf[2 * j - t + n] += p_t * binomial(t, j, rho)
    return float(pmf.max())


def capped_rows(K: int, caps_off, mr, Tr, p_r) -> list:
    """``P(m) Q(m)`` for the rows ``mr`` of the banded DP (see
    ``river_boost.engine.laws.banded_potential``)."""
    DROP = laws.DROP
    lam = float(Tr.mean()) / K
    pi = laws.poisson_pmf_range(lam, int(Tr.max()))
    kept = np.flatnonzero(pi > DROP)
    x_lo, x_hi = int(kept[0]), int(kept[-1])
    kernel = pi[x_lo : x_hi + 1]
    den = laws.poisson_pmf_at(K * lam, Tr)
    out = []

    def close(U, y0, used, lo, hi):  # rows lo..hi-1 with `used` labels placed
        if hi <= lo:
            return
        y = y0 + np.arange(U.shape[1])
        free = Tr[lo:hi, None] - y[None, :]  # votes the other labels take
        if used == K:
            rest = (free == 0).astype(float)
        else:
            top = int(free.max())
            if top < 0:
                rest = np.zeros(free.shape)
            else:
                pmf = np.append(laws.poisson_pmf_range((K - used) * lam, top), 0.0)
                rest = pmf[np.where(free >= 0, free, top + 1)]
        num = (U[: hi - lo] * rest).sum(axis=1)
        out.extend((p_r[lo:hi] * np.minimum(num / den[lo:hi], 1.0)).tolist())

    R = len(mr)
    U = np.ones((R, 1))  # U[r, j]: P(the labels so far hold y0 + j votes, within caps)
    y0 = 0
    used = 0
    for off in caps_off.tolist():
        caps = mr[:R] + off
        live = int(np.searchsorted(caps, x_hi))  # rows whose cap cuts the kernel
        close(U[live:], y0, used, live, R)
        R, U, caps = live, U[:live], caps[:live]
        if R == 0:
            return out
        width = U.shape[1]
        new = np.zeros((R, width + len(kernel) - 1))
        for r, c in enumerate(caps.tolist()):  # the kernel cut at the row's cap
            cut = max(0, min(len(kernel), c - x_lo + 1))
            if cut:
                new[r, : width + cut - 1] = np.convolve(U[r], kernel[:cut])
        alive = np.flatnonzero(new.max(axis=0) > DROP)
        if alive.size == 0:
            out.extend([0.0] * R)
            return out
        U = new[:, alive[0] : alive[-1] + 1]
        y0 += x_lo + int(alive[0])
        used += 1
    close(U, y0, used, 0, R)
    return out


def poisson_potential(pot, n: int, gaps) -> float:
    """``phi_n`` of ``pot`` (a ``MulticlassZeroOnePotential``) by the banded DP, the rows by
    :func:`capped_rows`, the decided cases and ``P(m)`` as
    ``river_boost.engine.laws.banded_potential`` has them."""
    K = pot.n_classes - 1
    upper, lower = _costs.MBBMCosts(pot, 1).gap_tail(pot, n)
    if upper[min(2 * n + 1, max(0, n + 1 - gaps[0]))] < laws.DECIDED:
        return 1.0
    if math.fsum(lower[min(2 * n, -g + n)] for g in gaps if -g >= -n) < laws.DECIDED:
        return 0.0
    caps_off = np.asarray(gaps, dtype=np.int64) - 1
    m = np.arange(n + 1)
    T = n - m
    p_m = laws.binomial_pmf_vector(n, pot.p_right)
    bind = m + caps_off[0] < T
    terms = p_m[~bind].tolist()
    rows = np.flatnonzero(bind & (p_m > laws.DROP))
    if rows.size:
        terms += capped_rows(K, caps_off, m[rows], T[rows], p_m[rows])
    return min(1.0, max(0.0, 1.0 - math.fsum(terms)))


def difference_law(n: int, p_l: float, p_r: float) -> tuple:
    """``(P, SP, SD)`` of ``D = X_r - X_l`` on ``d = -n..n`` (each vote ``-1`` with ``p_l``,
    ``+1`` with ``p_r``): the pmf and the suffix sums of ``P`` and ``d P`` (one extra 0)."""
    kernel = np.array([p_l, max(0.0, 1.0 - p_l - p_r), p_r])
    P = np.ones(1)
    for _ in range(n):
        P = np.convolve(P, kernel)
    d = np.arange(-n, n + 1)
    SP = np.append(np.cumsum(P[::-1])[::-1], 0.0)
    SD = np.append(np.cumsum((d * P)[::-1])[::-1], 0.0)
    return P, SP, SD
