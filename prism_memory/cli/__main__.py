"""``python -m prism_memory.cli``: the ``prism`` command.

Design: the entry point only; everything is in :func:`prism_memory.cli.main`.
"""

from __future__ import annotations

import sys

from prism_memory.cli import main

if __name__ == "__main__":
    sys.exit(main())
