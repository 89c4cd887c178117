"""Writing a bench's result files: ``<out>/<name>.json`` and ``.md``, then printing one of them.

Design: the benches that take ``--out``, ``--name`` and ``--json`` end the same way; this is
that ending, once.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["write_report"]


def write_report(
    out: str | Path, name: str, report: dict[str, Any], text: str, *, as_json: bool
) -> int:
    """Write ``report`` as ``<out>/<name>.json`` and ``text`` as ``<out>/<name>.md``, print the
    JSON (``as_json``) or the text, and return the command's exit status (0)."""
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.json").write_text(json.dumps(report, indent=2))
    (folder / f"{name}.md").write_text(text)
    print(json.dumps(report, indent=2) if as_json else text)
    return 0
