"""The package's version (read by ``pyproject.toml`` and stamped on pickles)."""

__version__ = "0.2.0"
