"""Sentences, clauses and speech acts: what part of a turn states something about someone.

Design:
- :func:`split_sentences` cuts a turn into sentences (English and Chinese). A period after a
  known abbreviation ("Dr.", "St.", "e.g.", "a.m."), an initial ("J. K.") or inside a number
  ("3.5") does not end a sentence; a Chinese sentence ends at 。！？；.
- :func:`speech_act` says what a sentence does. Only a ``"statement"`` can yield a fact:
  questions, hypotheticals ("if I ever...", "suppose", "imagine"), reported speech ("people
  say", "the article says"), sarcasm (an ironic opener such as "oh sure" or "yeah, because"
  with an over-the-top liking: "I just LOVE", "my absolute favourite"), wishes and chit-chat
  yield none. Quoted text is never the speaker's own claim: :func:`drop_quotes` removes it.
- :func:`expand_contractions` rewrites "I'm", "don't", "she's" ... so clause patterns see one
  spelling; :func:`split_clauses` cuts a sentence at clause boundaries (";", ", and I", " but ",
  ", so ...") and drops subordinate reason clauses' markers.
- Everything is regex and word lists: no model, no network, microseconds per sentence.
"""

from __future__ import annotations

import re
from typing import Literal

__all__ = [
    "SpeechAct",
    "drop_quotes",
    "expand_contractions",
    "is_cjk",
    "speech_act",
    "split_clauses",
    "split_sentences",
]

SpeechAct = Literal[
    "statement", "question", "hypothetical", "reported", "sarcasm", "chitchat", "wish"
]

# -- sentence splitting ---------------------------------------------------------------
_ABBREVIATIONS = frozenset(
    [
        "mr",
        "mrs",
        "ms",
        "mx",
        "dr",
        "prof",
        "st",
        "sr",
        "jr",
        "mt",
        "ft",
        "no",
        "nos",
        "vs",
        "etc",
        "eg",
        "e.g",
        "ie",
        "i.e",
        "cf",
        "approx",
        "dept",
        "est",
        "inc",
        "ltd",
        "co",
        "corp",
        "ave",
        "rd",
        "blvd",
        "hwy",
        "apt",
        "fig",
        "vol",
        "ch",
        "sec",
        "p",
        "pp",
        "al",
        "gen",
        "col",
        "lt",
        "sgt",
        "capt",
        "cmdr",
        "rev",
        "hon",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
        "mon",
        "tue",
        "tues",
        "wed",
        "thu",
        "thur",
        "thurs",
        "fri",
        "sat",
        "sun",
        "a.m",
        "p.m",
        "am",
        "pm",
        "u.s",
        "u.k",
        "us",
        "uk",
        "ph.d",
        "phd",
        "b.a",
        "m.a",
        "b.sc",
        "m.sc",
    ]
)
_SENT_END = re.compile(r"([.!?…]+|[。！？；;\n]+)([\"'”’)\]]*)(\s+|$|(?=[^\x00-\x7f]))")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


def is_cjk(text: str) -> bool:
    """True when the text contains Chinese characters."""
    return _CJK.search(text) is not None


def _ends_with_abbreviation(before: str) -> bool:
    m = re.search(r"([A-Za-z][A-Za-z.]*)$", before)
    if m is None:
        return False
    word = m.group(1).lower().rstrip(".")
    if word in _ABBREVIATIONS:
        return True
    return len(word) == 1 and m.group(1)[0].isupper()  # an initial: "J. K. Rowling"


def split_sentences(text: str) -> list[str]:
    """Sentences of a turn, abbreviation-aware.

    >>> split_sentences("I work at St. Mary's hospital. Dr. Lee is my boss! Ok?")
    ["I work at St. Mary's hospital.", 'Dr. Lee is my boss!', 'Ok?']
    >>> split_sentences("我喜欢川菜。你呢？")
    ['我喜欢川菜。', '你呢？']
    """
    out: list[str] = []
    start = 0
    for m in _SENT_END.finditer(text):
        punct = m.group(1)
        end = m.end(2)
        if punct == ".":
            before = text[start : m.start(1)]
            after = text[m.end() : m.end() + 2]
            if _ends_with_abbreviation(before):
                continue
            if re.search(r"\d$", before) and re.match(r"\d", text[m.end(1) : m.end(1) + 1]):
                continue  # 3.5
            if after[:1].islower():
                continue  # "e.g. paris" or a period inside a lower-case run
        piece = text[start:end].strip()
        if piece:
            out.append(piece)
        start = m.end()
    tail = text[start:].strip()
    if tail:
        out.append(tail)
    return out


