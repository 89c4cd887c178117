"""The JSON API of a real ``prism serve`` child, over HTTP: tenancy on every route, errors,
limits, the main calls and streamed export/import.

The server is the session's ``prism_service`` (one child for every service module); each test
writes under its own ids.
"""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
from conftest import SERVICE_KEYS  # type: ignore[import-not-found]

ADMIN, ALICE, BOB, AGENT = list(SERVICE_KEYS)[:4]
#: the only routes with no scope to refuse: liveness, and making acknowledged writes durable
UNSCOPED = {("GET", "/v1/health"), ("POST", "/v1/flush")}


def client(svc: Any, key: str | None) -> httpx.Client:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return httpx.Client(base_url=svc.url, headers=headers, timeout=30)


def _dummy(schema: dict[str, Any], components: dict[str, Any], name: str) -> Any:
    if "$ref" in schema:
        return _dummy(components[schema["$ref"].rsplit("/", 1)[1]], components, name)
    if "anyOf" in schema:
        options = [s for s in schema["anyOf"] if s.get("type") != "null"]
        return _dummy(options[0], components, name)
    kind = schema.get("type")
    if kind == "object":
        props = schema.get("properties", {})
        return {k: _dummy(props[k], components, k) for k in schema.get("required", [])}
    if kind == "array":
        return [str(uuid.uuid4())] if "id" in name else ["x"]
    return {"integer": 1, "number": 0.5, "boolean": True}.get(str(kind), "hello")


_SPEC: dict[str, Any] = {}


def _spec(svc: Any) -> dict[str, Any]:
    if not _SPEC:
        _SPEC.update(httpx.get(svc.url + "/openapi.json").json())
    return _SPEC


def _resolve(schema: dict[str, Any], components: dict[str, Any]) -> dict[str, Any]:
    if "$ref" in schema:
        return _resolve(components[schema["$ref"].rsplit("/", 1)[1]], components)
    return schema


def _routes(svc: Any) -> list[tuple[str, str, dict[str, Any]]]:
    spec = _spec(svc)
    out = []
    for path, methods in spec["paths"].items():
        for method, op in methods.items():
            out.append((method.upper(), path, op))
    return out


_CLIENTS: dict[str | None, httpx.Client] = {}


def _request(
    svc: Any, key: str | None, method: str, path: str, op: dict[str, Any], scope: dict[str, str]
) -> httpx.Response:
    components = _spec(svc).get("components", {}).get("schemas", {})
    url = path.replace("{record_id}", str(uuid.uuid4())).replace("{task_id}", "trip")
    names = {p["name"] for p in op.get("parameters", []) if p["in"] == "query"}
    params = {k: v for k, v in scope.items() if k in names}
    body = op.get("requestBody", {}).get("content", {})
    c = _CLIENTS.get(key) or _CLIENTS.setdefault(key, client(svc, key))
    if "application/json" in body:
        schema = _resolve(body["application/json"]["schema"], components)
        data = _dummy(schema, components, "body")
        if "user_id" in schema.get("properties", {}):
            data.update(scope)
        return c.request(method, url, params=params, json=data)
    if "application/x-ndjson" in body:
        line = json.dumps({"id": str(uuid.uuid4()), "text": "planted", **scope})
        return c.request(method, url, params=params, content=line + "\n")
    return c.request(method, url, params=params)


def test_every_route_refuses_a_foreign_scope_and_a_missing_key(prism_service: Any) -> None:
    routes = _routes(prism_service)
    assert len(routes) >= 25, "the OpenAPI schema lists the API"
    checked = 0
    for method, path, op in routes:
        if (method, path) in UNSCOPED:
            continue
        r = _request(prism_service, None, method, path, op, {"user_id": "alice"})
        assert r.status_code == 401, (method, path, r.text)
        assert r.json()["error"] == "AuthenticationError"
        # alice's key, bob's scope (or, for admin-only routes, any call at all)
        r = _request(prism_service, ALICE, method, path, op, {"user_id": "bob"})
        assert r.status_code == 403, (method, path, r.status_code, r.text)
        assert r.json()["error"] == "PermissionDeniedError", (method, path)
        assert "bob" not in json.dumps(r.json().get("results", [])), "nothing of bob leaks"
        # an agent key outside its agent
        r = _request(prism_service, AGENT, method, path, op, {"agent_id": "someone-else"})
        assert r.status_code == 403, (method, path, r.status_code, r.text)
        checked += 1
    assert checked >= 25
    with client(prism_service, BOB) as c:  # and nothing was written to bob by the attempts
        assert c.get("/v1/count", params={"user_id": "bob"}).json()["count"] == 0


