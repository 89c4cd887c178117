"""PII redaction before embedding and storage.

Design:
- Pure functions over strings. Structured identifiers are found with regular expressions and
  checked where a checksum exists (Luhn for card numbers, octet ranges for IPv4, mod-97 for
  IBANs), so a random long number is not mistaken for a card.
- Each match becomes a typed placeholder (``[EMAIL]``, ``[PHONE]``, ``[CARD]``, ``[IP]``,
  ``[NATIONAL_ID]``, ``[IBAN]``): the sentence stays readable and searchable ("email me at
  [EMAIL]") while the identifier is gone before anything is embedded or written.
- Names and street addresses need NER: :func:`redact` can add Microsoft Presidio
  (``pip install 'prism-memory[pii]'``), imported lazily and only when asked for.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

__all__ = ["PII_KINDS", "PiiMatch", "find_pii", "luhn_valid", "redact", "redact_with_presidio"]

PII_KINDS: tuple[str, ...] = ("EMAIL", "CARD", "IBAN", "NATIONAL_ID", "IP", "PHONE")


@dataclass(frozen=True)
class PiiMatch:
    """One identifier found in a text: its kind and character span."""

    kind: str
    start: int
    end: int
    value: str


def luhn_valid(digits: str) -> bool:
    """True when the digit string passes the Luhn checksum (payment card numbers do)."""
    if not digits.isdigit() or not 13 <= len(digits) <= 19:
        return False
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 1:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


def _iban_valid(raw: str) -> bool:
    s = re.sub(r"\s", "", raw).upper()
    if not 15 <= len(s) <= 34:
        return False
    rearranged = s[4:] + s[:4]
    try:
        number = "".join(str(int(ch, 36)) for ch in rearranged)
    except ValueError:
        return False
    return int(number) % 97 == 1


def _ipv4_valid(raw: str) -> bool:
    parts = raw.split(".")
    return len(parts) == 4 and all(p.isdigit() and int(p) <= 255 and len(p) <= 3 for p in parts)


def _digits(raw: str) -> str:
    return re.sub(r"\D", "", raw)


# addresses in any script (RFC 6531/IDN: "zed@exämple.de", "почта@пример.рф"): a label is
# letters and digits of any script with inner hyphens; the top level is letters or punycode
_EMAIL = re.compile(
    r"(?<![\w.+-])[^\W_][\w.%+-]{0,63}@[^\W_](?:[\w-]{0,61}[^\W_])?"
    r"(?:\.[^\W_](?:[\w-]{0,61}[^\W_])?)*\.(?:[^\W\d_]{2,24}|xn--[a-z0-9-]{1,59})\b"
)
_CARD = re.compile(r"(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])")
# any case: the checksum (mod 97), not the letters' case, tells an IBAN from a word
_IBAN = re.compile(r"\b[A-Za-z]{2}\d{2}(?: ?[A-Za-z0-9]{4}){2,7}(?: ?[A-Za-z0-9]{1,4})?\b")
_NATIONAL_ID = re.compile(
    r"\b\d{3}-\d{2}-\d{4}\b"  # US SSN
    r"|\b(?!BG|GB|NK|KN|TN|NT|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b"  # UK NINO
    r"|\b\d{8}[A-HJ-NP-TV-Z]\b"  # Spanish DNI
    r"|\b[12] ?\d{2} ?(?:0[1-9]|1[0-2]) ?\d{2} ?\d{3} ?\d{3}(?: ?\d{2})?\b"  # French INSEE
    r"|\b\d{3}\.\d{3}\.\d{3}-\d{2}\b"  # Brazilian CPF
    r"|\b\d{6}[-+A]\d{3}[0-9A-Y]\b"  # Finnish HETU
    r"|\b\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])-\d{4}\b"  # Swedish personnummer
)
_IPV4 = re.compile(r"(?<![\d.])(?:\d{1,3}\.){3}\d{1,3}(?!\.?\d)")
_IPV6 = re.compile(
    r"(?<![:\w])(?:[0-9A-Fa-f]{1,4}:){7}[0-9A-Fa-f]{1,4}(?![:\w])"
    r"|(?<![:\w])(?:[0-9A-Fa-f]{1,4}:){1,6}:(?:[0-9A-Fa-f]{1,4}:){0,5}[0-9A-Fa-f]{1,4}(?![:\w])"
)
_PHONE = re.compile(
    r"(?<![\w+])(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,4}\)[ .-]?)?\d{2,5}(?:[ .-]\d{2,6}){1,4}(?![\w-])"
    r"|(?<![\w+])\+\d{8,14}(?!\w)"
)


def _phone_ok(raw: str) -> bool:
    digits = _digits(raw)
    if not 7 <= len(digits) <= 15:
        return False
    # dates and times ("2023-05-07", "12.05.2023") are not phone numbers
    if re.fullmatch(r"\d{4}[-./]\d{1,2}[-./]\d{1,2}|\d{1,2}[-./]\d{1,2}[-./]\d{2,4}", raw.strip()):
        return False
    if re.fullmatch(r"(?:19|20)\d{2}\s*[-.]\s*(?:19|20)\d{2}", raw.strip()):  # year ranges
        return False
    return raw.strip().startswith(("+", "(")) or len(digits) >= 9 or bool(re.search(r"[ .-]", raw))


_DETECTORS: tuple[tuple[str, re.Pattern[str], Callable[[str], bool]], ...] = (
    ("EMAIL", _EMAIL, lambda s: True),
    ("CARD", _CARD, lambda s: luhn_valid(_digits(s))),
    ("IBAN", _IBAN, _iban_valid),
    ("NATIONAL_ID", _NATIONAL_ID, lambda s: True),
    ("IP", _IPV4, _ipv4_valid),
    ("IP", _IPV6, lambda s: s.count(":") >= 2),
    ("PHONE", _PHONE, _phone_ok),
)


def _valid_prefix(raw: str, valid: Callable[[str], bool]) -> str:
    """The longest prefix of a grouped match ending at a group that passes ``valid``, or "":
    the pattern's last groups may be the next word ("... 1332 on the first"), which any case
    of letters now reads as a group."""
    parts = raw.split(" ")
    for k in range(len(parts) - 1, 0, -1):
        if valid(candidate := " ".join(parts[:k])):
            return candidate
    return ""


def find_pii(text: str, kinds: Iterable[str] | None = None) -> list[PiiMatch]:
    """Structured identifiers in ``text``, non-overlapping, in order of position.

    Detectors run from most to least specific (a card number is not also reported as a phone).

    >>> [m.kind for m in find_pii("mail bob@example.com or call +1 415 555 0100")]
    ['EMAIL', 'PHONE']
    """
    wanted = set(PII_KINDS if kinds is None else kinds)
    taken: list[PiiMatch] = []
    for kind, pattern, valid in _DETECTORS:
        if kind not in wanted:
            continue
        for m in pattern.finditer(text):
            raw = m.group()
            if not valid(raw):
                raw = _valid_prefix(raw, valid) if kind == "IBAN" else ""
                if not raw:
                    continue
            start, end = m.start(), m.start() + len(raw)
            if any(start < t.end and t.start < end for t in taken):
                continue
            taken.append(PiiMatch(kind, start, end, raw))
    return sorted(taken, key=lambda t: t.start)


def _apply(text: str, matches: list[PiiMatch]) -> str:
    out: list[str] = []
    pos = 0
    for m in sorted(matches, key=lambda t: t.start):
        if m.start < pos:
            continue
        out.append(text[pos : m.start])
        out.append(f"[{m.kind}]")
        pos = m.end
    out.append(text[pos:])
    return "".join(out)


def redact_with_presidio(
    text: str,
    *,
    entities: Iterable[str] = ("PERSON", "LOCATION"),
    language: str = "en",
    analyzer: Any = None,
) -> str:
    """Replace names/addresses found by Presidio with ``[PERSON]`` / ``[LOCATION]`` placeholders.

    ``analyzer`` is a ``presidio_analyzer.AnalyzerEngine`` (one is built on first use; it needs a
    spaCy model installed locally — nothing is downloaded at run time).
    """
    if analyzer is None:
        analyzer = _presidio_analyzer()
    results = analyzer.analyze(text=text, entities=list(entities), language=language)
    matches = [
        PiiMatch(str(r.entity_type), int(r.start), int(r.end), text[int(r.start) : int(r.end)])
        for r in results
    ]
    return _apply(text, _non_overlapping(matches))


def _non_overlapping(matches: list[PiiMatch]) -> list[PiiMatch]:
    kept: list[PiiMatch] = []
    for m in sorted(matches, key=lambda t: (t.start, -(t.end - t.start))):
        if not kept or m.start >= kept[-1].end:
            kept.append(m)
    return kept


_ANALYZER: list[Any] = []


def _presidio_analyzer() -> Any:
    if not _ANALYZER:
        try:
            from presidio_analyzer import AnalyzerEngine
        except ImportError as exc:
            raise ImportError(
                "name and address redaction needs Presidio: pip install 'prism-memory[pii]' "
                "(plus a local spaCy model, e.g. python -m spacy download en_core_web_lg)"
            ) from exc
        _ANALYZER.append(AnalyzerEngine())
    return _ANALYZER[0]


def redact(text: str, *, presidio: bool = False, kinds: Iterable[str] | None = None) -> str:
    """``text`` with structured identifiers replaced by typed placeholders.

    >>> redact("Card 4111 1111 1111 1111, mail ana@example.org, server 10.0.0.12")
    'Card [CARD], mail [EMAIL], server [IP]'

    With ``presidio=True`` names and locations are also replaced (needs the ``pii`` extra).
    """
    out = _apply(text, find_pii(text, kinds))
    if presidio:
        out = redact_with_presidio(out)
    return out
