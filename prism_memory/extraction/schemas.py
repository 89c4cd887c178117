"""The SCG schema registry: the pydantic models facts are written into, their keys and policies.

Design:
- A schema is a pydantic model plus an entity ``key`` (fields whose normalised values identify
  "the same thing") and a merge ``policy`` per field (``first_write``, ``latest_wins``,
  ``max_confidence``, ``accumulate``, ``weighted``). Reconciliation (``reconcile.py``) reads them.
- Built-ins: :class:`Preference`, :class:`Fact`, :class:`Person`, :class:`Event`; the
  working layer adds its ``TaskState`` (``layers/working.py``) with
  :meth:`SchemaRegistry.register_builtin`. Users register their own with ``Memory.register_schema``; an optional
  ``extract`` callable gives a schema its own rule (no LLM needed).
- Facts are never free-form prose: extracted data is validated against the model before it is
  stored; the record's ``text`` is rendered from the fields.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..errors import ValidationError
from ..records import Kind, normalize_text
from .zh_render import is_chinese_fields, render_fact_zh, render_person_zh, render_preference_zh

__all__ = [
    "POLICIES",
    "Event",
    "Fact",
    "Person",
    "Preference",
    "SchemaDecl",
    "SchemaRegistry",
    "SchemaSpec",
    "entity_key",
    "person_entry",
]

Policy = Literal["first_write", "latest_wins", "max_confidence", "accumulate", "weighted"]
POLICIES: tuple[str, ...] = (
    "first_write",
    "latest_wins",
    "max_confidence",
    "accumulate",
    "weighted",
)

#: ``extract(text, context) -> list of field dicts`` for a user schema's own rule
SchemaExtractor = Callable[[str, dict[str, Any]], Sequence[dict[str, Any]]]


class _Schema(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)


class Preference(_Schema):
    """A like, dislike or constraint of the user: ``Preference(subject="seafood", polarity="like")``."""

    subject: str = Field(description="What the preference is about, e.g. 'seafood', 'window seat'.")
    holder: str = Field(default="user", description="Whose preference it is (a speaker's name).")
    polarity: Literal["like", "dislike", "avoid", "need"] = "like"
    category: str | None = Field(default=None, description="e.g. food, travel, seating.")
    strength: float = Field(default=0.7, ge=0, le=1)
    reasons: list[str] = Field(default_factory=list)


class Fact(_Schema):
    """An attribute of the user or the world: ``Fact(attribute="budget", value="800 a night")``."""

    attribute: str = Field(description="What the fact is about, e.g. 'budget', 'home city'.")
    value: str
    amount: float | None = Field(default=None, description="The number in the value, if any.")
    unit: str | None = Field(default=None, description="Currency or unit of the amount.")
    subject: str = Field(default="user", description="Whose attribute it is.")
    predicate: str | None = Field(
        default=None,
        description="How the statement reads between subject and value ('plays' in 'Maya "
        "plays bass'); without it the fact reads '<subject>'s <attribute>: <value>'.",
    )


class Person(_Schema):
    """Someone the user mentions: ``Person(name="Zhang", relationship="colleague")``."""

    name: str
    relationship: str | None = None
    attributes: list[str] = Field(default_factory=list)


class Event(_Schema):
    """Who did what, when, with what outcome."""

    description: str
    actor: str | None = None
    participants: list[str] = Field(default_factory=list)
    when: str | None = Field(default=None, description="ISO date/time the event is about.")
    outcome: str | None = None


def _who(name: object) -> str:
    text = str(name or "user")
    return "User" if text == "user" else text


def _possessive(name: object) -> str:
    who = _who(name)
    return who + ("'" if who.endswith("s") else "'s")


_POLARITY_VERB = {"like": "likes", "dislike": "dislikes", "avoid": "avoids", "need": "needs"}
# how a slot reads as a sentence: "<subject> <phrase> <value>"
_SLOT_PHRASES = {
    "home city": "lives in",
    "occupation": "works as",
    "workplace": "works at",
    "diet": "is",
    "dietary restriction": "is",
    "hometown": "is from",
    "preferred name": "goes by",
    "commute": "",
    "pet": "has a",
}


def _render_preference(f: dict[str, Any]) -> str:
    """``Maya likes aisle seats``: who, polarity, what (the quoted reasons stay in ``fields``)."""
    if is_chinese_fields(f.get("holder"), f.get("subject")):
        return render_preference_zh(f)
    text = f"{_who(f.get('holder'))} {_POLARITY_VERB.get(str(f.get('polarity')), 'likes')} {f.get('subject')}"
    if f.get("category") and str(f["category"]).lower() not in str(f.get("subject")).lower():
        text += f" ({f['category']})"
    return text


def _is_cjk(text: str) -> bool:
    return any("\u3400" <= ch <= "\u9fff" for ch in text)


def _render_fact(f: dict[str, Any]) -> str:
    """``Maya plays bass in a jazz band``, ``Maya lives in Leipzig``, ``User's budget: 1200``."""
    if is_chinese_fields(f.get("subject"), f.get("value")):
        return render_fact_zh(f)
    who = _who(f.get("subject"))
    value = str(f.get("value"))
    attribute = str(f.get("attribute"))
    predicate = f.get("predicate")
    if predicate is None and attribute in _SLOT_PHRASES:
        predicate = _SLOT_PHRASES[attribute]
    if attribute == "age" and predicate is None:
        return f"{who} is {value} years old" if value.isdigit() else f"{who} is {value}"
    if predicate is not None:
        out = ""
        for part in (who, str(predicate), value):
            if not part:
                continue
            cjk_join = out and _is_cjk(out[-1]) and _is_cjk(part[0])
            out += ("" if not out or cjk_join else " ") + part
        return out
    return f"{_possessive(f.get('subject'))} {attribute}: {value}"


