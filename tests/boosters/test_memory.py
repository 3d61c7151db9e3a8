"""River's memory measures (``_raw_memory_usage``, ``_memory_usage``, the ``show_memory`` of
``evaluate.progressive_val_score``) count the compiled trees, which live in C memory that
Python's object walk cannot see: ``HoeffdingForest.__sizeof__`` adds it."""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import pickle
import sys

import pytest
from river import tree
from river.datasets import synth

import river_boost as rb
from river_boost import forest


def test_river_memory_measure_counts_the_compiled_trees():
    booster = rb.AdaBoostOL(seed=1)
    stream = list(synth.SEA(seed=42).take(5000))
    for x, y in stream[:500]:
        booster.learn_one(x, y)
    early = booster._raw_memory_usage
    for x, y in stream[500:]:
        booster.learn_one(x, y)
    trees = booster.pool.learners
    assert type(trees) is forest.HoeffdingForest
    c_bytes = trees._allocated_bytes()
    assert sys.getsizeof(trees) >= c_bytes > 0
    assert booster._raw_memory_usage - early >= trees._allocated_bytes() // 2  # it grew
    # The pickle is a compact encoding of the same trees (floats in 9 bytes, no capacity
    # slack or caches): the measure cannot be below it. It used to stay at about 28 KiB
    # whatever the stream's length, below the pickle from a few thousand examples on.
    assert booster._raw_memory_usage >= len(pickle.dumps(booster))


def _malloc_in_use():
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    if not hasattr(libc, "mallinfo2"):
        pytest.skip("needs glibc's mallinfo2")

    class MallInfo2(ctypes.Structure):
        _fields_ = [
            (name, ctypes.c_size_t)
            for name in (
                "arena",
                "ordblks",
                "smblks",
                "hblks",
                "hblkhd",
                "usmblks",
                "fsmblks",
                "uordblks",
                "fordblks",
                "keepcost",
            )
        ]

    libc.mallinfo2.restype = MallInfo2
    info = libc.mallinfo2()
    return info.uordblks + info.hblkhd


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc counters")
def test_the_forests_measure_matches_what_malloc_handed_out():
    """The C allocator's own count of the bytes the trees took, an independent measure."""
    stream = list(synth.SEA(seed=42).take(20_000))
    trees = forest.HoeffdingForest(
        [tree.HoeffdingTreeClassifier(grace_period=g) for g in (50, 80, 100, 150, 200)]
    )
    gc.collect()
    before = _malloc_in_use()
    for x, y in stream:
        for i in range(trees.n_models):
            trees.learn_one(i, x, y)
    gc.collect()
    allocated = _malloc_in_use() - before
    assert sum(trees.n_leaves) > 20
    assert allocated / 2 <= trees._allocated_bytes() <= 2 * allocated