# -- contractions and quotes ----------------------------------------------------------
_CONTRACTIONS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\b(can)'t\b", re.I), r"\1 not"),
    (re.compile(r"\bwon't\b", re.I), "will not"),
    (re.compile(r"\bshan't\b", re.I), "shall not"),
    (re.compile(r"\b(\w+)n't\b", re.I), r"\1 not"),
    (re.compile(r"\b(I)'m\b", re.I), r"\1 am"),
    (re.compile(r"\b(\w+)'re\b", re.I), r"\1 are"),
    (re.compile(r"\b(\w+)'ve\b", re.I), r"\1 have"),
    (re.compile(r"\b(\w+)'ll\b", re.I), r"\1 will"),
    (re.compile(r"\b(I|you|we|they|he|she)'d\s+(been|had|gone|got|done)\b", re.I), r"\1 had \2"),
    (re.compile(r"\b(I|you|we|they|he|she|it|that)'d\b", re.I), r"\1 would"),
    (
        re.compile(r"\b(he|she|it|that|there|who|what|here)'s\s+(been|got|gone|had)\b", re.I),
        r"\1 has \2",
    ),
    (re.compile(r"\b(he|she|it|that|there|who|what|here|where|how)'s\b", re.I), r"\1 is"),
    (re.compile(r"\b(let)'s\b", re.I), r"\1 us"),
    (re.compile(r"\bgonna\b", re.I), "going to"),
    (re.compile(r"(?<!\w)'cause\b|\bcuz\b|\bcoz\b", re.I), "because"),
    (re.compile(r"\bwanna\b", re.I), "want to"),
]


_SLANG = re.compile(r"gonna|wanna|\bcuz\b|\bcoz\b", re.I)


def expand_contractions(text: str) -> str:
    """One spelling for contracted forms.

    >>> expand_contractions("I'm sure she's fine, but I can't go and we'd rather not")
    'I am sure she is fine, but I can not go and we would rather not'
    """
    text = text.replace("\u2019", "'").replace("\u2018", "'")
    if "'" not in text and not _SLANG.search(text):
        return text
    for pattern, repl in _CONTRACTIONS:
        text = pattern.sub(repl, text)
    return text


_QUOTED = re.compile(
    r"\"[^\"]{1,200}\"|“[^”]{1,200}”|「[^」]{1,200}」|『[^』]{1,200}』|"
    r"(?<![\w])'(?=\w)(?:[^']|(?<=\w)'(?=\w)){1,200}'(?![\w])"
)


_SAID_BEFORE = re.compile(
    r"(?:\b(?:says?|said|saying|quote[sd]?|quoting|told|tells|asked|asks|wrote|writes|"
    r"line|motto|slogan|replied|goes|went|like|yelled|shouted|whispered)|[:,])\s*$",
    re.I,
)
_FIRST_PERSON = re.compile(r"\b(?:I|me|my|we|us|our)\b|我", re.I)


def drop_quotes(text: str) -> str:
    """The text without quoted speech (someone's words are not the speaker's claim); a quoted
    title ("I loved 'Becoming Nicole'") stays, without its quote marks.

    >>> drop_quotes("There's a line, 'I'll be back', everyone quotes.")
    "There's a line, , everyone quotes."
    >>> drop_quotes('I loved "Becoming Nicole" as a teen')
    'I loved Becoming Nicole as a teen'
    """
    text = text.replace("\u2019", "'").replace("\u2018", "'")

    def repl(m: re.Match[str]) -> str:
        inner = m.group(0)[1:-1]
        speech = _SAID_BEFORE.search(text[: m.start()]) or _FIRST_PERSON.search(inner)
        return "" if speech or len(inner.split()) > 6 else inner

    return _QUOTED.sub(repl, text)