def test_a_tenant_adds_finds_recalls_edits_and_deletes_its_memories(prism_service: Any) -> None:
    with client(prism_service, ALICE) as c:
        r = c.post(
            "/v1/memories",
            json={
                "text": "I prefer window seats on long flights",
                "user_id": "alice",
                "kind": "preference",
            },
        )
        assert r.status_code == 200, r.text
        rec = r.json()
        assert (
            rec["text"].startswith("I prefer window")
            and rec["kind"] == "preference"
            and rec["user_id"] == "alice"
        )
        rid = rec["id"]

        hits = c.post(
            "/v1/search", json={"query": "which seat do I like?", "user_id": "alice", "limit": 3}
        ).json()["results"]
        assert hits[0]["id"] == rid and 0 <= hits[0]["score"] <= 1 and hits[0]["routes"]

        ctx = c.post(
            "/v1/recall", json={"query": "which seat?", "user_id": "alice", "budget_tokens": 200}
        ).json()
        assert "window seats" in ctx["text"] and ctx["tokens"] <= 200
        item = next(i for i in ctx["items"] if i["id"] == rid)
        assert "found by" in item["why"] and item["relevance"] is not None
        assert {"intent", "candidates", "timings_ms"} <= set(ctx["trace"])

        r = c.patch(
            f"/v1/memories/{rid}", json={"user_id": "alice", "text": "I prefer aisle seats"}
        )
        assert r.json()["text"] == "I prefer aisle seats" and r.json()["id"] == rid
        page = c.get("/v1/memories", params={"user_id": "alice", "kind": "preference"}).json()
        assert rid in [m["id"] for m in page["results"]]

        assert c.delete(f"/v1/memories/{rid}", params={"user_id": "alice"}).json() == {
            "deleted": True
        }
        r = c.get(f"/v1/memories/{rid}", params={"user_id": "alice"})
        assert r.status_code == 404 and r.json()["error"] == "NotFoundError"


def test_errors_are_the_library_errors_as_json_without_a_traceback(prism_service: Any) -> None:
    with client(prism_service, ADMIN) as c:
        r = c.post("/v1/search", json={"user_id": "x"})  # no query
        assert r.status_code == 422 and r.json()["error"] == "ValidationError"
        assert "query" in r.json()["message"]
        r = c.post("/v1/memories", json={"text": "   ", "user_id": "x"})
        assert r.status_code == 422 and r.json()["error"] == "ValidationError"
        r = c.post("/v1/memories", json={"text": "hi"})  # no scope
        assert r.status_code == 422 and r.json()["error"] == "ScopeError"
        r = c.post("/v1/memories", json={"text": "hi", "user_id": "x", "colour": "red"})
        assert r.status_code == 422 and "colour" in r.json()["message"]
        r = c.get("/v1/nowhere")
        assert r.status_code == 404 and r.json()["error"] == "NotFoundError"
        for resp in (r,):
            assert "Traceback" not in resp.text
    with client(prism_service, "not-a-key-at-all") as c:
        r = c.get("/v1/memories", params={"user_id": "alice"})
        assert r.status_code == 401 and "unknown API key" in r.json()["message"]


def test_a_body_over_the_limit_is_refused_before_it_is_read(prism_service: Any) -> None:
    with client(prism_service, ALICE) as c:
        big = {"text": "x" * (5 * 1024 * 1024), "user_id": "alice"}
        r = c.post("/v1/memories", json=big)
        assert r.status_code == 413 and r.json()["error"] == "RequestLimitError"
        assert "--max-body-bytes" in r.json()["message"]

        def chunked() -> Iterator[bytes]:  # no Content-Length: counted as it arrives
            yield b'{"user_id": "alice", "text": "'
            for _ in range(80):
                yield b"y" * 65536
            yield b'"}'

        r = c.post("/v1/memories", content=chunked(), headers={"content-type": "application/json"})
        assert r.status_code == 413 and r.json()["error"] == "RequestLimitError"


def test_export_and_import_stream_and_an_import_cannot_write_another_tenant(
    prism_service: Any,
) -> None:
    user = f"exp-{uuid.uuid4().hex[:6]}"
    with client(prism_service, ADMIN) as c:
        for text in ("likes green tea", "lives in Lisbon", "works on compilers"):
            c.post("/v1/memories", json={"text": text, "user_id": user}).raise_for_status()
        r = c.get("/v1/export", params={"user_id": user})
        assert r.status_code == 200 and r.headers["x-prism-records"] == "3"
        lines = r.text.splitlines()
        assert len(lines) == 3 and all(json.loads(line)["user_id"] == user for line in lines)
        gone = c.delete("/v1/memories", params={"user_id": user, "purge": "false"})
        assert gone.json()["deleted"] == 3
        r = c.post(
            "/v1/import",
            content="\n".join(lines) + "\n",
            headers={"content-type": "application/x-ndjson"},
        )
        assert r.json() == {"imported": 3, "skipped": 0, "errors": []}
        assert c.get("/v1/count", params={"user_id": user}).json()["count"] == 3
    # alice may import her own records, never bob's: one foreign line refuses the whole import
    mine = json.dumps({"text": "alice imported this", "user_id": "alice"})
    theirs = json.dumps({"text": "planted in bob", "user_id": "bob"})
    with client(prism_service, ALICE) as c:
        r = c.post("/v1/import", content=f"{mine}\n{theirs}\n")
        assert r.status_code == 403
        found = c.post(
            "/v1/search", json={"query": "alice imported this", "user_id": "alice"}
        ).json()
        assert all(h["text"] != "alice imported this" for h in found["results"])
    with client(prism_service, BOB) as c:
        assert c.get("/v1/count", params={"user_id": "bob"}).json()["count"] == 0


