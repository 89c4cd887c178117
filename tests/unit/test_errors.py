"""The exception tree: one root, sensible builtin bases, nothing shadowed."""

from __future__ import annotations

import builtins

import pytest

import prism_memory
from prism_memory import errors


def test_every_error_is_a_prism_error() -> None:
    for name in errors.__all__:
        cls = getattr(errors, name)
        assert issubclass(cls, errors.PrismError), name
        assert getattr(prism_memory, name) is cls  # re-exported at the top level


def test_no_builtin_is_shadowed() -> None:
    for name in errors.__all__:
        assert not hasattr(builtins, name), name


@pytest.mark.parametrize(
    ("child", "parent"),
    [
        (errors.ScopeError, errors.ValidationError),
        (errors.ValidationError, ValueError),
        (errors.ConfigError, ValueError),
        (errors.ImportDataError, errors.ValidationError),
        (errors.StoreLockedError, errors.StoreError),
        (errors.StoreUnavailableError, errors.StoreError),
        (errors.EmbeddingDimensionError, errors.StoreError),
        (errors.NotFoundError, KeyError),
    ],
)
def test_hierarchy(child: type[Exception], parent: type[Exception]) -> None:
    assert issubclass(child, parent)


def test_not_found_message_is_not_repr_quoted() -> None:
    err = errors.NotFoundError("no memory 'x' in scope {'user_id': 'a'}")
    assert str(err) == "no memory 'x' in scope {'user_id': 'a'}"
    assert str(errors.NotFoundError()) == "not found"
    with pytest.raises(KeyError):
        raise err
