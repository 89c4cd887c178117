"""Shared fixtures. The real offline embedder is loaded once per test session.

The write funnel, checked at run time (``_write_funnel_guard``, autouse, whole session): every
mutating method of the store classes is wrapped so each call walks the caller frames
(``sys._getframe``, cheap) past the stores' own modules to the nearest caller; if that frame is
library code (a module of ``prism_memory``, ``langchain_prism``, ``llamaindex_prism``, by name)
other than the engine's, the call raises ``AssertionError`` naming ``file:line``. Tests and
benchmarks (``prism_bench``) may call a store directly on purpose (a baseline store, a fault planted under the
engine); library code may not, however it reached the store (alias, ``getattr``, a bound method
kept in a variable, a lambda, ``type(s).upsert(s, ...)``). Frames outside the repository
(stdlib, site-packages: a thread pool, ``functools``) are walked past, so the library frame
that handed the call on is the one judged. ``tests/unit/test_write_funnel.py`` also keeps the
static (AST) check, which sees code no test runs.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from prism_memory import FakeEmbedder, FastEmbedEmbedder, Memory
from prism_memory.stores import EdgeStore, QdrantStore
from prism_memory.stores.base import StoreBase

# No per-example deadline anywhere: a shared CI runner or a loaded workstation can stall any
# example past Hypothesis's default 200 ms, which says nothing about the code under test.
settings.register_profile("prism", deadline=None)
settings.load_profile("prism")


@pytest.fixture(scope="session")
def real_embedder() -> FastEmbedEmbedder:
    """The packaged offline all-MiniLM-L6-v2 (int8), shared by every integration test."""
    return FastEmbedEmbedder()


@pytest.fixture
def fake_embedder() -> FakeEmbedder:
    return FakeEmbedder(dim=64)


@pytest.fixture
def edge_memory(tmp_path: Path, real_embedder: FastEmbedEmbedder) -> Iterator[Memory]:
    """A real embedded (Qdrant Edge) memory with the real embedding model."""
    m = Memory(path=tmp_path / "store", embedder=real_embedder)
    yield m
    m.close()


@pytest.fixture
def local_memory(real_embedder: FastEmbedEmbedder) -> Iterator[Memory]:
    """qdrant-client local mode (":memory:") with the real embedding model."""
    m = Memory(location=":memory:", embedder=real_embedder)
    yield m
    m.close()


@pytest.fixture
def fake_memory(tmp_path: Path, fake_embedder: FakeEmbedder) -> Iterator[Memory]:
    """Embedded store with the hashing fake embedder (fast unit-level tests)."""
    m = Memory(path=tmp_path / "store", embedder=fake_embedder)
    yield m
    m.close()


@pytest.fixture(params=["edge", "local"])
def any_memory(
    request: pytest.FixtureRequest, tmp_path: Path, real_embedder: FastEmbedEmbedder
) -> Iterator[Memory]:
    """The same test on both engines (congruence)."""
    if request.param == "edge":
        m = Memory(path=tmp_path / "store", embedder=real_embedder)
    else:
        m = Memory(location=":memory:", embedder=real_embedder)
    yield m
    m.close()


#: the store methods that change data (the ``MemoryStore`` protocol's and the purge journal's)
STORE_MUTATORS = (
    "upsert",
    "set_payload",
    "delete",
    "delete_by_filter",
    "purge",
    "begin_purge",
    "cancel_purge",
)
_REPO = Path(__file__).resolve().parents[1]
_VENV = str(_REPO / ".venv") + os.sep
_LIBRARY = ("prism_memory", "langchain_prism", "llamaindex_prism")
#: (module, file) -> "store" (walk past), "funnel" / "caller" (allowed), "library" (refused),
#: "outside" (stdlib, site-packages: walk past)
_KINDS: dict[tuple[str, str], str] = {}


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _kind(module: str, filename: str) -> str:
    """Judge a frame by its module's name (wherever the package is installed, editable or
    not), then tests and benchmarks by their place in the repository."""
    kind = _KINDS.get((module, filename))
    if kind is None:
        path = os.path.realpath(filename) if os.path.isabs(filename) else filename
        if _within(module, "prism_memory.stores"):
            kind = "store"
        elif _within(module, "prism_memory.engine"):
            kind = "funnel"
        elif any(_within(module, package) for package in _LIBRARY):
            kind = "library"
        elif _within(module, "prism_bench"):
            kind = "caller"  # the benches measure a store directly (a baseline, a bulk load)
        elif path.startswith(str(_REPO) + os.sep) and "site-packages" not in path:
            kind = "outside" if path.startswith(_VENV) else "caller"  # tests/: on purpose
        else:
            kind = "outside"
        _KINDS[(module, filename)] = kind
    return kind


def check_write_funnel(depth: int = 1) -> None:
    """Raise ``AssertionError`` if the nearest caller (past the stores' modules and code outside
    the repository) of the frame ``depth`` levels up is library code other than the engine."""
    frame = sys._getframe(depth + 1)
    while frame is not None:
        code = frame.f_code
        kind = _kind(frame.f_globals.get("__name__") or "", code.co_filename)
        if kind in ("funnel", "caller"):
            return
        if kind == "library":
            path = Path(code.co_filename)
            where = path.relative_to(_REPO) if path.is_relative_to(_REPO) else path
            raise AssertionError(
                f"{where.as_posix()}:{frame.f_lineno} changes a store directly: call the "
                "Engine's write methods (write_records, update, rewrite, delete, delete_where, "
                "purge) instead"
            )
        frame = frame.f_back  # type: ignore[assignment]


def _guarded(method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        check_write_funnel()
        return method(*args, **kwargs)

    guarded.__prism_funnel_guard__ = True  # type: ignore[attr-defined]
    return guarded


@pytest.fixture(scope="session", autouse=True)
def _write_funnel_guard() -> Iterator[None]:
    """Wrap every store class's mutating methods with the run-time funnel check."""
    with pytest.MonkeyPatch.context() as mp:
        for cls in (EdgeStore, QdrantStore, StoreBase):
            for name in STORE_MUTATORS:
                method = getattr(cls, name, None)
                if callable(method) and not getattr(method, "__prism_funnel_guard__", False):
                    mp.setattr(cls, name, _guarded(method))
        for cls in (EdgeStore, QdrantStore):  # a renamed method must not escape the check
            for name in ("upsert", "set_payload", "delete", "delete_by_filter", "purge"):
                assert getattr(getattr(cls, name), "__prism_funnel_guard__", False), (cls, name)
        yield
