"""The PRISM exception tree.

One root, :class:`PrismError`, so callers can catch everything PRISM raises with one
``except``; a few subclasses for the cases a caller handles differently. Every message says
what went wrong *and* how to fix it. Nothing here shadows a builtin (no ``MemoryError``).
"""

from __future__ import annotations

__all__ = [
    "AuthenticationError",
    "ConfigError",
    "EmbeddingDimensionError",
    "ExtractionError",
    "ImportDataError",
    "NotFoundError",
    "PermissionDeniedError",
    "PrismError",
    "QuarantinedError",
    "RequestLimitError",
    "ScopeError",
    "ServiceError",
    "StoreError",
    "StoreLockedError",
    "StoreUnavailableError",
    "ValidationError",
]


class PrismError(Exception):
    """Base class of every error PRISM raises on purpose."""


class ConfigError(PrismError, ValueError):
    """A setting is missing, contradictory or out of range."""


class ValidationError(PrismError, ValueError):
    """An argument of a public call is invalid (empty text, unknown filter key, ...)."""


class ScopeError(ValidationError):
    """A call names no scope, or a scope value is not a usable identifier."""


class NotFoundError(PrismError, KeyError):
    """A record id does not exist in the caller's scope."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else "not found"


class StoreError(PrismError):
    """The storage engine failed or refused an operation."""


class StoreLockedError(StoreError):
    """The embedded store path is already open in another process."""


class StoreUnavailableError(StoreError):
    """A Qdrant server did not answer (refused, timed out, DNS failure)."""


class EmbeddingDimensionError(StoreError):
    """The embedder's dimension differs from the one the collection was created with."""


class ExtractionError(PrismError):
    """Structured extraction failed (only raised by explicit extraction calls, never by writes)."""


class ImportDataError(ValidationError):
    """A JSONL import line could not be read; the message names the line number."""


class QuarantinedError(ValidationError):
    """A write the caller asked to be screened was quarantined (kept for audit, not served).

    ``record_id`` and ``reason`` say which and why; ``Memory.release(record_id, ...)`` restores it.
    """

    def __init__(self, message: str, *, record_id: str, reason: str | None) -> None:
        super().__init__(message)
        self.record_id = record_id
        self.reason = reason


class ServiceError(PrismError):
    """The memory service (``prism serve``) failed a request for a reason of its own (not one of
    the library's errors): an internal error, or an answer ``RemoteMemory`` cannot read."""


class AuthenticationError(ServiceError):
    """The memory service got no API key, or one it does not know (HTTP 401)."""


class PermissionDeniedError(ServiceError):
    """The API key is valid but the call names a scope (or an admin operation) the key does
    not cover (HTTP 403)."""


class RequestLimitError(ServiceError):
    """A request to the memory service was larger (HTTP 413) or slower (HTTP 504) than the
    server's limits (``prism serve --max-body-bytes / --request-timeout``)."""
