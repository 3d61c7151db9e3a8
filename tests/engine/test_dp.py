"""The compiled dynamic programs of the exact potentials (``river_boost.engine._dp``) against their
readable NumPy oracles (``tests/oracles/dp_oracle.py``): within 1e-12 relative (1e-15 absolute near
0), on many random gap vectors, for every number of votes left up to 40 (the dense DP), a
range above (the banded DP) and 2 to 30 classes; and RankingPairPotential's difference laws."""

from __future__ import annotations

import random

import numpy as np
import pytest

from river_boost import potentials
from river_boost.engine import _costs, _dp, laws
from river_boost.potentials import MulticlassZeroOnePotential, RankingPairPotential

from ..oracles import dp_oracle

RTOL, ATOL = 1e-12, 1e-15


def banded(pot, n: int, gaps: tuple) -> float:
    """The potential by the banded DP (the engine's above ``TENSOR_MAX_N``), uncached."""
    tail = _costs.MBBMCosts(pot, 1).gap_tail(pot, n)
    return laws.banded_potential(n, pot.n_classes, pot.p_right, gaps, tail)


def close(got, want) -> bool:
    return bool(np.allclose(got, want, rtol=RTOL, atol=ATOL))


def random_gaps(rng, k, n):
    """``k - 1`` sorted gaps that bind for every ``m``, for some, or for none."""
    spread = rng.choice([1, 3, max(1, int(n**0.5)), n + 2])
    return tuple(sorted(rng.randint(-spread, spread) for _ in range(k - 1)))


def test_the_dense_dp_is_there_up_to_40_votes_left():
    assert potentials.TENSOR_MAX_N == _dp.TENSOR_MAX_N == 40


@pytest.mark.parametrize("k", [2, 3, 4, 5, 7, 10, 16, 23, 30])
def test_the_dense_dp_is_the_oracles(k):
    rng = random.Random(k)
    for n in range(potentials.TENSOR_MAX_N + 1):
        for _ in range(4 if k < 10 else 2):
            gamma = rng.choice([0.01, 0.05, 0.1, 0.3, 0.7])
            p_right = (1.0 - gamma) / k + gamma
            gaps = random_gaps(rng, k, n)
            got = _dp.potential(n, k, p_right, gaps)
            want = dp_oracle.dense_potential(n, k, p_right, gaps)
            assert close(got, want), (n, k, gamma, gaps, got, want)
            pot = MulticlassZeroOnePotential(k, gamma)
            assert pot.value_from_gaps(n, gaps) == got  # the potential's is the compiled one


@pytest.mark.parametrize("k", [2, 3, 5, 7, 10, 30])
def test_the_weight_bound_is_the_oracles(k):
    for gamma in (0.02, 0.1, 0.4):
        pot = MulticlassZeroOnePotential(k, gamma)
        for n in range(potentials.TENSOR_MAX_N + 1):
            want = dp_oracle.max_gap_pmf(k, gamma, pot.p_right, n)
            costs = _costs.MBBMCosts(pot, 1)
            assert close(costs.max_gap_pmf(pot, n), want), (n, gamma)
            assert pot.max_weight(n) == (k - 1) * min(1.0, k * costs.max_gap_pmf(pot, n))


def _banded_cases():
    """Above 40 votes left: 2 to 30 classes, gaps that bind for few or many rows, all labels
    tied, far behind or far ahead, up to 600 votes."""
    rng = random.Random(41)
    cases = [
        (2, 0.1, 41, (0,)),
        (2, 0.3, 300, (5,)),
        (7, 0.1, 60, (0,) * 6),
        (7, 0.01, 99, (-3, 0, 0, 1, 2, 9)),
        (30, 0.1, 45, (1,) * 29),
        (26, 0.05, 600, (0,) * 25),
    ]
    for _ in range(80):
        k = rng.choice((2, 3, 4, 5, 7, 10, 17, 26, 30))
        n = rng.choice((41, 42, 43, 50, 64, 77, 99, 150, 256, 400))
        spread = rng.randint(1, 3 * int(n**0.5))
        gaps = tuple(sorted(rng.randint(-spread, spread) for _ in range(k - 1)))
        cases.append((k, rng.choice((0.01, 0.05, 0.1, 0.3, 0.6)), n, gaps))
    return cases