# -- speech acts ----------------------------------------------------------------------
_EN_QUESTION_START = re.compile(
    r"^\s*(?:(?:so|and|but|ok|okay|well|hmm|oh|also|anyway)[,\s]+)*"
    r"(?:(?:what|how|why|who|whom|whose|which)\b(?!\s+(?:a|an)\s)|"
    r"(?:where|when)\s+(?:do|does|did|is|are|was|were|can|could|should|will|would|shall)\b|"
    r"(?:do|does|did|is|are|was|were|can|could|should|will|would|shall|may|might|have|has)\s+"
    r"(?:you|i|we|it|there|they|he|she|this|that|anyone|somebody|someone)\b|"
    r"any\s+(?:ideas?|tips|suggestions?|thoughts|recommendations?)\b|"
    r"(?:is|are)\s+there\b)",
    re.I,
)
_ZH_QUESTION = re.compile(
    r"[吗呢嘛]\s*[。！!]?$|什么|怎么|为什么|哪[里儿个些家]|谁|多少|几[个点天]|是不是|能不能|可不可以|有没有|要不要"
)
_HYPOTHETICAL = re.compile(
    r"^\s*(?:(?:so|and|but|well|hmm|oh|ok|okay)[,\s]+)*"
    r"(?:if|suppose|supposing|imagine|assuming|hypothetically|in case|what if|say\s+(?:I|we)\b|"
    r"in\s+my\s+(?:dreams?|head|fantasy|fantasies)|in\s+theory|ideally|in\s+an\s+ideal\s+world|"
    r"let\s+us\s+say|let's\s+say|even if|unless|were I|had I)\b",
    re.I,
)
# question words used as "any-": 什么都吃, 谁都知道, 哪儿都去 ask nothing
_ZH_INDEFINITE = re.compile(r"(?:什么|谁|哪[里儿个些家]|怎么|多少)(?:都|也)")
_ZH_HYPOTHETICAL = re.compile(r"如果|假如|要是|万一|假设|假使|倘若|的话|即使|就算|想象一下")
_WISH = re.compile(
    r"\bI\s+(?:wish|would\s+love\s+to\s+someday|dream\s+of)\b|"
    r"\bI\s+wonder\b|\bI\s+am\s+wondering\b|\bI\s+was\s+wondering\b|"
    r"\bI\s+(?:would|might|could)\s+(?:probably|maybe|possibly|perhaps)\b",
    re.I,
)
_REPORTED = re.compile(
    r"^\s*(?:people|they|everyone|everybody|someone|somebody|the\s+\w+|an?\s+\w+|"
    r"(?:my|our|his|her)\s+\w+(?:\s+\w+)?|he|she|[A-Z][a-z]+)\s+"
    r"(?:says?|said|claims?|claimed|thinks?|thought|told\s+me|tells\s+me|reckons?|"
    r"believes?|mentioned|wrote|writes|argues?|argued|insists?|insisted|swears?)\b"
    r"(?!\s+(?:that\s+)?(?:I|we)\s)",
    re.I,
)
_ZH_REPORTED = re.compile(r"^(?:听说|据说|人们说|大家都说|有人说|他们说|网上说|新闻说|文章说)")
_SARCASM_OPENER = re.compile(
    r"^\s*(?:oh\s+)?(?:sure|great|yeah|yes|right|wonderful|fantastic|perfect|brilliant|"
    r"totally|of course)\b[\s,!.]*(?:because\b|just\b|I\s+just\b|nothing\b)?|"
    r"^\s*oh\s+(?:joy|boy|great|wonderful|yes)\b|\byeah\s+right\b",
    re.I,
)
_SARCASM_EMPHASIS = re.compile(
    r"\b(?:LOVE|LIKE|ADORE|ENJOY|AMAZING|FAVOU?RITE|GREAT|BEST)\b|"
    r"\b(?:absolute|all-time|very)\s+favou?rite\b|\bfavou?rite\s+thing\b|"
    r"\bjust\s+(?:love|adore)\b|\bnothing\s+I\s+(?:love|like|enjoy)\s+more\b|"
    r"\bcannot\s+get\s+enough\s+of\b|\bsuch\s+fun\b|/s\s*$"
)
_SARCASM_ALONE = re.compile(r"\byeah,?\s+right\b|\bas\s+if\s*[!.]*$|\bnot!\s*$|/s\s*$", re.I)
_ZH_WISH = re.compile(r"^(?:我|我们)?(?:真|好|多么)?(?:希望|但愿|梦想着?|巴不得|真想|好想|多想)")
_ZH_SARCASM_OPENER = re.compile(r"^(?:是啊|对啊|对呀|是呀|呵呵|好啊|可不是|真是的?|行吧)")
_ZH_SARCASM_EMPHASIS = re.compile(r"最喜欢|最爱|太喜欢|真开心|真好玩|真棒|太棒了|好开心")
_CHITCHAT = re.compile(
    r"^\s*(?:(?:hi|hey|hello|good\s+(?:morning|afternoon|evening|night)|"
    r"(?:thanks|thank\s+you)(?:\s+(?:a\s+lot|so\s+much|very\s+much|again))?|much\s+appreciated|"
    r"bye|goodbye|see\s+you|ok|okay|cool|nice|great|lol|haha+|hmm+|wow|yeah|yes|no|sure|"
    r"sounds\s+good|got\s+it|awesome|perfect|congrats|congratulations|"
    r"let\s+(?:me|us)\s+think(?:\s+about\s+it)?|that\s+is\s+(?:great|helpful|nice|cool|amazing)|"
    r"let\s+us\s+move\s+on|never\s*mind|no\s+worries|fair\s+enough|"
    r"你好|谢谢|好的|再见|哈哈+|太好了|没问题|嗯+)[\s,.!?~。！？，]*)+$",
    re.I,
)


