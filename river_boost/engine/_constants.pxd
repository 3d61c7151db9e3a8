# The input contract and the tasks' thresholds, defined once: the compiled modules cimport
# these, and river_boost.engine._constants gives them to Python (_contract, tasks).
#
# - MAX_SAMPLE_WEIGHT, MAX_ABS_FEATURE: what the boosters accept, checked before any state
#   changes; beyond these magnitudes the learners' statistics (squares of values, products of
#   weights) would overflow or drown every other example.
# - MIN_SAMPLE_WEIGHT: a positive sample weight below it counts as 0 (a no-op): Hoeffding
#   trees' running variances lose their precision when weights that far apart meet in a leaf.
# - MIN_SUPPORT: a label takes part in reading the weak learners' votes once this many learned
#   examples have it (relevant, for multi-label rows), as soon as two labels have that
#   support. River's naive-Bayes leaves give a class seen once every advantage (its Gaussians
#   are degenerate and skipped, so it pays no likelihood): one stray example of a new class
#   made the trees vote for it everywhere for hundreds of events (benchmarks/RESULTS.md).
# - COST_TIE: expected costs closer than this fraction of the largest cost in magnitude are a
#   tie, broken by the label order: the exact ties of the math (a learner with no opinion,
#   symmetric scores) would otherwise go to whichever label the last bits of a sum favour.

cdef extern from *:
    """
    #define RB_MAX_SAMPLE_WEIGHT 1e12
    #define RB_MIN_SAMPLE_WEIGHT 1e-12
    #define RB_MAX_ABS_FEATURE 1e12
    #define RB_MIN_SUPPORT 2
    #define RB_COST_TIE 1e-9
    """
    const double MAX_SAMPLE_WEIGHT "RB_MAX_SAMPLE_WEIGHT"
    const double MIN_SAMPLE_WEIGHT "RB_MIN_SAMPLE_WEIGHT"
    const double MAX_ABS_FEATURE "RB_MAX_ABS_FEATURE"
    const long MIN_SUPPORT "RB_MIN_SUPPORT"
    const double COST_TIE "RB_COST_TIE"
