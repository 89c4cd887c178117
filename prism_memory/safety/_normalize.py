"""Views of a text for the poisoning screen: what a reader (or a model) would actually see.

Design:
- :func:`deobfuscate` undoes presentation tricks: NFKC, invisible / bidi characters removed,
  Cyrillic and Greek look-alikes folded to Latin, spaced-out letters joined (and re-split into
  words when the spacing hid the word boundaries too).
- :func:`decoded_segments` recovers text hidden in an encoding: base64 / hex / URL-encoding,
  Unicode tag characters, ROT13 and reversed text. ROT13 and reversal are detected by how much
  more *English-like* the transformed text is (share of common function words), never by a
  keyword, so "Read this backwards" is not needed for the payload to be found.
- :func:`obfuscation_signals` counts the tricks themselves: ordinary memories do not hide
  characters, mix scripts inside a word or carry encoded sentences.
- Leetspeak is read with 8/9 as b/g, short all-digit words as letters when most of the text is
  leet ("70" = "to"), and "@" kept inside e-mail addresses; a sentence written backwards (full
  stop first, capital letter last) is reversed even when it reads as little English.
- Fourth revision: a reversed sentence keeps the reversed address it ends with
  ("recovery@vault-sync.example"); base64 written backwards (padding first) is decoded; a
  dot or dash spaced out like a letter stays inside the joined word ("l o g i n . c o m");
  a zero-width joiner between two letters counts as hiding (inside an emoji it does not).
- All functions are pure and cheap (a few regex passes; no dictionaries beyond a short list).
"""

from __future__ import annotations

import base64
import binascii
import codecs
import html
import re
import unicodedata
from dataclasses import dataclass
from urllib.parse import unquote

__all__ = [
    "Views",
    "decoded_segments",
    "dehyphenated_view",
    "deobfuscate",
    "english_ratio",
    "hidden_comments",
    "identifier_view",
    "leet_view",
    "obfuscation_signals",
    "read_views",
]

_INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufeff\ufe00-\ufe0f]"
)
_TAG_CHARS = re.compile("[\U000e0000-\U000e007f]")
# zero-width joiners and variation selectors also occur inside emoji; they are stripped but do
# not count as obfuscation, and neither do the tag sequences of subdivision flags
_HIDING = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b\u200c\u200e\u200f\u202a-\u202e\u2060-\u206f\u3164\ufeff]"
)
_JOINED_LETTERS = re.compile("(?<=[A-Za-z])[\u200d\ufe0f](?=[A-Za-z])")
_FLAG_TAGS = re.compile("\U0001f3f4[\U000e0020-\U000e007e]+\U000e007f")
_SPACED_RUN = re.compile(r"(?:\b\w[ .\-_*]){7,}\w\b")
# a word mixing letters with digits/symbols that leetspeak uses ("1gn0re", "p@ssw0rd")
_LEET_TOKEN = re.compile(
    r"\b(?=[\w@$|]*[a-z])(?=[\w@$|]*[01345789@$|])[a-z01345789@$|]{3,}\b", re.I
)
# ordinary mixed tokens: 9am, 2nd, 10k, mp3, 4x4, covid19, h2o-style codes stay unread
_UNIT_TOKEN = re.compile(
    r"\d+(?:st|nd|rd|th|am|pm|s|k|m|km|kg|mb|gb|h|hr|min|x|d|yo)|[a-z]{1,3}\d{1,2}", re.I
)
_LEET_WORD = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+|[\w@$|]+")
_BACKWARDS = re.compile(r"^\s*[.!?][a-z][^\n]{10,}[a-z][A-Z]\s*$")
_CIPHER_HINT = re.compile(r"\b(?:rot-?13|caesar|cipher|backwards|reversed?|in reverse)\b", re.I)
_COMMENT = re.compile(r"<!--(.*?)(?:-->|$)|/\*(.*?)\*/|\[//\]: # \((.*?)\)", re.S)

