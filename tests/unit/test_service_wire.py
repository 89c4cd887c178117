"""The service's JSON forms round-trip to the very objects ``Memory`` returns and raises."""

from __future__ import annotations

from prism_memory import FakeEmbedder, Memory, errors, wire


def test_records_hits_contexts_and_results_survive_the_wire() -> None:
    with Memory(location=":memory:", embedder=FakeEmbedder()) as m:
        rec = m.add("I prefer window seats", user_id="a", kind="preference", metadata={"k": [1]})
        assert wire.record_from_json(wire.record_to_json(rec)) == rec
        hit = m.search("window seats", user_id="a")[0]
        back = wire.hit_from_json(wire.hit_to_json(hit))
        assert (back.record, back.score, back.routes, back.rank_score) == (
            hit.record,
            hit.score,
            hit.routes,
            hit.rank_score,
        )
        res = m.remember(
            [{"role": "user", "content": "My budget is 500", "id": "m1"}],
            user_id="a",
            session_id="s",
        )
        again = wire.remember_from_json(wire.remember_to_json(res))
        assert again.ids == res.ids and [c.reason for c in again.added] == [
            c.reason for c in res.added
        ]
        ctx = m.recall("seat and budget", user_id="a", session_id="s", budget_tokens=200)
        data = wire.context_to_json(ctx)
        assert all(item["why"] for item in data["items"])
        back_ctx = wire.context_from_json(data)
        assert (back_ctx.text, back_ctx.tokens, back_ctx.ids) == (ctx.text, ctx.tokens, ctx.ids)
        assert [i.shown for i in back_ctx.items] == [i.shown for i in ctx.items]
        assert back_ctx.trace.cut() == ctx.trace.cut()
        page = m.list(user_id="a", limit=1)
        back_page = wire.page_from_json(wire.page_to_json(page))
        assert list(back_page) == list(page) and back_page.next_cursor == page.next_cursor


def test_errors_keep_their_class_message_and_status() -> None:
    cases = [
        (errors.NotFoundError("no memory 'x'"), 404),
        (errors.ScopeError("no scope given"), 422),
        (errors.PermissionDeniedError("may not use user_id 'b'"), 403),
        (errors.StoreLockedError("locked"), 503),
    ]
    for exc, status in cases:
        body = wire.error_to_json(exc)
        assert body["status"] == status == wire.status_of(exc)
        again = wire.error_from_json(status, body)
        assert type(again) is type(exc) and str(again) == str(exc)
    q = wire.error_from_json(
        422, wire.error_to_json(errors.QuarantinedError("kept", record_id="r1", reason="why"))
    )
    assert isinstance(q, errors.QuarantinedError) and (q.record_id, q.reason) == ("r1", "why")
    hidden = wire.error_to_json(RuntimeError("secret path /etc/x"))
    assert hidden["error"] == "ServiceError" and "/etc/x" not in hidden["message"]
    assert isinstance(wire.error_from_json(502, "<html>bad gateway</html>"), errors.ServiceError)
