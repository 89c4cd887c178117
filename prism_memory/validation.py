"""The input checks every entry point applies, for adapters that take input of their own.

Design: re-exports of :mod:`prism_memory._validation` (where the checks live, next to the
record builder): the same limits and the same messages whether a value arrives through
``Memory`` or through an adapter such as the LangGraph store.

>>> from prism_memory.validation import check_depth, nesting_depth
>>> nesting_depth({"a": [1]})
2
>>> check_depth({"a": {"b": 1}}, "value", limit=1)
Traceback (most recent call last):
...
prism_memory.errors.ValidationError: value is nested more than 1 levels deep; flatten it (e.g. store the deep part as a JSON string)
"""

from __future__ import annotations

from ._validation import MAX_JSON_DEPTH, check_depth, check_string, nesting_depth

__all__ = ["MAX_JSON_DEPTH", "check_depth", "check_string", "nesting_depth"]