def person_entry(entry: object) -> str:
    """One card entry as read: ``occupation: nurse`` -> ``works as nurse``."""
    text = str(entry)
    key, sep, value = text.partition(": ")
    if not sep:
        return text
    if key == "age":
        return f"is {value} years old" if value.isdigit() else f"is {value}"
    phrase = _SLOT_PHRASES.get(key)
    return f"{phrase} {value}".strip() if phrase is not None else text


def _render_person(f: dict[str, Any]) -> str:
    """``Anna (sister): works as nurse in Berlin; likes hiking`` or ``Person: Anna (sister)``."""
    if is_chinese_fields(f.get("name"), f.get("relationship")):
        return render_person_zh(f)
    name = str(f.get("name"))
    rel = f" ({f['relationship']})" if f.get("relationship") else ""
    if not f.get("attributes"):
        return f"Person: {name}{rel}"
    return f"{name}{rel}: " + "; ".join(person_entry(a) for a in f["attributes"][-8:])


def _when(value: object) -> str:
    """An ISO date/time as shown: ``2026-05-15``, ``2026-05-15 15:00``, ``2026-10``, ``2019``."""
    text = str(value)
    if "T" not in text:
        return text
    day, _, clock = text.partition("T")
    clock = clock[:5]
    return day if clock in ("00:00", "") else f"{day} {clock}"


def _render_event(f: dict[str, Any]) -> str:
    """``Hannah has a call with the landlord (2026-05-15 15:00)``."""
    text = str(f.get("description"))
    if f.get("when"):
        text += f" ({_when(f['when'])})"
    if f.get("outcome"):
        text += f" -> {f['outcome']}"
    return text


def _render_generic(name: str, f: dict[str, Any]) -> str:
    shown = ", ".join(f"{k}: {v}" for k, v in f.items() if v not in (None, [], {}, ""))
    return f"{name}: {shown}"