def test_the_banded_dp_is_the_oracles():
    rows = []
    real = _dp.capped_rows

    def checked(K, caps_off, mr, Tr, p_r, *laws):
        got = real(K, caps_off, mr, Tr, p_r, *laws)
        want = dp_oracle.capped_rows(K, caps_off, mr, Tr, p_r)
        assert len(got) == len(want) and close(got, want)
        rows.append(len(got))
        return got

    for k, gamma, n, gaps in _banded_cases():
        pot = MulticlassZeroOnePotential(k, gamma)
        got = pot.value_from_gaps(n, gaps)
        want = dp_oracle.poisson_potential(pot, n, gaps)
        assert close(got, want), (k, gamma, n, gaps, got, want)
        _dp.capped_rows = checked
        try:
            assert banded(pot, n, gaps) == got
        finally:
            _dp.capped_rows = real
    assert len(rows) > 40 and max(rows) > 100  # most cases ran the DP, some with many rows


def test_the_banded_dp_refuses_what_it_cannot_read():
    readers = (laws.poisson_pmf_range, laws.poisson_pmf_at, laws.DROP)
    with pytest.raises(ValueError, match="matching"):
        _dp.capped_rows(
            3, np.zeros(2, dtype=np.int64), np.arange(3), np.arange(3), np.ones(3), *readers
        )
    with pytest.raises(ValueError, match="float64"):
        _dp.capped_rows(
            1,
            np.zeros(1, dtype=np.int64),
            np.arange(3),
            np.arange(3),
            np.ones(3, dtype=np.float32),
            *readers,
        )


class _Int32Default:
    """NumPy as NumPy 1 is on Windows, where its default int (``arange``'s) has 4 bytes."""

    def __getattr__(self, name):
        return getattr(np, name)

    @staticmethod
    def arange(*args, dtype=None, **kwargs):
        return np.arange(*args, dtype=np.int32 if dtype is None else dtype, **kwargs)


def test_the_banded_dp_does_not_rely_on_numpys_default_int(monkeypatch):
    calls = []
    real = _dp.capped_rows
    monkeypatch.setattr(_dp, "capped_rows", lambda *args: calls.append(1) or real(*args))
    k, gamma, n, gaps = 7, 0.1, 60, (0,) * 6
    pot = MulticlassZeroOnePotential(k, gamma)
    want = banded(pot, n, gaps)
    monkeypatch.setattr(laws, "np", _Int32Default())
    assert banded(pot, n, gaps) == want
    assert len(calls) == 2  # the DP ran, both times


def test_the_dense_dp_refuses_a_wrong_number_of_gaps():
    with pytest.raises(ValueError, match="gaps"):
        _dp.potential(3, 4, 0.5, (0, 0, 0, 0))
    with pytest.raises(ValueError, match="gaps"):
        MulticlassZeroOnePotential(4, 0.1).value_from_gaps(3, (0, 0))


@pytest.mark.parametrize("k", [2, 3, 5, 14, 30])
def test_the_difference_laws_are_the_oracles(k):
    """For every number of relevant labels and votes left up to 60, and a few above."""
    for gamma in (0.05, 0.3):
        pot = RankingPairPotential(gamma)
        for nr in range(1, k + 1):
            for n in list(range(61)) + [99, 250]:
                p_l, p_r = pot.baseline(nr, k)
                P, SP, SD = pot.difference_law(n, nr, k)
                want = dp_oracle.difference_law(n, p_l, p_r)
                assert P.shape == (2 * n + 1,) and SP.shape == SD.shape == (2 * n + 2,)
                assert close(P, want[0]) and close(SP, want[1]), (n, nr)
                # d P's suffix sums cancel: their error is relative to the sums of |d| P
                scale = np.append(
                    np.cumsum((np.abs(np.arange(-n, n + 1)) * want[0])[::-1])[::-1], 0
                )
                assert np.all(np.abs(SD - want[2]) <= RTOL * scale + ATOL), (n, nr)
    with pytest.raises(ValueError, match="n >= 0"):
        _dp.difference_law(-1, 0.3, 0.2)