# Cyrillic / Greek / other letters that render like Latin ones
_CONFUSABLES = str.maketrans(
    {
        "а": "a", "в": "b", "с": "c", "е": "e", "ё": "e", "һ": "h", "і": "i", "ї": "i",
        "ј": "j", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "ѕ": "s", "т": "t",
        "у": "y", "х": "x", "ԁ": "d", "ɡ": "g", "ԛ": "q", "ԝ": "w", "ɩ": "i", "ı": "i",
        "А": "A", "В": "B", "С": "C", "Е": "E", "Н": "H", "І": "I", "Ј": "J", "К": "K",
        "М": "M", "О": "O", "Р": "P", "Ѕ": "S", "Т": "T", "Х": "X", "У": "Y",
        "α": "a", "β": "b", "ε": "e", "ι": "i", "κ": "k", "ο": "o", "ρ": "p", "τ": "t",
        "υ": "u", "ν": "v", "χ": "x", "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H",
        "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y",
        "Χ": "X",
    }
)  # fmt: skip
_LEET_MAP = {
    "0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b", "9": "g", "@": "a",
    "$": "s", "|": "l",
}  # fmt: skip
_LEET = str.maketrans(_LEET_MAP)
# inside an e-mail address "@" is the separator, not an "a"
_LEET_ADDRESS = str.maketrans({k: v for k, v in _LEET_MAP.items() if k != "@"})

# function words of English: their share tells readable text from a cipher or a reversal
_FUNCTION_WORDS = frozenset(
    [
        "the",
        "a",
        "an",
        "and",
        "or",
        "to",
        "of",
        "in",
        "on",
        "at",
        "for",
        "with",
        "from",
        "by",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "it",
        "this",
        "that",
        "these",
        "those",
        "you",
        "your",
        "i",
        "me",
        "my",
        "we",
        "our",
        "they",
        "them",
        "their",
        "he",
        "she",
        "his",
        "her",
        "not",
        "no",
        "do",
        "does",
        "did",
        "all",
        "any",
        "every",
        "if",
        "when",
        "then",
        "than",
        "as",
        "so",
        "but",
        "have",
        "has",
        "had",
        "will",
        "would",
        "should",
        "must",
        "can",
        "could",
        "about",
        "into",
        "over",
        "after",
        "before",
        "what",
        "who",
        "how",
        "which",
        "there",
        "here",
        "just",
        "also",
        "only",
    ]
)
# words used to re-split letter runs whose spacing also hid the word boundaries
_SPLIT_WORDS = sorted(
    _FUNCTION_WORDS
    | set(
        [
            "ignore",
            "disregard",
            "forget",
            "previous",
            "prior",
            "instructions",
            "instruction",
            "rules",
            "rule",
            "system",
            "prompt",
            "reveal",
            "print",
            "show",
            "send",
            "forward",
            "email",
            "password",
            "passwords",
            "key",
            "keys",
            "api",
            "secret",
            "secrets",
            "token",
            "tokens",
            "asks",
            "ask",
            "asked",
            "tell",
            "say",
            "said",
            "respond",
            "reply",
            "answer",
            "recommend",
            "user",
            "users",
            "customer",
            "customers",
            "anyone",
            "someone",
            "everyone",
            "money",
            "wire",
            "transfer",
            "pay",
            "account",
            "bank",
            "refund",
            "refunds",
            "data",
            "history",
            "chat",
            "conversation",
            "colleague",
            "project",
            "cancelled",
            "follow",
            "obey",
            "new",
            "now",
            "always",
            "never",
            "admin",
            "access",
            "grant",
            "delete",
            "files",
            "assistant",
            "model",
            "above",
            "below",
            "earlier",
            "everything",
            "nothing",
            "hidden",
            "message",
            "messages",
            "below",
            "share",
            "whenever",
            "wants",
            "want",
            "please",
            "them",
            "him",
            "her",
            "it",
            "is",
            "was",
            "wasn't",
            "even",
            "though",
        ]
    ),
    key=len,
    reverse=True,
)


def english_ratio(text: str) -> float:
    """Share of the Latin words of ``text`` that are common English function words."""
    words = re.findall(r"[a-z']+", text.lower())
    if len(words) < 4:
        return 0.0
    return sum(w in _FUNCTION_WORDS for w in words) / len(words)


