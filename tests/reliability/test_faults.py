"""Faults: an unreachable or hanging Qdrant server surfaces as StoreUnavailableError naming the
URL; a write that fails is not acknowledged and its retry is idempotent."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from prism_memory import (
    FakeEmbedder,
    Memory,
    PrismConfig,
    StoreConfig,
    StoreUnavailableError,
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture
def silent_server() -> Iterator[str]:
    """Accepts connections and never answers (a hung server)."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(16)
    conns: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        srv.settimeout(0.2)
        while not stop.is_set():
            try:
                conns.append(srv.accept()[0])
            except OSError:
                continue

    t = threading.Thread(target=accept, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{srv.getsockname()[1]}"
    stop.set()
    t.join()
    for c in conns:
        c.close()
    srv.close()


def test_refused_connection_names_the_url() -> None:
    url = f"http://127.0.0.1:{_free_port()}"
    with pytest.raises(StoreUnavailableError) as exc:
        Memory(url=url, embedder=FakeEmbedder())
    assert url in str(exc.value) or url.replace("http://", "") in str(exc.value)
    assert "Memory(path=" in str(exc.value)


def test_timeout_names_the_url(silent_server: str) -> None:
    cfg = PrismConfig(store=StoreConfig(timeout_s=1.0))
    with pytest.raises(StoreUnavailableError) as exc:
        Memory(url=silent_server, embedder=FakeEmbedder(), config=cfg)
    assert silent_server.replace("http://", "") in str(exc.value)


class _FlakyClient:
    """Wraps a qdrant client: upserts fail (connection refused) while ``down`` is set."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.down = False

    def upsert(self, *args: Any, **kwargs: Any) -> Any:
        if self.down:
            import httpx

            raise httpx.ConnectError("[Errno 111] Connection refused")
        return self._inner.upsert(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def test_failed_write_is_not_acknowledged_and_retry_is_idempotent() -> None:
    with Memory(location=":memory:", embedder=FakeEmbedder()) as m:
        flaky = _FlakyClient(m.store._client)  # type: ignore[attr-defined]
        m.store._client = flaky  # type: ignore[attr-defined]
        m.add("kept before the outage", user_id="u")
        flaky.down = True
        items = [f"batch item {i}" for i in range(10)]
        with pytest.raises(StoreUnavailableError):
            m.add_many(items, user_id="u")
        with pytest.raises(StoreUnavailableError):
            m.add("single write during the outage", user_id="u")
        assert m.count(user_id="u") == 1  # nothing of the failed writes landed
        flaky.down = False
        m.add_many(items, user_id="u")
        m.add_many(items, user_id="u")  # a second retry is an upsert
        assert m.count(user_id="u") == 11