def speech_act(sentence: str) -> SpeechAct:
    """What a sentence does; only a ``"statement"`` can yield a fact.

    >>> [speech_act(s) for s in ("What about dinner tonight?", "If I ever move, I'd rent.",
    ...  "Oh sure, I just LOVE queues.", "I work as a nurse.", "Thanks!")]
    ['question', 'hypothetical', 'sarcasm', 'statement', 'chitchat']
    """
    s = expand_contractions(sentence.strip())
    if not s:
        return "chitchat"
    if _CHITCHAT.match(s):
        return "chitchat"
    stripped = s.rstrip(" \"'”’)]~")
    if stripped.endswith(("?", "？")):
        return "question"
    if is_cjk(s):
        if _ZH_HYPOTHETICAL.search(s):
            return "hypothetical"
        if _ZH_QUESTION.search(_ZH_INDEFINITE.sub("", s)):
            return "question"
        if _ZH_REPORTED.search(s):
            return "reported"
        if _ZH_SARCASM_OPENER.search(s) and _ZH_SARCASM_EMPHASIS.search(s):
            return "sarcasm"
        if _ZH_WISH.search(s):
            return "wish"
        return "statement"
    if _EN_QUESTION_START.match(s):
        return "question"
    if _HYPOTHETICAL.match(s):
        return "hypothetical"
    if (_SARCASM_OPENER.search(s) and _SARCASM_EMPHASIS.search(s)) or _SARCASM_ALONE.search(s):
        return "sarcasm"
    if _REPORTED.match(s):
        return "reported"
    if _WISH.search(s):
        return "wish"
    return "statement"


# -- clauses --------------------------------------------------------------------------
_CLAUSE_BREAK = re.compile(
    r"\s*[;:]\s+|\s*,\s*(?=(?:and|but|so|or|yet|plus|while|whereas|though|although)?\s*"
    r"(?:I|we|he|she|they|my|our|his|her|their)\b)|"
    r"\s*,?\s+(?:but|yet)\s+(?=(?:I|we|he|she|they|my|our)\b)|"
    r"\s*,?\s+(?=(?:whereas|while|although|though)\s+(?:I|we|he|she|they|my|our)\b)|"
    r"\s+and\s+(?=(?:I|we|he|she|they|it|there)\s)|"
    r"\s+[-–—]+\s+|"
    r"\s*,?\s+(?=(?:because|since|as|so)\s+(?:I|we|he|she|they|my|our|it)\b)|"
    r"\s*,\s+(?=(?:so|but|and|then|plus|also|though)\b)|"
    r"\s*,\s*(?=(?:remind|don't|do\s+not|let\s+me|tell\s+me|check|keep)\b)",
    re.I,
)
_ZH_CLAUSE_BREAK = re.compile(r"[，,；;：:、]\s*")
_LEADING_JOINERS = re.compile(r"^(?:and|but|so|or|yet|plus|then|also)\b[\s,]*", re.I)


def split_clauses(sentence: str) -> list[str]:
    """Clauses of one sentence (joining words dropped), in order.

    >>> split_clauses("I speak Arabic fluently, and I am learning Japanese")
    ['I speak Arabic fluently', 'I am learning Japanese']
    >>> split_clauses("我姐姐是老师，在南京教书。")
    ['我姐姐是老师', '在南京教书']
    """
    text = sentence.strip().rstrip(".!?。！？…")
    if is_cjk(text):
        parts = _ZH_CLAUSE_BREAK.split(text)
    else:
        # "My partner Tom and I want ...": a short noun phrase before "and I" is a compound
        # subject, not a clause of its own
        text = _COMPOUND_SUBJECT.sub(lambda m: m.group(0).replace(" and ", " and\x00"), text)
        parts = [p.replace("\x00", " ") for p in _CLAUSE_BREAK.split(text)]
    out = []
    for part in parts:
        part = _LEADING_JOINERS.sub("", part.strip(" ,;:-—–")).strip(" ,;:-—–")
        if part:
            out.append(part)
    return out


_COMPOUND_SUBJECT = re.compile(
    r"(?:^|(?<=[,;:!.]\s))(?:(?:[Mm]y|[Oo]ur)\s+)?(?:[\w-]+\s+){0,2}[\w-]+\s+and\s+(?=(?:I|we)\s)"
)
