"""compat's cache on this machine: built plug-ins, JAX's compiled executables.

``~/.cache/compat`` unless ``COMPAT_CACHE_DIR`` names another place; everything in
it can be deleted at any time (it is built again when needed)."""

from __future__ import annotations

import os
from pathlib import Path


def directory(part: str) -> Path:
    """The cache folder of one kind of thing (``devices``, ``jax``)."""
    return Path(os.environ.get("COMPAT_CACHE_DIR", "~/.cache/compat")).expanduser() / part
