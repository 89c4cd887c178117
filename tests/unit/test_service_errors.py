"""How the service answers what goes wrong inside it (the app in-process, over a stand-in
``Memory`` whose calls fail or answer oddly): a JSON error, never a dropped connection."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.testclient import TestClient

from prism_memory.server import create_app


class _Odd:
    """Stands in for ``Memory``: ``count`` answers an integer past 64 bits, ``stats`` fails."""

    def count(self, **kwargs: Any) -> int:
        return 10**30

    def stats(self, **kwargs: Any) -> dict[str, Any]:
        raise RuntimeError("disk on fire")


@pytest.fixture(scope="module")
def client() -> TestClient:
    # raise_server_exceptions: an error the app lets escape fails the test, as a server that
    # drops the connection fails the client's next call
    app = create_app(_Odd(), mcp=False)  # type: ignore[arg-type]
    return TestClient(app, base_url="http://127.0.0.1:8765", raise_server_exceptions=True)


def test_an_unexpected_error_is_a_json_500_without_its_traceback(client: TestClient) -> None:
    r = client.get("/v1/stats", params={"user_id": "alice"})
    assert r.status_code == 500 and r.json()["error"] == "ServiceError"
    assert "disk on fire" not in r.text and "Traceback" not in r.text


def test_an_integer_past_64_bits_is_answered(client: TestClient) -> None:
    r = client.get("/v1/count", params={"user_id": "alice"})
    assert r.status_code == 200 and r.json() == {"count": 10**30}


def test_a_body_nested_too_deeply_is_a_validation_error(client: TestClient) -> None:
    deep = b'{"text": "x", "user_id": "alice", "metadata": ' + b"[" * 5000 + b"]" * 5000 + b"}"
    r = client.post("/v1/memories", content=deep, headers={"content-type": "application/json"})
    assert r.status_code == 422 and r.json()["error"] == "ValidationError"
    assert "JSON" in r.json()["message"]


def test_open_mode_answers_only_requests_addressed_to_a_loopback_host(client: TestClient) -> None:
    # DNS rebinding: a web page whose name resolves to 127.0.0.1 sends its own Host
    for host in ("evil.example", "evil.example:8765", "192.168.1.5:8765"):
        r = client.get("/v1/count", params={"user_id": "alice"}, headers={"host": host})
        assert r.status_code == 403 and r.json()["error"] == "PermissionDeniedError", host
    for host in ("localhost:8765", "127.0.0.1", "[::1]:8765"):
        r = client.get("/v1/count", params={"user_id": "alice"}, headers={"host": host})
        assert r.status_code == 200, host
