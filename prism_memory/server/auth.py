"""API keys and tenancy: which scopes a key may read, write and delete.

Design:
- Keys come from a JSON file (``prism serve --api-keys FILE``) or the ``PRISM_API_KEYS``
  environment variable (the same JSON, or a path to such a file), of the form
  ``{"<key>": {"user_ids": ["alice"], "agent_ids": [], "admin": false}}``. They are kept as
  SHA-256 digests, so the key text is not held in memory longer than loading takes.
- :func:`authorize` is the one rule every route, the inspector and the MCP tools apply, pure
  and tested on its own: an admin key may use any scope; every list a key has is a bound the
  scope must name a value of. A key with ``user_ids`` may use a scope whose ``user_id`` is one
  of them (with any agent or session of that user unless the key also lists ``agent_ids``,
  which the scope must then name one of); a key with only ``agent_ids`` a scope with no
  ``user_id`` whose ``agent_id`` is one of them. A scope reads every record whose fields match
  the ones it names, so leaving a bound out would reach past it (``user_id`` alone would read
  the user's memories of every agent). A scope of only a ``session_id`` belongs to no key
  (sessions are not owned).
- No keys configured is "open mode": every caller is admin, which :func:`check_bind` allows on
  a loopback address only.

Example:
    >>> ring = KeyRing.from_json('{"k-alice-6f1c9d2e": {"user_ids": ["alice"]}}')
    >>> p = ring.authenticate("Bearer k-alice-6f1c9d2e")
    >>> authorize(p, user_id="alice", session_id="s1")
    >>> default_scope(p)
    {'user_id': 'alice'}
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict

from ..errors import AuthenticationError, ConfigError, PermissionDeniedError

__all__ = [
    "OPEN",
    "KeyRing",
    "Principal",
    "ScopeKwargs",
    "authorize",
    "check_bind",
    "default_scope",
    "is_loopback",
    "load_keys",
    "require_admin",
]


class ScopeKwargs(TypedDict, total=False):
    """The scope keywords of a ``Memory`` call (only those that are set)."""

    user_id: str
    agent_id: str
    session_id: str


@dataclass(frozen=True)
class Principal:
    """Who is calling: the scopes a key covers (``admin`` covers every scope)."""

    name: str
    user_ids: frozenset[str] = field(default_factory=frozenset)
    agent_ids: frozenset[str] = field(default_factory=frozenset)
    admin: bool = False


#: the caller when no keys are configured (loopback only, see :func:`check_bind`)
OPEN = Principal(name="open", admin=True)


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def _str_list(value: Any, where: str) -> frozenset[str]:
    if value is None:
        return frozenset()
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ConfigError(f'{where} must be a list of non-empty strings, e.g. ["alice"]')
    return frozenset(value)


class KeyRing:
    """The configured API keys, by digest."""

    def __init__(self, principals: dict[str, Principal]) -> None:
        self._by_digest = principals

    @classmethod
    def from_json(cls, text: str, *, source: str = "PRISM_API_KEYS") -> KeyRing:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ConfigError(
                f"{source} is not valid JSON ({exc.msg}); write it as "
                '{"<key>": {"user_ids": ["alice"], "agent_ids": [], "admin": false}}'
            ) from None
        if not isinstance(data, dict) or not data:
            raise ConfigError(
                f"{source} must be a non-empty JSON object mapping each key to its scopes, e.g. "
                '{"<key>": {"user_ids": ["alice"]}}'
            )
        principals: dict[str, Principal] = {}
        for i, (key, spec) in enumerate(data.items()):
            if not isinstance(key, str) or len(key) < 8:
                raise ConfigError(
                    f"{source}: key #{i + 1} is shorter than 8 characters; use a long random key (e.g. `python -c 'import secrets; print(secrets.token_urlsafe(32))'`)"
                )
            if not isinstance(spec, dict):
                raise ConfigError(
                    f"{source}: the value of key #{i + 1} must be an object with user_ids / agent_ids / admin"
                )
            unknown = set(spec) - {"user_ids", "agent_ids", "admin", "name"}
            if unknown:
                raise ConfigError(
                    f"{source}: key #{i + 1} has unknown fields {sorted(unknown)}; use user_ids, agent_ids, admin, name"
                )
            admin = spec.get("admin", False)
            if not isinstance(admin, bool):
                raise ConfigError(f"{source}: admin of key #{i + 1} must be true or false")
            p = Principal(
                name=str(spec.get("name") or f"key-{i + 1}"),
                user_ids=_str_list(spec.get("user_ids"), f"{source}: user_ids of key #{i + 1}"),
                agent_ids=_str_list(spec.get("agent_ids"), f"{source}: agent_ids of key #{i + 1}"),
                admin=admin,
            )
            if not (p.admin or p.user_ids or p.agent_ids):
                raise ConfigError(
                    f"{source}: key #{i + 1} covers no scope; give it user_ids, agent_ids or admin: true"
                )
            principals[_digest(key)] = p
        return cls(principals)

    def __len__(self) -> int:
        return len(self._by_digest)

    def authenticate(self, authorization: str | None) -> Principal:
        """The principal of an ``Authorization: Bearer <key>`` header value."""
        if not authorization:
            raise AuthenticationError(
                "no API key: send the header 'Authorization: Bearer <key>' with a key from the "
                "server's --api-keys file"
            )
        scheme, _, key = authorization.strip().partition(" ")
        if scheme.lower() != "bearer" or not key.strip():
            raise AuthenticationError("the Authorization header must read 'Bearer <key>'")
        principal = self._by_digest.get(_digest(key.strip()))
        if principal is None:
            raise AuthenticationError(
                "unknown API key; use a key listed in the server's --api-keys file"
            )
        return principal


def load_keys(path: str | os.PathLike[str] | None = None, env: str | None = None) -> KeyRing | None:
    """Keys from ``path`` if given, else from ``env`` (the value of ``PRISM_API_KEYS``: JSON or a
    file path); ``None`` when neither is set (open mode)."""
    if path is not None:
        p = Path(path)
        if not p.is_file():
            raise ConfigError(f"--api-keys {str(path)!r} is not a file; write the keys JSON there")
        return KeyRing.from_json(p.read_text(encoding="utf-8"), source=str(path))
    if env:
        if env.lstrip().startswith("{"):
            return KeyRing.from_json(env)
        return load_keys(env)
    return None


def authorize(
    principal: Principal,
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
    session_id: str | None = None,
) -> None:
    """Raise :class:`PermissionDeniedError` unless ``principal`` covers the scope."""
    if principal.admin:
        return
    if user_id is None and agent_id is None:
        if session_id is None:
            return  # no scope at all: the library's ScopeError says what to pass
        raise PermissionDeniedError(
            "a scope of only session_id belongs to no API key; add the user_id or agent_id "
            "the session belongs to"
        )
    if user_id is not None and user_id not in principal.user_ids:
        raise PermissionDeniedError(
            f"this API key may not use user_id {user_id!r}; use one of its users "
            f"({', '.join(sorted(principal.user_ids)) or 'none'}) or a key for that user"
        )
    if user_id is None and principal.user_ids:
        # a scope without user_id reads every user's records of the agent
        raise PermissionDeniedError(
            "this API key covers the users "
            f"{', '.join(sorted(principal.user_ids))} only: name one of them as user_id"
        )
    if principal.agent_ids and agent_id not in principal.agent_ids:
        # a key that names its agents is bound to them: a scope without agent_id would read
        # the user's memories of every agent
        what = "name one of them as agent_id" if agent_id is None else "use one of them"
        shown = "none" if agent_id is None else repr(agent_id)
        raise PermissionDeniedError(
            f"this API key may not use agent_id {shown}; it covers the agents "
            f"{', '.join(sorted(principal.agent_ids))} only: {what}, or use a key for that agent"
        )


def require_admin(principal: Principal, what: str) -> None:
    """Raise :class:`PermissionDeniedError` unless ``principal`` is an admin key."""
    if not principal.admin:
        raise PermissionDeniedError(f'{what} is an admin operation; use a key with "admin": true')


def default_scope(principal: Principal) -> ScopeKwargs | None:
    """The scope a key stands for when each list it has holds one value (one user, one agent,
    or one user of one agent); ``None`` when the caller must name one of its scopes."""
    scope = ScopeKwargs()
    if len(principal.user_ids) == 1:
        scope["user_id"] = next(iter(principal.user_ids))
    elif principal.user_ids:
        return None
    if len(principal.agent_ids) == 1:
        scope["agent_id"] = next(iter(principal.agent_ids))
    elif principal.agent_ids:
        return None
    return scope or None


def is_loopback(host: str) -> bool:
    if host in ("localhost", "ip6-localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_bind(host: str, keys: KeyRing | None) -> None:
    """Refuse to serve without keys on anything but a loopback address."""
    if keys is None and not is_loopback(host):
        raise ConfigError(
            f"refusing to listen on {host!r} without API keys: anyone on the network could read "
            "and delete every memory. Pass --api-keys FILE (or set PRISM_API_KEYS), or bind "
            "127.0.0.1"
        )
