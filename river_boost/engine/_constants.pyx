# cython: language_level=3
"""The input contract and the tasks' thresholds (``_constants.pxd`` defines and explains each),
for Python: the input contract (``_contract.py``) and :mod:`river_boost.tasks` import them
from here."""

# (the .pxd's names are this module's C constants: the Python names are set through globals())
globals().update(
    MAX_SAMPLE_WEIGHT=MAX_SAMPLE_WEIGHT,
    MIN_SAMPLE_WEIGHT=MIN_SAMPLE_WEIGHT,
    MAX_ABS_FEATURE=MAX_ABS_FEATURE,
    MIN_SUPPORT=MIN_SUPPORT,
    COST_TIE=COST_TIE,
)