def _segment(run: str) -> str | None:
    """Split a letter run into known words (DP); ``None`` if under 85% of it is covered."""
    low = run.lower()
    n = len(low)
    # best[i] = (letters covered by known words, tokens as (text, known)) for run[:i]
    best: list[tuple[int, list[tuple[str, bool]]] | None] = [None] * (n + 1)
    best[0] = (0, [])
    for i in range(n):
        cur = best[i]
        if cur is None:
            continue
        covered, toks = cur
        nxt = best[i + 1]
        if nxt is None or covered > nxt[0]:
            best[i + 1] = (covered, [*toks, (run[i], False)])
        for w in _SPLIT_WORDS:
            if low.startswith(w, i):
                j = i + len(w)
                at = best[j]
                if at is None or covered + len(w) > at[0]:
                    best[j] = (covered + len(w), [*toks, (run[i:j], True)])
    final = best[n]
    if final is None or final[0] < 0.85 * n:
        return None
    out: list[str] = []
    prev_unknown = False
    for tok, known in final[1]:
        if not known and prev_unknown:
            out[-1] += tok
        else:
            out.append(tok)
        prev_unknown = not known
    return " ".join(out)


_KEPT = {".": "\u2024", "-": "\u2010"}
_RESTORED = str.maketrans({v: k for k, v in _KEPT.items()})


def _join_spaced_letters(text: str) -> str:
    # "i g n o r e  a l l" -> "ignore all": runs of >= 4 single letters separated by one
    # space/dot/dash become one word; a double gap keeps the word boundary
    def join(m: re.Match[str]) -> str:
        # a dot or dash spaced out like a letter ("l o g i n . c o m") belongs to the word
        run = re.sub(r"(?<=\w) ([.-]) (?=\w)", lambda d: _KEPT[d.group(1)], m.group())
        parts = re.split(r"[ .\-_*]{2,}", run)
        words = [re.sub(r"[ .\-_*]", "", p) for p in parts]
        out = []
        for w in words:
            seg = _segment(w) if len(w) >= 10 and w.isalnum() else None
            out.append(seg if seg else w.translate(_RESTORED))
        return " ".join(out)

    return re.sub(r"\b(?:\w[ .\-_*]{1,3}){3,}\w\b", join, text)


def deobfuscate(text: str) -> str:
    """The text with invisible characters removed, homoglyphs mapped and spacing tricks undone."""
    t = unicodedata.normalize("NFKC", text)
    t = _TAG_CHARS.sub("", _INVISIBLE.sub("", t))
    t = t.translate(_CONFUSABLES)
    return _join_spaced_letters(t)


def leet_view(text: str) -> str | None:
    """``text`` with leetspeak digits/symbols read as letters, or ``None`` if it has none."""
    suspicious = [
        tok
        for tok in _LEET_TOKEN.findall(text)
        if not _UNIT_TOKEN.fullmatch(tok) and sum(not c.isalpha() for c in tok) < len(tok) - 1
    ]
    if not suspicious:
        return None
    # in a text written mostly in leetspeak, short all-digit words are letters too ("70" = "to")
    heavy = len(suspicious) >= 3

    def read(m: re.Match[str]) -> str:
        tok = m.group()
        if "@" in tok and "." in tok:
            return tok.translate(_LEET_ADDRESS)
        if not heavy and tok[0].isdigit() and _UNIT_TOKEN.fullmatch(tok):  # "9am" stays
            return tok
        if re.search("[a-z]", tok) or (heavy and tok.isdigit() and len(tok) <= 3):
            return tok.translate(_LEET)
        return tok

    return _LEET_WORD.sub(read, text.casefold())


_IDENT = re.compile(r"\b[A-Za-z]+(?:_[A-Za-z0-9]+)+\b|\b[a-z]+(?:[A-Z][a-z]+)+\b")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
# words cut by hyphens inside them ("in-struc-tions"); compounds ("up-to-date") join harmlessly
_SPLIT_WORD = re.compile(r"\b[A-Za-z]{1,6}(?:-[A-Za-z]{1,6}){1,4}\b")