@dataclass
class SchemaSpec:
    """A registered schema: model, entity key, field policies, the kind of record it makes."""

    name: str
    model: type[BaseModel]
    key: list[str]
    policies: dict[str, str]
    kind: Kind = Kind.FACT
    render: Callable[[dict[str, Any]], str] | None = None
    extract: SchemaExtractor | None = None
    description: str = ""
    builtin: bool = False
    field_names: list[str] = field(default_factory=list)

    def policy(self, name: str) -> str:
        if name in self.policies:
            return self.policies[name]
        annotation = self.model.model_fields[name].annotation
        if annotation is not None and getattr(annotation, "__origin__", None) in (list, set):
            return "accumulate"
        return "latest_wins"

    def validate_fields(self, data: dict[str, Any]) -> dict[str, Any]:
        """Validate against the model; raises ``ValidationError`` naming the schema."""
        try:
            obj = self.model.model_validate(data)
        except Exception as exc:
            first = str(exc).splitlines()
            raise ValidationError(
                f"fields do not match schema {self.name}: {' '.join(first[:3])[:300]}"
            ) from None
        return obj.model_dump(mode="json")

    def key_string(self, fields: dict[str, Any]) -> str | None:
        """The entity key of these fields (``None`` when the schema has no key)."""
        if not self.key:
            return None
        return self.name + "|" + "|".join(entity_key(fields.get(k)) for k in self.key)

    def text(self, fields: dict[str, Any]) -> str:
        return (self.render or (lambda f: _render_generic(self.name, f)))(fields)


def entity_key(value: Any) -> str:
    """Normalised key part: casefolded text, punctuation and articles ignored."""
    text = normalize_text(str(value if value is not None else ""))
    text = "".join(ch for ch in text if ch.isalnum() or ch.isspace() or ord(ch) > 0x2E7F)
    words = [w for w in text.split() if w not in ("the", "a", "an")]
    return " ".join(words)


@dataclass(frozen=True, kw_only=True)
class SchemaDecl:
    """One ``Memory.register_schema`` call, validated when built (every argument is checked
    before anything is registered); ``kind`` becomes a :class:`Kind`. ``Memory.register_schema``
    is the one place its defaults are written.

    >>> from pydantic import BaseModel
    >>> class Pet(BaseModel):
    ...     name: str
    >>> SchemaDecl(model=Pet, key=["name"]).schema_name
    'Pet'
    >>> SchemaDecl(model=Pet, key="name")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    prism_memory.errors.ValidationError: key must be a list of field names, e.g. key=['name']
    """

    model: Any
    key: Sequence[str] | None = None
    policies: dict[str, str] | None = None
    kind: Kind | str = Kind.FACT
    name: str | None = None
    render: Callable[[dict[str, Any]], str] | None = None
    extract: SchemaExtractor | None = None

    @property
    def schema_name(self) -> str:
        """The name the schema is registered under (``name``, else the model's)."""
        return self.name or self.model.__name__

    def __post_init__(self) -> None:
        model, key, policies, kind = self.model, self.key, self.policies, self.kind
        if not (isinstance(model, type) and issubclass(model, BaseModel)):
            raise ValidationError(
                f"register_schema needs a pydantic model class, got {model!r}; declare "
                "`class MySchema(BaseModel): ...` and pass the class"
            )
        fields = set(model.model_fields)
        if not fields:
            raise ValidationError(f"schema {model.__name__} has no fields; declare at least one")
        if isinstance(key, str):
            raise ValidationError(f"key must be a list of field names, e.g. key=[{key!r}]")
        bad = [k for k in key or [] if k not in fields]
        if bad:
            raise ValidationError(
                f"key fields {bad} are not fields of {model.__name__}; choose from {sorted(fields)}"
            )
        if not isinstance(policies, (dict, type(None))):
            raise ValidationError("policies must be a dict {field: policy}")
        for fname, p in (policies or {}).items():
            if fname not in fields:
                raise ValidationError(
                    f"policy for unknown field {fname!r}; {model.__name__} has {sorted(fields)}"
                )
            if p not in POLICIES:
                raise ValidationError(
                    f"unknown policy {p!r} for field {fname!r}; use one of {', '.join(POLICIES)}"
                )
        try:
            object.__setattr__(self, "kind", kind if isinstance(kind, Kind) else Kind(str(kind)))
        except ValueError:
            raise ValidationError(
                f"unknown kind {kind!r}; use one of {', '.join(k.value for k in Kind)}"
            ) from None
        if self.extract is not None and not callable(self.extract):
            raise ValidationError("extract must be a callable (text, context) -> list of dicts")


