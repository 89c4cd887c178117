"""One line for a pydantic validation error, for the messages of PRISM's own errors.

Design: configuration, intents, task updates, import lines and the service's request bodies
are pydantic models; when one is refused, PRISM raises its own error (``ConfigError``,
``ValidationError``, ...) whose message names the field and the reason in one line. This
module holds that one formatting rule so every caller words it the same way.
"""

from __future__ import annotations

__all__ = ["pydantic_reason"]


def pydantic_reason(exc: Exception) -> str:
    """The first error of a pydantic ``ValidationError`` as ``field: reason`` (one line), the
    message of a PRISM error a validator raised when there is one."""
    errors = getattr(exc, "errors", None)
    if not callable(errors) or not errors():
        return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    err = errors()[0]
    where = ".".join(str(p) for p in err.get("loc", ())) or "value"
    cause = err.get("ctx", {}).get("error")
    reason = str(cause) if isinstance(cause, Exception) else err.get("msg", "invalid")
    return f"{where}: {reason}"[:300]