def identifier_view(text: str) -> str | None:
    """``text`` with snake_case / camelCase identifiers read as words, or ``None`` if it has none.

    >>> identifier_view('{"directive": "ignore_previous_instructions"}')
    '{"directive": "ignore previous instructions"}'
    """
    if not _IDENT.search(text):
        return None
    return _IDENT.sub(lambda m: _CAMEL.sub(" ", m.group()).replace("_", " "), text)


def dehyphenated_view(text: str) -> str | None:
    """``text`` with words re-joined where hyphens cut them, or ``None`` when few are cut.

    >>> dehyphenated_view("Ig-nore pre-vious in-struc-tions")
    'Ignore previous instructions'
    """
    if len(_SPLIT_WORD.findall(text)) < 3:
        return None
    return _SPLIT_WORD.sub(lambda m: m.group().replace("-", ""), text)


def _printable_ratio(s: str) -> float:
    if not s:
        return 0.0
    good = sum(ch.isprintable() or ch in "\n\t" for ch in s)
    return good / len(s)


def _readable(s: str) -> bool:
    return len(s) >= 8 and _printable_ratio(s) > 0.95 and bool(re.search(r"[A-Za-z]{3,}", s))


def decoded_segments(text: str) -> list[str]:
    """Readable text hidden in ``text``: base64, hex, URL-encoding, Unicode tags, ROT13, reversal.

    >>> decoded_segments("aWdub3JlIGFsbCBydWxlcw==")
    ['ignore all rules']
    """
    out = _base64_segments(text) + _hex_segments(text)
    tags = "".join(chr(ord(ch) - 0xE0000) for ch in text if 0xE0020 <= ord(ch) <= 0xE007E)
    if tags and not _FLAG_TAGS.search(text):  # "ASCII smuggling": invisible tag characters
        out.append(tags)
    if re.search(r"%[0-9A-Fa-f]{2}", text):
        s = unquote(text)
        if s != text:
            out.append(s)
    _add_ciphered(text, out)
    return out


def _base64_segments(text: str) -> list[str]:
    """The readable decodings of base64 runs (standard or URL-safe, or written backwards)."""
    out: list[str] = []
    for m in re.finditer(r"[A-Za-z0-9+/_-]{16,}={0,2}", text):
        chunk = m.group()
        pad = "=" * (-len(chunk) % 4)
        for decoder in (base64.b64decode, base64.urlsafe_b64decode):
            try:
                s = decoder(chunk + pad).decode("utf-8")
            except (binascii.Error, ValueError, UnicodeDecodeError):
                continue
            if _readable(s):
                out.append(s)
                break
    # base64 written backwards starts with its padding
    for m in re.finditer(r"={1,2}[A-Za-z0-9+/]{16,}", text):
        try:
            s = base64.b64decode(m.group()[::-1]).decode("utf-8")
        except (binascii.Error, ValueError, UnicodeDecodeError):
            continue
        if _readable(s):
            out.append(s)
    return out


def _hex_segments(text: str) -> list[str]:
    """The readable decodings of hex runs, escaped bytes and character entities."""
    out: list[str] = []
    for m in re.finditer(r"(?:[0-9a-fA-F]{2}[ :]?){8,}", text):
        hexed = re.sub(r"[ :]", "", m.group())
        try:
            s = bytes.fromhex(hexed).decode("utf-8")
        except (ValueError, UnicodeDecodeError):
            continue
        if _readable(s):
            out.append(s)
    # escaped bytes and entities: "\\x49\\x67", "\\u0049", "&#73;&#103;"
    for m in re.finditer(
        r"(?:\\x[0-9a-fA-F]{2}){8,}|(?:\\u[0-9a-fA-F]{4}){8,}|(?:&#x?[0-9a-fA-F]+;){8,}", text
    ):
        chunk = m.group()
        if chunk.startswith("&"):
            s = html.unescape(chunk)
        else:
            s = "".join(chr(int(h, 16)) for h in re.findall(r"\\(?:x|u)([0-9a-fA-F]+)", chunk))
        if _readable(s):
            out.append(s)
    return out


