"""``python -m compat COMMAND``: the commands live in compat.cli, one module each."""

import sys

from compat.cli import main

if __name__ == "__main__":
    sys.exit(main())
