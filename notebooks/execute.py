"""Execute the notebooks and store their outputs, with nothing volatile in the files.

    python notebooks/execute.py                      # every notebook
    python notebooks/execute.py notebooks/NAME.ipynb  # some

Needs ``nbclient`` and ``ipykernel`` (the ``dev`` extra). Outputs (text and plots) are kept;
execution times are not recorded and the notebook metadata is reduced to the kernel and the
language name, so running a notebook again changes its file only where its outputs change.
``tests/docs/test_notebooks.py`` executes every notebook too, so they cannot drift from the library.
"""

from __future__ import annotations

import pathlib
import sys

import nbclient
import nbformat

HERE = pathlib.Path(__file__).resolve().parent


def execute(path: pathlib.Path) -> None:
    nb = nbformat.read(path, as_version=4)
    nbclient.NotebookClient(
        nb,
        timeout=1800,
        kernel_name="python3",
        record_timing=False,
        resources={"metadata": {"path": str(path.parent)}},
    ).execute()
    nb.metadata = {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    }
    for i, cell in enumerate(nb.cells):
        cell.id = f"cell-{i}"
        cell.metadata.pop("execution", None)
    nbformat.write(nb, path)


if __name__ == "__main__":
    paths = [pathlib.Path(p) for p in sys.argv[1:]] or sorted(HERE.glob("*.ipynb"))
    for path in paths:
        print(f"executing {path}", flush=True)
        execute(path)
