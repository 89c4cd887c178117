"""One write funnel: nothing outside ``engine/`` and ``stores/`` changes a store.

Every mutation (upsert, payload change, delete, purge) goes through the ``Engine``'s write
methods, which validate, announce the write event and so drop the caches; a call site that
reached the store itself could forget the event (a stale recall cache) or the scope check.

Two checks. At run time, ``tests/conftest.py`` wraps the stores' mutating methods for the whole
suite and fails any call whose nearest caller outside ``stores/`` is library code other than
``engine/`` (it cannot be dodged by aliasing; tests may call a store directly, library code
may not). Statically, this module walks the AST of every module of ``prism_memory``,
``langchain_prism`` and ``llamaindex_prism`` (so code no test runs is covered too) and fails on
any use (call, reference, ``getattr`` with a constant name) of a mutating method name on ANY
receiver outside ``engine/`` and ``stores/``, except the receivers of ``ALLOWED_RECEIVERS``
(each commented: the engine, the ``Memory`` facade, the public ``RecordStore``...), and even
those when they are bound to a store (``memory = engine.store``).
"""

from __future__ import annotations

import ast
from pathlib import Path

from prism_memory import Memory
from prism_memory.engine import Engine
from prism_memory.records import Scope
from prism_memory.stores import MemoryStore

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("prism_memory", "langchain_prism", "llamaindex_prism")
#: where the store may be mutated: the engine (the funnel) and the stores themselves (the
#: benches, ``benchmarks/prism_bench``, are outside the packages: they measure the stores
#: directly, a baseline store with pre-computed vectors, as tests do)
ALLOWED = ("prism_memory/engine/", "prism_memory/stores/")
#: what ``MemoryStore`` (and the embedded store's purge journal) change
MUTATORS = frozenset(
    {"upsert", "set_payload", "delete", "delete_by_filter", "purge", "begin_purge", "cancel_purge"}
)
STORE_NAMES = frozenset({"store", "_store"})
#: receivers (``ast.unparse`` of the expression before ``.delete`` etc.) whose mutating methods
#: are not a store's; anything else is flagged, so a new one must be added here with its reason
ALLOWED_RECEIVERS = {
    # the funnel itself: Engine.delete / purge / begin_purge / cancel_purge
    "engine": "Engine",
    "self.engine": "Engine",
    "self._engine": "Engine",
    # the public facade: Memory.delete / purge validate and go through the engine
    "m": "Memory",
    "memory": "Memory",
    "self.memory": "Memory",
    "_memory(request)": "Memory (the server's, per request)",
    "Memory": "Memory (remote.py mirrors its methods)",
    # Memory's deletion helper (_delete_api), which calls the engine's write methods
    "self._deletes": "Deletes",
    # the public RecordStore (record_store.py): its delete calls Engine.delete
    "self.memory.record_store": "RecordStore",
    "ctx.memory.record_store": "RecordStore (langchain_prism/_store_puts.py)",
    "records": "RecordStore (langchain_prism/store.py's local)",
    # the CLI's parsed arguments (``args.purge``: the --purge flag)
    "args": "argparse.Namespace",
    # FastAPI's HTTP DELETE route decorator, not a store
    "router": "fastapi.APIRouter",
}
STORE_TYPES = frozenset({"MemoryStore", "EdgeStore", "QdrantStore", "StoreBase"})


def _annotation_names(node: ast.expr | None) -> set[str]:
    if node is None:
        return set()
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} | {
        n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)
    }


def _is_store(node: ast.expr, locals_: set[str]) -> bool:
    """Whether ``node`` evaluates to a store (by name, attribute or a tracked local)."""
    if isinstance(node, ast.Attribute):
        return node.attr in STORE_NAMES
    if isinstance(node, ast.Name):
        return node.id in STORE_NAMES or node.id in locals_
    if isinstance(node, ast.Call):  # EdgeStore(...), QdrantStore(...)
        return bool(_annotation_names(node.func) & STORE_TYPES)
    return False


def _store_locals(tree: ast.AST) -> set[str]:
    """Names bound to a store anywhere in the module (assignment, annotation, parameter),
    to a fixed point so ``a = engine.store; b = a`` tracks both."""
    names: set[str] = set()
    while True:
        before = len(names)
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and _is_store(node.value, names):
                names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                typed = _annotation_names(node.annotation) & STORE_TYPES
                if typed or (node.value is not None and _is_store(node.value, names)):
                    names.add(node.target.id)
            elif isinstance(node, ast.arg) and _annotation_names(node.annotation) & STORE_TYPES:
                names.add(node.arg)
            elif isinstance(node, (ast.With, ast.AsyncWith)):
                for item in node.items:
                    var = item.optional_vars
                    if isinstance(var, ast.Name) and _is_store(item.context_expr, names):
                        names.add(var.id)
        if len(names) == before:
            return names