class SchemaRegistry:
    """Schemas known to a Memory. Built-ins are registered on creation.

    Example:
        >>> from pydantic import BaseModel
        >>> class BookInterest(BaseModel):
        ...     title: str
        ...     reasons: list[str] = []
        >>> reg = SchemaRegistry()
        >>> reg.register(BookInterest, key=["title"], policies={"reasons": "accumulate"}).name
        'BookInterest'
    """

    def __init__(self) -> None:
        self._specs: dict[str, SchemaSpec] = {}
        self._lock = threading.Lock()
        builtins: list[tuple[type[BaseModel], list[str], dict[str, str], Kind, Any]] = [
            (
                Preference,
                ["holder", "subject"],
                {"polarity": "latest_wins", "strength": "weighted", "reasons": "accumulate"},
                Kind.PREFERENCE,
                _render_preference,
            ),
            (
                Fact,
                ["subject", "attribute"],
                {"value": "latest_wins", "amount": "latest_wins", "unit": "latest_wins"},
                Kind.FACT,
                _render_fact,
            ),
            (
                Person,
                ["name"],
                {"relationship": "latest_wins", "attributes": "accumulate"},
                Kind.FACT,
                _render_person,
            ),
            (Event, [], {}, Kind.EVENT, _render_event),
        ]
        for model, key, policies, kind, render in builtins:
            self._add(model, key, policies, kind=kind, render=render, builtin=True)

    def register_builtin(
        self,
        model: type[BaseModel],
        key: Sequence[str],
        *,
        kind: Kind,
        render: Callable[[dict[str, Any]], str],
    ) -> SchemaSpec:
        """Add an engine schema (a layer's own, such as the working layer's ``TaskState``):
        users cannot replace it and the extractors do not fill it."""
        return self._add(model, key, {}, kind=kind, render=render, builtin=True)

    def _add(
        self,
        model: type[BaseModel],
        key: Sequence[str],
        policies: dict[str, str],
        *,
        kind: Kind,
        render: Callable[[dict[str, Any]], str] | None = None,
        extract: SchemaExtractor | None = None,
        builtin: bool = False,
        name: str | None = None,
    ) -> SchemaSpec:
        spec = SchemaSpec(
            name=name or model.__name__,
            model=model,
            key=list(key),
            policies=dict(policies),
            kind=kind,
            render=render,
            extract=extract,
            description=(model.__doc__ or "").strip().splitlines()[0] if model.__doc__ else "",
            builtin=builtin,
            field_names=list(model.model_fields),
        )
        with self._lock:
            self._specs[spec.name] = spec
        return spec

    def register(self, model: Any, **options: Any) -> SchemaSpec:
        """Register (or replace) a user schema: :meth:`declare` of
        ``SchemaDecl(model=model, **options)`` (the options are :class:`SchemaDecl`'s)."""
        return self.declare(SchemaDecl(model=model, **options))

    def declare(self, decl: SchemaDecl) -> SchemaSpec:
        """Register (or replace) the user schema ``decl`` (validated when it was built); a
        built-in schema's name is refused."""
        existing = self._specs.get(decl.schema_name)
        if existing is not None and existing.builtin and existing.model is not decl.model:
            raise ValidationError(
                f"{decl.schema_name} is a built-in schema; register yours under another name "
                "(name=...)"
            )
        return self._add(
            decl.model,
            list(decl.key or []),
            dict(decl.policies or {}),
            kind=Kind(decl.kind),
            render=decl.render,
            extract=decl.extract,
            name=decl.schema_name,
        )

    def get(self, name: str) -> SchemaSpec:
        spec = self._specs.get(name)
        if spec is None:
            raise ValidationError(
                f"unknown schema {name!r}; registered: {sorted(self._specs)}. Register it with "
                "Memory.register_schema(Model, key=[...])"
            )
        return spec

    def __contains__(self, name: object) -> bool:
        return name in self._specs

    def names(self) -> list[str]:
        return sorted(self._specs)

    def user_schemas(self) -> list[SchemaSpec]:
        return [s for s in self._specs.values() if not s.builtin]

    def all(self) -> list[SchemaSpec]:
        return list(self._specs.values())
