"""``RemoteMemory`` sends each call as the service's route for it, built from ``Memory``'s own
signature: arguments bound by name with ``Memory``'s defaults, ids escaped in the path, a call
``Memory`` would refuse with ``TypeError`` refused the same way before anything is sent. A fake
transport (``httpx.MockTransport``) records the requests; no server runs."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from prism_memory import MemoryRecord, RemoteMemory

_RECORD = MemoryRecord(text="I prefer window seats", user_id="alice")


@pytest.fixture
def sent() -> Iterator[tuple[RemoteMemory, list[httpx.Request]]]:
    requests: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        body: dict[str, Any] = {"count": 1, "results": [], "deleted": True}
        if request.url.path.startswith("/v1/memories") and request.method != "DELETE":
            body = _RECORD.model_dump(mode="json", by_alias=True)
        return httpx.Response(200, json=body)

    m = RemoteMemory("http://prism.test")
    m._client = httpx.Client(base_url=m.url, transport=httpx.MockTransport(answer))
    yield m, requests
    m.close()


def _body(request: httpx.Request) -> Any:
    return json.loads(request.content)


def test_a_call_sends_memorys_arguments_by_name_with_its_defaults(
    sent: tuple[RemoteMemory, list[httpx.Request]],
) -> None:
    m, requests = sent
    m.add("I prefer window seats", user_id="alice", entities=("seat",))
    assert requests[-1].method == "POST" and requests[-1].url.path == "/v1/memories"
    assert _body(requests[-1]) == {
        "text": "I prefer window seats",
        "user_id": "alice",
        "kind": "fact",  # Memory.add's default, sent as the server reads it
        "layer": "semantic",
        "entities": ["seat"],
        "source": "user",
    }


def test_ids_are_one_escaped_path_segment_and_reads_go_in_the_query(
    sent: tuple[RemoteMemory, list[httpx.Request]],
) -> None:
    m, requests = sent
    m.get("a/b?c", user_id="alice")
    assert requests[-1].url.raw_path == b"/v1/memories/a%2Fb%3Fc?user_id=alice"
    m.delete("r1", user_id="alice")
    assert requests[-1].method == "DELETE"
    assert dict(requests[-1].url.params) == {"user_id": "alice", "purge": "false"}


def test_arguments_the_server_reads_in_another_form_are_encoded(
    sent: tuple[RemoteMemory, list[httpx.Request]],
) -> None:
    m, requests = sent
    m.touch([_RECORD, "r2"], user_id="alice")
    assert _body(requests[-1])["records"] == [_RECORD.id, "r2"]
    m.remember([{"role": "user", "content": "hi", "id": "m1"}], user_id="alice")
    assert _body(requests[-1])["messages"] == [{"role": "user", "content": "hi", "id": "m1"}]
    m.flush(timeout=5)  # only the in-process Memory waits for background steps
    assert requests[-1].url.path == "/v1/flush" and _body(requests[-1]) == {}


def test_history_without_a_memory_id_is_the_deprecated_transcript(
    sent: tuple[RemoteMemory, list[httpx.Request]],
) -> None:
    m, requests = sent
    with pytest.warns(DeprecationWarning, match="session_turns") as caught:
        m.history(user_id="alice", session_id="s1")
    assert caught[0].filename == __file__  # the warning points at the caller's line
    assert requests[-1].url.path == "/v1/session_turns"


def test_a_call_memory_would_refuse_sends_nothing(
    sent: tuple[RemoteMemory, list[httpx.Request]],
) -> None:
    m, requests = sent
    with pytest.raises(TypeError):
        m.add("text", user="alice")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        m.get()  # type: ignore[call-arg]
    assert requests == []
