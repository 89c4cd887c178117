"""How a fact, preference or person card reads when it was said in Chinese.

Design: a record's fields keep language-neutral slot names (``age``, ``home city``,
``birthday``), so a value said in English and one said in Chinese fill the same slot and
supersede each other. Only the rendered ``text`` follows the language of the values: a record
whose holder or value is Chinese reads as Chinese (``李明杰今年32岁``, ``李华的生日：10月8日``,
``王丽娟（婶婶）：身高150cm；喜欢跳舞``), with no English glue (``'s``, ``likes``,
``years old``). ``schemas.py`` calls :func:`is_chinese_fields` and, when true, these renderers.
"""

from __future__ import annotations

import re
from typing import Any

from .zh_lexicon import ZH_ATTRIBUTE_LABELS

__all__ = [
    "is_chinese_fields",
    "person_entry_zh",
    "render_fact_zh",
    "render_person_zh",
    "render_preference_zh",
]

_HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_POLARITY = {"like": "喜欢", "dislike": "不喜欢", "avoid": "避免", "need": "需要"}
_POLARITY_EN = {"likes": "喜欢", "dislikes": "不喜欢", "avoids": "避免", "needs": "需要"}
# slots that read as a sentence: "<who><phrase><value><tail>"
_PHRASES = {
    "age": ("", "岁"),
    "home city": ("住在", ""),
    "occupation": ("的职业是", ""),
    "workplace": ("在", "工作"),
    "hometown": ("的老家是", ""),
    "diet": ("的饮食：", ""),
    "commute": ("通勤", ""),
    "education": ("在读", ""),
    "school": ("毕业于", ""),
}


def is_chinese_fields(*values: object) -> bool:
    """True when any of the values (holder, subject, value...) holds Chinese characters."""
    return any(isinstance(v, str) and _HAN.search(v) for v in values)


def _who(name: object) -> str:
    text = str(name or "user")
    return "用户" if text == "user" else text


def render_fact_zh(f: dict[str, Any]) -> str:
    """``李明杰32岁``, ``钱雨住在杭州``, ``李华平时用的是雅漾的喷雾``, ``李华的血型：O型``.

    >>> render_fact_zh({"attribute": "home city", "value": "杭州", "subject": "钱雨"})
    '钱雨住在杭州'
    """
    who, value, attribute = _who(f.get("subject")), str(f.get("value")), str(f.get("attribute"))
    predicate = f.get("predicate")
    if predicate:
        return f"{who}{predicate}{value}"
    if predicate == "":  # a statement that reads as said ("在学吉他")
        return f"{who}{value}"
    if value.startswith("已") and attribute in ("workplace", "occupation"):
        return f"{who}{value}"  # 已离职, 已退休
    if attribute in _PHRASES:
        before, after = _PHRASES[attribute]
        return f"{who}{before}{value}{after}"
    return f"{who}的{ZH_ATTRIBUTE_LABELS.get(attribute, attribute)}：{value}"


def render_preference_zh(f: dict[str, Any]) -> str:
    """``李华喜欢周杰伦（歌手）``.

    >>> render_preference_zh({"subject": "香菜", "polarity": "avoid", "holder": "小陈"})
    '小陈避免香菜'
    """
    text = (
        f"{_who(f.get('holder'))}{_POLARITY.get(str(f.get('polarity')), '喜欢')}{f.get('subject')}"
    )
    if f.get("category") and str(f["category"]) not in str(f.get("subject")):
        text += f"（{f['category']}）"
    return text


def person_entry_zh(entry: object) -> str:
    """One card entry as read: ``age: 32`` -> ``32岁``, ``likes 跳舞`` -> ``喜欢跳舞``."""
    text = str(entry)
    key, sep, value = text.partition(": ")
    if sep:
        if key in _PHRASES and key not in ("diet",):
            before, after = _PHRASES[key]
            return f"{before.removeprefix('的')}{value}{after}"
        return f"{ZH_ATTRIBUTE_LABELS.get(key, key)}{value}"
    verb, space, rest = text.partition(" ")
    if space and verb in _POLARITY_EN:
        return f"{_POLARITY_EN[verb]}{rest}"
    return text


def render_person_zh(f: dict[str, Any]) -> str:
    """``王丽娟（婶婶）：身高150cm；喜欢跳舞`` or ``人物：王丽娟（婶婶）``."""
    name = str(f.get("name"))
    rel = f"（{f['relationship']}）" if f.get("relationship") else ""
    if not f.get("attributes"):
        return f"人物：{name}{rel}"
    return f"{name}{rel}：" + "；".join(person_entry_zh(a) for a in f["attributes"][-8:])
