"""Tests of the screen's training code: ``research/screen`` is put on ``sys.path`` so that they
(and ``train_transformer``) can ``import train_screen``, as the scripts do when run from the
repository root. The core is the installed ``prism_memory``."""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

SCREEN = Path(__file__).resolve().parents[1]
if str(SCREEN) not in sys.path:
    sys.path.insert(0, str(SCREEN))