def _suspect(receiver: ast.expr, locals_: set[str]) -> bool:
    """A receiver not known to be the funnel or a facade over it, or bound to a store."""
    return ast.unparse(receiver) not in ALLOWED_RECEIVERS or _is_store(receiver, locals_)


def mutations(source: str) -> list[tuple[int, str]]:
    """``(line, what)`` of every use of a mutating method name on a suspect receiver."""
    tree = ast.parse(source)
    locals_ = _store_locals(tree)
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and node.attr in MUTATORS
            and _suspect(node.value, locals_)
        ):
            found.append((node.lineno, f"{ast.unparse(node.value)}.{node.attr}"))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "getattr"
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and node.args[1].value in MUTATORS
            and _suspect(node.args[0], locals_)
        ):
            found.append(
                (node.lineno, f"getattr({ast.unparse(node.args[0])}, {node.args[1].value!r})")
            )
    return sorted(found)


def offenders(root: Path) -> list[str]:
    """``path:line what`` of every store mutation outside the engine and the stores."""
    out: list[str] = []
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            if rel.startswith(ALLOWED):
                continue
            for line, what in mutations(path.read_text(encoding="utf-8")):
                out.append(f"{rel}:{line} {what}")
    return out


def test_only_the_engine_and_the_stores_mutate_a_store() -> None:
    found = offenders(ROOT)
    assert not found, "mutate the store through Engine's write methods:\n" + "\n".join(found)


def test_the_check_sees_every_way_of_reaching_a_store() -> None:
    source = """
def f(engine, self, other: MemoryStore, x, q: "EdgeStore"):
    engine.store.upsert(points)
    self._engine.store.set_payload(ids, scope, {})
    self._store.delete(ids, scope)
    store.delete_by_filter(scope)
    s = engine.store
    t = s
    t.purge()
    other.delete(ids, scope)
    fn = getattr(engine.store, "begin_purge")
    EdgeStore(path).upsert([])
    x.delete(ids)
    a, b = engine.store, 1
    a.upsert([])
    if (w := engine.store):
        w.upsert([])
    self.db = engine.store
    self.db.delete(ids, scope)
    for st in [engine.store]:
        st.purge()
    q.cancel_purge()
    g = lambda st: st.upsert([])
    up = engine.store.upsert
    getattr(x, "delete")
    type(x).upsert(x, [])
    memory = engine.store
    memory.delete(ids, scope)
    self.memory.record_store.delete(ids, scope)  # the public RecordStore: allowed
    engine.delete(ids, scope)  # the funnel: allowed
    getattr(engine, "purge")  # the funnel: allowed
"""
    assert [line for line, _ in mutations(source)] == [
        3, 4, 5, 6, 9, 10, 11, 12, 13, 15, 17, 19, 21, 22, 23, 24, 25, 26, 28
    ]  # fmt: skip


def test_the_mutating_methods_checked_are_those_of_the_store_protocol() -> None:
    protocol = {n for n in vars(MemoryStore) if not n.startswith("_")}
    assert MUTATORS - {"begin_purge", "cancel_purge"} <= protocol
    changes = {"upsert", "set_payload", "delete", "delete_by_filter", "purge"}
    assert changes <= MUTATORS


def test_every_engine_write_method_announces_what_it_changed() -> None:
    from prism_memory import FakeEmbedder

    engine = Engine(location=":memory:", embedder=FakeEmbedder())
    events = []
    engine.on_write(events.append)
    scope = Scope(user_id="alice")
    try:
        [rec] = engine.write_records([engine.build_record("I like tea", scope)])
        assert events[-1].inserted == (rec,)
        engine.update([rec.id], scope, {"utility": 0.9})
        assert events[-1].updated == (rec.id,) and events[-1].inserted is None
        n = len(events)
        engine.update([rec.id], scope, {"access_count": 3}, announce=False)
        assert len(events) == n  # bookkeeping, told to nobody (as before the funnel)
        old = rec.model_copy(update={"id": engine.build_record("v1", scope).id})
        engine.rewrite([old], dense={old.id: engine.store.get_vectors([rec.id], scope)[rec.id]})
        assert events[-1].updated == (old.id,)
        assert engine.delete([rec.id, old.id], scope) == 2
        assert events[-1].deleted == (rec.id, old.id) and not events[-1].reindex
        engine.write_records([engine.build_record("I like coffee", scope)])
        assert engine.delete_where(scope) == 1 and events[-1].reindex
    finally:
        engine.close()


