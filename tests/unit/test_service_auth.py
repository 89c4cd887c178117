"""API keys and tenancy rules of the memory service (pure functions, no server)."""

from __future__ import annotations

from pathlib import Path

import pytest

from prism_memory import AuthenticationError, ConfigError, PermissionDeniedError
from prism_memory.server.auth import KeyRing, authorize, check_bind, default_scope, load_keys

KEYS = (
    '{"alice-key-123": {"user_ids": ["alice"]}, "ops-key-12345": {"admin": true},'
    ' "bot-key-12345": {"agent_ids": ["planner"]}, "team-key-1234": {"user_ids": ["a", "b"], "agent_ids": ["x"]}}'
)


def test_a_user_key_covers_that_user_and_its_agents_and_sessions_only() -> None:
    ring = KeyRing.from_json(KEYS)
    alice = ring.authenticate("Bearer alice-key-123")
    authorize(alice, user_id="alice")
    authorize(alice, user_id="alice", agent_id="any-agent", session_id="s1")
    for scope in ({"user_id": "bob"}, {"agent_id": "planner"}, {"session_id": "s1"}):
        with pytest.raises(PermissionDeniedError):
            authorize(alice, **scope)
    team = ring.authenticate("Bearer team-key-1234")
    authorize(team, user_id="b", agent_id="x")
    with pytest.raises(PermissionDeniedError, match="agent_id 'y'"):
        authorize(team, user_id="a", agent_id="y")  # the key names its agents
    bot = ring.authenticate("bearer bot-key-12345")
    authorize(bot, agent_id="planner", session_id="s")
    with pytest.raises(PermissionDeniedError):
        authorize(bot, user_id="alice", agent_id="planner")
    authorize(ring.authenticate("Bearer ops-key-12345"), session_id="anything")


def test_every_list_of_a_key_bounds_the_scope() -> None:
    # a scope matches every record with the fields it names: leaving a bound out reaches past it
    ring = KeyRing.from_json(KEYS)
    team = ring.authenticate("Bearer team-key-1234")
    with pytest.raises(PermissionDeniedError, match="name one of them as agent_id"):
        authorize(team, user_id="a")  # would read a's memories of every agent
    with pytest.raises(PermissionDeniedError, match="name one of them as user_id"):
        authorize(team, agent_id="x")  # would read every user's memories of agent x
    with pytest.raises(PermissionDeniedError):
        authorize(team, user_id="a", session_id="s1")
    authorize(team, user_id="a", agent_id="x", session_id="s1")
    one = KeyRing.from_json('{"one-key-12345": {"user_ids": ["a"], "agent_ids": ["x"]}}')
    assert default_scope(one.authenticate("Bearer one-key-12345")) == {
        "user_id": "a",
        "agent_id": "x",
    }


def test_default_scope_is_the_one_user_or_agent_a_key_covers() -> None:
    ring = KeyRing.from_json(KEYS)
    assert default_scope(ring.authenticate("Bearer alice-key-123")) == {"user_id": "alice"}
    assert default_scope(ring.authenticate("Bearer bot-key-12345")) == {"agent_id": "planner"}
    assert default_scope(ring.authenticate("Bearer team-key-1234")) is None
    assert default_scope(ring.authenticate("Bearer ops-key-12345")) is None


@pytest.mark.parametrize(
    "header", [None, "", "alice-key-123", "Basic alice-key-123", "Bearer nope-nope-nope"]
)
def test_a_missing_or_unknown_key_is_an_authentication_error(header: str | None) -> None:
    with pytest.raises(AuthenticationError):
        KeyRing.from_json(KEYS).authenticate(header)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("{", "not valid JSON"),
        ("{}", "non-empty"),
        ('{"short": {"admin": true}}', "shorter than 8"),
        ('{"long-enough-key": {}}', "covers no scope"),
        ('{"long-enough-key": {"user_ids": "alice"}}', "list of non-empty strings"),
        ('{"long-enough-key": {"users": ["alice"]}}', "unknown fields"),
    ],
)
def test_a_bad_keys_file_says_how_to_fix_it(text: str, fragment: str) -> None:
    with pytest.raises(ConfigError, match=fragment):
        KeyRing.from_json(text)


def test_keys_come_from_a_file_or_the_environment(tmp_path: Path) -> None:
    f = tmp_path / "keys.json"
    f.write_text(KEYS)
    assert len(load_keys(f) or []) == 4
    assert len(load_keys(None, KEYS) or []) == 4
    assert len(load_keys(None, str(f)) or []) == 4
    assert load_keys(None, None) is None
    with pytest.raises(ConfigError, match="not a file"):
        load_keys(tmp_path / "missing.json")


def test_without_keys_only_loopback_may_be_bound() -> None:
    for host in ("127.0.0.1", "localhost", "::1"):
        check_bind(host, None)
    check_bind("0.0.0.0", KeyRing.from_json(KEYS))
    for host in ("0.0.0.0", "192.168.1.4", "::"):
        with pytest.raises(ConfigError, match="without API keys"):
            check_bind(host, None)
