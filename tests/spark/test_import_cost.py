"""``import river_boost`` imports neither PySpark nor any part of pandas that River itself does
not: the spark extra costs nothing to those who do not use it. (Runs without PySpark too.)"""

import json
import subprocess
import sys

import pytest

IMPORTS = """
import json, sys
import river_boost
roots = {"river", "pandas", "pyspark"}
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in roots)))
"""

RIVER_ONLY = """
import importlib, json, sys
for name in json.loads(sys.argv[1]):
    importlib.import_module(name)
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] == "pandas")))
"""


def modules(code, *args):
    out = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)


def test_import_river_boost_loads_no_pyspark_and_only_rivers_pandas():
    loaded = modules(IMPORTS)
    assert not [m for m in loaded if m.split(".")[0] == "pyspark"]
    river = [m for m in loaded if m.split(".")[0] == "river"]
    pandas = {m for m in loaded if m.split(".")[0] == "pandas"}
    # the same River modules, without river_boost: whatever pandas they load is River's
    assert pandas <= set(modules(RIVER_ONLY, json.dumps(river)))


def test_the_comparison_can_fail():
    # a process that does import PySpark is seen doing so
    pytest.importorskip("pyspark", reason="PySpark is not installed (the spark extra)")
    loaded = modules(IMPORTS.replace("import river_boost\n", "import river_boost, pyspark.sql\n"))
    assert [m for m in loaded if m.split(".")[0] == "pyspark"]