def test_bad_input_to_a_write_method_is_refused_and_changes_nothing() -> None:
    import pytest

    from prism_memory import FakeEmbedder
    from prism_memory.errors import ValidationError

    engine = Engine(location=":memory:", embedder=FakeEmbedder())
    scope = Scope(user_id="alice")
    try:
        [rec] = engine.write_records([engine.build_record("I like tea", scope)])
        with pytest.raises(ValidationError, match="list of record ids"):
            engine.delete(rec.id, scope)
        with pytest.raises(ValidationError, match="non-empty strings"):
            engine.update([rec.id, ""], scope, {"utility": 0.1})
        with pytest.raises(ValidationError, match="field names"):
            engine.update([rec.id], scope, {})
        with pytest.raises(ValidationError, match=r"Scope\.of"):
            engine.delete([rec.id], {"user_id": "alice"})  # type: ignore[arg-type]
        assert engine.store.get([rec.id], scope)[0].utility == rec.utility
    finally:
        engine.close()


def test_the_runtime_check_refuses_a_library_module_that_reaches_the_store(
    fake_memory: Memory,
) -> None:
    """``tests/conftest.py`` wraps the stores' mutating methods for the whole suite; a call whose
    nearest caller outside ``stores/`` is library code other than ``engine/`` fails, however
    the store was reached (here a bound method kept in a variable, which no AST check sees)."""
    import pytest

    from prism_memory.stores import EdgeStore, QdrantStore

    for cls in (EdgeStore, QdrantStore):
        for name in sorted(MUTATORS):
            if hasattr(cls, name):
                assert getattr(cls, name).__prism_funnel_guard__, (cls.__name__, name)
    fake = ROOT / "prism_memory" / "planted_violation.py"  # never written: only its name
    code = compile("\n\nfn = store.delete\nfn([], scope)\n", str(fake), "exec")
    scope = Scope(user_id="alice")
    with pytest.raises(
        AssertionError, match=r"prism_memory/planted_violation\.py:4 changes a store"
    ):
        exec(code, {"__name__": "prism_memory.planted", "store": fake_memory.store, "scope": scope})
    via_type = compile("type(s).upsert(s, [])\n", str(ROOT / "langchain_prism" / "x.py"), "exec")
    with pytest.raises(AssertionError, match=r"langchain_prism/x\.py:1"):
        exec(via_type, {"__name__": "langchain_prism.x", "s": fake_memory.store})
    # the engine and a test calling the store on purpose pass
    fake_memory.store.delete([], scope)
    call = "store.delete([], scope)\n"
    for module in ("prism_memory.engine", "prism_bench.scale"):  # the funnel, a bench
        where = str(ROOT / (module.replace(".", "/") + ".py"))
        exec(
            compile(call, where, "exec"),
            {"__name__": module, "store": fake_memory.store, "scope": scope},
        )


def test_a_rewritten_state_keeps_the_speaker_in_its_bm25_text() -> None:
    from prism_memory import FakeEmbedder
    from prism_memory.stores import RouteQuery

    engine = Engine(location=":memory:", embedder=FakeEmbedder())
    scope = Scope(user_id="alice")
    try:
        [rec] = engine.write_records(
            [engine.build_record("I researched solar installers", scope, speaker="Priya")]
        )
        kept = rec.model_copy(update={"importance": 0.9})
        engine.rewrite([kept], dense=engine.store.get_vectors([rec.id], scope))
        route = RouteQuery("bm25", "bm25", engine.sparse.query("Priya"), 5)
        hits = engine.store.query_routes(scope, [route], None)["bm25"]
        assert [h.id for h in hits] == [rec.id]
    finally:
        engine.close()


def test_rewrite_refuses_another_scopes_id_and_announces_each_scope() -> None:
    import pytest

    from prism_memory import FakeEmbedder
    from prism_memory.errors import ScopeError

    engine = Engine(location=":memory:", embedder=FakeEmbedder())
    alice, bob = Scope(user_id="alice"), Scope(user_id="bob")
    events = []
    engine.on_write(events.append)
    try:
        [a] = engine.write_records([engine.build_record("I like tea", alice)])
        [b] = engine.write_records([engine.build_record("I like coffee", bob)])
        with pytest.raises(ScopeError, match="another scope"):
            engine.rewrite([a.model_copy(update={"user_id": "bob", "text": "taken"})])
        assert engine.store.get([a.id], alice)[0].text == "I like tea"
        engine.rewrite([a, b])
        assert {(e.scope.user_id, e.updated) for e in events[-2:]} == {
            ("alice", (a.id,)),
            ("bob", (b.id,)),
        }
    finally:
        engine.close()


