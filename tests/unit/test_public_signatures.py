"""Every public method of ``Memory`` and ``RemoteMemory`` keeps the signature it had when the
facade stopped copying its parameter lists inward (issue #28): names, kinds, defaults,
annotations, return type and sync/async, against ``tests/fixtures/public_signatures.json``.

A deliberate change to the public API updates that file in the same commit."""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

import pytest

from prism_memory import Memory, RemoteMemory

SNAPSHOT = Path(__file__).parent.parent / "fixtures" / "public_signatures.json"


def _public(cls: type) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for name in sorted(dir(cls)):
        attr = inspect.getattr_static(cls, name)
        obj = getattr(cls, name)
        if name.startswith("_") or isinstance(attr, property) or not callable(obj):
            continue
        out[f"{cls.__name__}.{name}"] = {
            "signature": str(inspect.signature(obj)),
            "async": inspect.iscoroutinefunction(obj),
        }
    return out


@pytest.mark.parametrize("cls", [Memory, RemoteMemory], ids=lambda c: c.__name__)
def test_public_methods_keep_their_signatures(cls: type) -> None:
    expected = {
        k: v
        for k, v in json.loads(SNAPSHOT.read_text(encoding="utf-8")).items()
        if k.startswith(f"{cls.__name__}.")
    }
    actual = _public(cls)
    assert sorted(actual) == sorted(expected)
    changed = {k: (expected[k], actual[k]) for k in expected if expected[k] != actual[k]}
    assert not changed, changed
