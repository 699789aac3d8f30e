"""compat: a cross-backend compatibility harness for array frameworks.

Importing compat imports NumPy and nothing else heavy; each framework is
imported only when its adapter is first used.
"""

__version__ = "0.1.0"