def test_update_refuses_fields_it_cannot_set_and_changes_nothing() -> None:
    import pytest

    from prism_memory import FakeEmbedder
    from prism_memory.errors import ValidationError

    engine = Engine(location=":memory:", embedder=FakeEmbedder())
    alice = Scope(user_id="alice")
    try:
        [rec] = engine.write_records([engine.build_record("I like tea", alice)])
        for fields, hint in [
            ({"user_id": "bob"}, r"Engine\.move"),
            ({"text": "I like gin"}, r"Memory\.update"),
            ({"utilty": 5}, "unknown record field 'utilty'"),
            ({"id": "x"}, "id is fixed"),
            ({"trust": "trusted"}, "provenance"),
            ({"importance": "very"}, "bad value for record field 'importance'"),
            ({"utility": 0.1, "session_id": "s9"}, r"Engine\.move"),
        ]:
            with pytest.raises(ValidationError, match=hint):
                engine.update([rec.id], alice, fields)
        [stored] = engine.store.get([rec.id], alice)
        assert stored.model_dump() == rec.model_dump()
        assert engine.store.get([rec.id], Scope(user_id="bob")) == []
    finally:
        engine.close()


def test_updated_provenance_entities_and_time_carry_their_index_fields() -> None:
    from datetime import datetime, timezone

    from prism_memory import FakeEmbedder
    from prism_memory.records import Entity, Trust
    from prism_memory.stores import RecordFilter
    from prism_memory.stores.filters import Condition

    engine = Engine(location=":memory:", embedder=FakeEmbedder())
    alice = Scope(user_id="alice")

    def found(*conds: Condition) -> list[str]:
        return [r.id for r in engine.store.scroll(alice, RecordFilter(must=list(conds)))[0]]

    try:
        [rec] = engine.write_records([engine.build_record("I like tea", alice)])
        prov = rec.provenance.model_copy(
            update={"trust": Trust.QUARANTINED, "source_ids": ["turn-9"]}
        )
        when = datetime(2020, 5, 1, tzinfo=timezone.utc)
        engine.update(
            [rec.id],
            alice,
            {
                "provenance": prov.model_dump(mode="json"),
                "entities": [Entity(name="Tea", type="food").model_dump(mode="json")],
                "event_time": when.isoformat(),
            },
        )
        assert found(Condition("trust", "eq", "quarantined")) == [rec.id]
        assert found(Condition("source_ids", "any", ["turn-9"])) == [rec.id]
        assert found(Condition("ts", "range", {"lte": when.timestamp()})) == [rec.id]
        assert engine.store.get([rec.id], alice)[0].provenance.trust == Trust.QUARANTINED
    finally:
        engine.close()


def test_a_move_checks_the_old_scope_and_recall_follows_it() -> None:
    import pytest

    from prism_memory import FakeEmbedder, Memory
    from prism_memory.errors import ScopeError

    m = Memory(location=":memory:", embedder=FakeEmbedder())
    old, new = Scope(user_id="ns-alice"), Scope(user_id="alice")
    try:
        rec = m.add("Alice is vegetarian", user_id="ns-alice")
        bob = m.add("Bob keeps bees", user_id="bob")
        assert "vegetarian" in m.recall("vegetarian", user_id="ns-alice").text  # now cached
        with pytest.raises(ScopeError, match="nothing was moved"):
            m.record_store.move([rec.id, bob.id], old, new)
        assert [r.id for r in m.record_store.get([bob.id], Scope(user_id="bob"))] == [bob.id]
        assert m.record_store.count(new) == 0
        [moved] = m.record_store.move([rec.id], old, new, metadata={"moved": "yes"})
        assert (moved.user_id, moved.metadata["moved"]) == ("alice", "yes")
        assert "vegetarian" not in m.recall("vegetarian", user_id="ns-alice").text
        assert "vegetarian" in m.recall("vegetarian", user_id="alice").text
        assert m.record_store.count(old) == 0
    finally:
        m.close()


def test_small_funnel_checks() -> None:
    import pytest

    from prism_memory import FakeEmbedder, PrismError
    from prism_memory.errors import ValidationError

    engine = Engine(location=":memory:", embedder=FakeEmbedder())
    scope = Scope(user_id="alice")
    engine.write_records([engine.build_record("I like tea", scope)])
    with pytest.raises(ValidationError, match="RecordFilter"):
        engine.delete_where(scope, {"kind": "fact"})  # type: ignore[arg-type]
    assert engine.store.count(scope, None) == 1
    engine.close()
    for call in (engine.begin_purge, engine.cancel_purge):
        with pytest.raises(PrismError, match="closed"):
            call()
