"""The specs: one module per family, each a set of pytest tests taking ``xp``."""

from pathlib import Path

DIRECTORY = str(Path(__file__).resolve().parent)