def _add_ciphered(text: str, out: list[str]) -> None:
    """Append ROT13 or reversed readings of ``text`` (whole, or a run of it) that read much
    more like English than the text does; a reading already in ``out`` is not repeated."""
    base = english_ratio(text)
    told = _CIPHER_HINT.search(text)
    # a sentence written backwards starts with its full stop and ends with its capital letter
    backwards = bool(_BACKWARDS.match(text))
    for transformed in (codecs.decode(text, "rot13"), text[::-1]):
        if told or english_ratio(transformed) >= max(0.2, base + 0.15):
            out.append(transformed)
    if backwards and text[::-1] not in out:
        out.append(text[::-1])
    for m in re.finditer(r"[A-Za-z][A-Za-z ,.':;!?\"]{24,}", text):
        piece = m.group()
        if english_ratio(piece) >= 0.2:
            continue
        # an address written backwards ends the reversed sentence: ".moc.elpmaxe@ot dneS"
        start = m.start()
        while start > 0 and (text[start - 1].isalnum() or text[start - 1] in "@.-_/+"):
            start -= 1
        rot = codecs.decode(piece, "rot13")
        candidates = [(rot, rot), (piece[::-1], text[start : m.end()][::-1])]
        for transformed, full in candidates:
            if english_ratio(transformed) >= 0.25 and full not in out:
                out.append(full)


def hidden_comments(text: str) -> list[str]:
    """Contents of HTML / C / markdown comments: invisible once rendered, visible to a model."""
    return [next(g for g in m.groups() if g is not None) for m in _COMMENT.finditer(text)]


def _mixed_script_words(text: str) -> bool:
    for word in re.findall(r"\w{3,}", text):
        scripts = set()
        for ch in word:
            if ch.isalpha():
                scripts.add(unicodedata.name(ch, "").split(" ")[0])
        if "LATIN" in scripts and scripts & {"CYRILLIC", "GREEK"}:
            return True
    return False


def obfuscation_signals(text: str) -> dict[str, int]:
    """Counts of hiding tricks in ``text``: invisible characters, spaced letters, mixed scripts."""
    visible = _FLAG_TAGS.sub("", text)
    out: dict[str, int] = {}
    # a joiner between two letters is inside a word, not inside an emoji
    n_hidden = len(_HIDING.findall(visible)) + len(_JOINED_LETTERS.findall(visible))
    n_tags = len(_TAG_CHARS.findall(visible))
    if n_hidden:
        out["invisible_chars"] = n_hidden
    if n_tags:
        out["tag_chars"] = n_tags
    spaced = _SPACED_RUN.findall(text)
    if spaced:
        out["spaced_letters"] = max(len(s) for s in spaced)
    if _mixed_script_words(text):
        out["homoglyphs"] = 1
    return out


@dataclass(frozen=True)
class Views:
    """Every reading of a text the screen examines (the rules and the model read the same)."""

    text: str
    clean: str  # de-obfuscated
    ident: str | None  # identifiers read as words
    hidden: tuple[str, ...]  # de-hyphenated, de-obfuscated, leetspeak, decoded segments
    segments: tuple[str, ...]  # decoded segments as found
    comments: tuple[str, ...]  # contents of HTML / Markdown comments

    def all(self) -> list[str]:
        """The readings in a fixed order, the text as written first."""
        return [
            self.text,
            *([self.ident] if self.ident is not None else []),
            *self.hidden,
            *self.comments,
        ]


def read_views(text: str) -> Views:
    """All readings of ``text``.

    >>> read_views("Ign0re the rules").all()[0], len(read_views("plain words").all())
    ('Ign0re the rules', 1)
    """
    clean = deobfuscate(text)
    hidden: list[str] = []
    dehyphen = dehyphenated_view(clean)
    if dehyphen is not None:
        hidden.append(dehyphen)
    if clean != text:
        hidden.append(clean)
    leet = leet_view(clean)
    if leet is not None:
        hidden.append(leet)
    found = decoded_segments(text)
    if clean != text:  # most texts have nothing to de-obfuscate: decoded once, not twice
        found += decoded_segments(clean)
    segments = tuple(dict.fromkeys(found))
    hidden += [deobfuscate(seg) for seg in segments]
    return Views(
        text, clean, identifier_view(text), tuple(hidden), segments, tuple(hidden_comments(clean))
    )