def test_an_import_cannot_reach_another_tenant_by_a_line_break_or_a_record_id(
    prism_service: Any,
) -> None:
    victim = f"victim-{uuid.uuid4().hex[:6]}"  # a tenant of its own (the admin key reads it)
    secret = f"{victim}'s locker code"
    with client(prism_service, ADMIN) as d:
        rec = d.post("/v1/memories", json={"text": secret, "user_id": victim}).json()
    with client(prism_service, ALICE) as c:
        # a carriage return ends a line for the import, so the line after it is checked too
        mine = json.dumps({"text": "alice's own line", "user_id": "alice"})
        planted = json.dumps({"text": "planted by alice", "user_id": victim})
        r = c.post("/v1/import", content=f"{mine}\r{planted}\n")
        assert r.status_code == 403 and "line 2" in r.json()["message"]
        # the victim's record id in alice's scope would replace it (ids are shared points)
        line = json.dumps({"id": rec["id"], "text": "overwritten by alice", "user_id": "alice"})
        r = c.post("/v1/import", content=line + "\n")
        assert r.status_code == 422 and r.json()["error"] == "ImportDataError"
        assert "another scope" in r.json()["message"]
        assert "the request body: line 1" in r.json()["message"]  # no server path
    with client(prism_service, ADMIN) as d:
        got = d.get(f"/v1/memories/{rec['id']}", params={"user_id": victim})
        assert got.status_code == 200 and got.json()["text"] == secret
        listed = d.get("/v1/memories", params={"user_id": victim}).json()["results"]
        assert [r["text"] for r in listed] == [secret]


def test_the_server_refuses_to_listen_beyond_loopback_without_keys(tmp_path: Any) -> None:
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "prism_memory.cli",
            "serve",
            "--path",
            str(tmp_path / "s"),
            "--host",
            "0.0.0.0",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 2
    assert "without API keys" in r.stderr and "--api-keys" in r.stderr
    assert not (tmp_path / "s").exists(), "nothing was opened or created"


def test_every_inspector_page_and_form_refuses_a_foreign_scope(prism_service: Any) -> None:
    from prism_memory.server.inspector import COOKIE
    from prism_memory.server.inspector import router as pages

    checked = 0
    with httpx.Client(base_url=prism_service.url, cookies={COOKIE: ALICE}, timeout=30) as c:
        for route in pages.routes:
            path: str = route.path  # type: ignore[attr-defined]
            if path in ("/", "/login", "/logout"):
                continue
            url = path.replace("{record_id}", str(uuid.uuid4()))
            for method in route.methods:  # type: ignore[attr-defined]
                r = c.request(method, url, params={"user_id": "bob", "q": "x"})
                assert r.status_code == 403, (method, path, r.status_code)
                assert "may not use user_id &#39;bob&#39;" in r.text
                checked += 1
        # and without the cookie every page sends the visitor to the login form
        c.cookies.clear()
        r = c.get("/memories", params={"user_id": "alice"})
        assert r.status_code == 303 and r.headers["location"] == "/login"
    assert checked >= 8


def test_inspector_pages_cannot_be_framed_and_a_cross_site_form_is_refused(
    prism_service: Any,
) -> None:
    from prism_memory.server.inspector import COOKIE

    with client(prism_service, ALICE) as api:
        rid = api.post("/v1/memories", json={"text": "keep me as I am", "user_id": "alice"})
        rid = rid.json()["id"]
    with httpx.Client(base_url=prism_service.url, cookies={COOKIE: ALICE}, timeout=30) as c:
        for page in ("/login", "/memories?user_id=alice", f"/memories/{rid}?user_id=alice"):
            r = c.get(page)
            assert r.headers["x-frame-options"] == "DENY", page
            assert "frame-ancestors 'none'" in r.headers["content-security-policy"], page
        # a link cannot put its own words in the status line
        r = c.get("/memories", params={"user_id": "alice", "done": "Key expired: log in at evil"})
        assert r.status_code == 200 and "evil" not in r.text
        # a client that sends no Origin is judged by its Referer
        r = c.post(
            f"/memories/{rid}/edit?user_id=alice",
            data={"text": "changed from another site"},
            headers={"Referer": "http://evil.example/page"},
        )
        assert r.status_code == 403 and "cross-site form refused" in r.text
    with client(prism_service, ALICE) as api:
        got = api.get(f"/v1/memories/{rid}", params={"user_id": "alice"}).json()
        assert got["text"] == "keep me as I am"
