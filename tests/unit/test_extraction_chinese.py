"""Chinese statements: names, kinship and roles, properties, birthdays, usage, moves, summaries.

Each test states what a user of the library relies on when their users speak Chinese; the
first four are the misreadings reported in issue #25.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from prism_memory import FakeEmbedder, Memory, PrismConfig
from prism_memory.extraction.chinese import ChineseExtractor
from prism_memory.extraction.dates import cn_number
from prism_memory.extraction.entities import find_entities
from prism_memory.extraction.rules import FactCandidate, extract
from prism_memory.extraction.schemas import SchemaRegistry
from prism_memory.extraction.zh_names import find_names
from prism_memory.lifecycle.consolidate import extractive_summary, is_chinese
from prism_memory.records import Layer, MemoryRecord
from prism_memory.retrieval.intent import analyze_query

BASE = datetime(2026, 5, 14, 10, 0, tzinfo=timezone(timedelta(hours=8)))


def facts(text: str, speaker: str = "李华", people: tuple[str, ...] = ()) -> list[FactCandidate]:
    return extract(text, event_time=BASE, speaker=speaker, people=people)


def person(found: list[FactCandidate], name: str) -> dict[str, object]:
    cards = [c.fields for c in found if c.schema == "Person" and c.fields.get("name") == name]
    assert cards, f"no person card for {name}: {[c.fields for c in found]}"
    return cards[0]


def about_user(found: list[FactCandidate]) -> list[dict[str, object]]:
    return [
        c.fields
        for c in found
        if c.schema in ("Fact", "Preference")
        and c.fields.get("subject", "user") in ("user", "李华")
        and c.fields.get("holder", "user") in ("user", "李华")
    ]


# -- the misreadings of issue #25 ------------------------------------------------------
def test_role_then_qi_attribute_goes_to_the_named_person_not_the_user() -> None:
    found = facts("李明杰是我的下属，其年龄是32岁。")
    card = person(found, "李明杰")
    assert card["relationship"] == "下属"
    assert card["attributes"] == ["age: 32"]
    assert not [f for f in about_user(found) if f.get("attribute") == "age"]


def test_qi_attribute_is_a_slot_not_an_attribute_named_qi() -> None:
    found = facts("王丽娟是我的婶婶，其身高是150cm。")
    card = person(found, "王丽娟")
    assert card["relationship"] == "婶婶"
    assert card["attributes"] == ["height: 150cm"]
    assert not any("其" in str(c.fields) for c in found)


def test_birthday_is_a_yearly_fact_not_a_one_off_event() -> None:
    found = facts("我的生日是十月八号。")
    assert [c.schema for c in found] == ["Fact"]
    assert found[0].fields["attribute"] == "birthday"
    assert found[0].fields["value"] == "10月8日"  # no year: it recurs
    # the same when another person's birthday is said as a date
    found = facts("下个月3号是我妈妈的生日。")
    assert [(c.schema, c.fields["value"]) for c in found] == [("Fact", "6月3日")]
    assert found[0].fields["subject"] == "李华的妈妈"


def test_what_the_user_uses_is_a_usage_fact_with_its_brand() -> None:
    found = facts("我平时用的是雅漾的舒护活泉喷雾。")
    assert [c.schema for c in found] == ["Fact"]
    assert found[0].fields["value"] == "雅漾的舒护活泉喷雾"
    assert {(e.type, e.name) for e in found[0].entities} >= {("brand", "雅漾")}
    assert not any(str(c.fields.get("subject", "")).startswith("的") for c in found)


# -- names and entities ----------------------------------------------------------------
@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("李明杰和王志宏谁更年轻？", [("李明杰", None), ("王志宏", None)]),
        ("我舅舅叫刘建国，他在广州开了一家饭店。", [("刘建国", "舅舅")]),
        ("我的领导赵刚最讨厌别人开会迟到。", [("赵刚", "领导")]),
        ("张伟今年35岁，是我大学同学。", [("张伟", "大学同学")]),
        ("王芳的生日是几号？", [("王芳", None)]),
        ("王芳下个月要来北京出差。", [("王芳", None)]),
        ("李明杰，我的同事，今年32岁。", [("李明杰", "同事")]),
        ("房东说下个月房租涨到3500元。", []),
        ("可欣是我的女朋友，她在上海做设计。", [("可欣", "女朋友")]),
        ("他们是我的同事。", []),
        ("周末下个月再说吧。", []),
        # surname-shaped words in no naming position are not names
        ("今天很高兴和李老师吃饭。", [("李老师", None)]),
        ("我叫外卖吧。", []),
        ("我妈妈是老师。", []),
    ],
)
def test_names_are_found_by_their_place_in_the_sentence(
    sentence: str, expected: list[tuple[str, str | None]]
) -> None:
    assert [(n.name, n.relationship) for n in find_names(sentence)] == expected


def test_turn_entities_and_query_entities_meet_on_chinese_names() -> None:
    tagged = {e.name for e in find_entities("李明杰是我的下属，其年龄是32岁。")}
    assert "李明杰" in tagged
    known = {"李明杰", "王志宏", "bob"}
    assert analyze_query("李明杰和王志宏谁更年轻？", known_entities=known).entities == [
        "李明杰",
        "王志宏",
    ]
    # English queries keep their whole-word matching
    assert analyze_query("what did bob say?", known_entities=known).entities == ["bob"]


def test_pronoun_without_a_named_person_is_not_attributed_to_the_user() -> None:
    assert facts("她的生日是5月20日。") == []
    found = facts("王芳是我的大学室友，她的生日是5月20日。")
    assert person(found, "王芳")["attributes"] == ["birthday: 5月20日"]


def test_a_person_named_earlier_in_the_conversation_is_the_subject() -> None:
    found = facts("张伟今年35岁。", people=("张伟",))
    assert person(found, "张伟")["attributes"] == ["age: 35"]


# -- properties ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "attribute", "value"),
    [
        ("我身高165，体重五十公斤左右。", "height", "165"),
        ("我的血型是O型。", "blood type", "O型"),
        ("我在读研究生，专业是计算机。", "major", "计算机"),
        ("我是浙江大学毕业的。", "school", "浙江大学"),
        ("我平时上班坐地铁，单程大概40分钟。", "commute", "坐地铁"),
        ("我老家是湖南长沙的。", "hometown", "湖南长沙"),
        ("我们全家已经搬去深圳了。", "home city", "深圳"),
        ("我的车是特斯拉Model 3。", "车", "特斯拉Model 3"),
        ("我叫李华，今年25岁。", "name", "李华"),
        ("我的名字是王小明。", "name", "王小明"),
    ],
)
def test_properties_of_the_user(text: str, attribute: str, value: str) -> None:
    slots = {f["attribute"]: f["value"] for f in about_user(facts(text)) if "attribute" in f}
    assert slots.get(attribute) == value


def test_favourite_is_a_preference_for_the_thing_named() -> None:
    found = facts("我最喜欢的歌手是周杰伦。")
    assert [(c.schema, c.fields["subject"], c.fields.get("category")) for c in found] == [
        ("Preference", "周杰伦", "歌手")
    ]


def test_a_change_of_an_amount_without_a_subject_is_the_speakers() -> None:
    found = facts("房东说下个月房租涨到3500元。")
    assert [(c.fields["attribute"], c.fields["amount"]) for c in found] == [("rent", 3500.0)]
    found = facts("我的预算从3000涨到了5000。")
    assert [(c.fields["attribute"], c.fields["amount"]) for c in found] == [("budget", 5000.0)]
    assert cn_number("一万二") == 12000 and cn_number("三千五") == 3500


def test_discourse_nouns_questions_wishes_and_quotes_state_nothing() -> None:
    for text in (
        "我的意思是明天再说。",
        "我的问题是电脑开不了机。",
        "李明杰多大了？",
        "我希望明年能买房。",
        "他说：“我最喜欢吃火锅。”",
        "我的心情是复杂的。",
        "我刚看完一本书，写得真不错。",
    ):
        assert facts(text) == [], text


def test_a_role_without_a_name_is_the_users_relative() -> None:
    found = facts("我女朋友不喜欢吃香菜。")  # not a person called 不喜欢
    assert [(c.fields["holder"], c.fields["subject"]) for c in found] == [("李华的女朋友", "香菜")]
    found = facts("我的邻居王阿姨养了一只金毛。")  # her dog, not the speaker's
    assert person(found, "王阿姨")["attributes"] == ["宠物: 金毛"]


def test_a_habit_is_not_a_dated_event() -> None:
    found = facts("我周末一般去图书馆看书。")
    assert not [c for c in found if c.schema == "Event"]
    assert [c.schema for c in facts("我这个周末去图书馆看书。")] == ["Event"]


def test_two_pets_each_with_its_name() -> None:
    found = facts("我家里养了两只猫，一只叫咪咪，一只叫花花。")
    assert sorted(c.fields["value"] for c in found) == ["猫 咪咪", "猫 花花"]


def test_the_extractor_keeps_the_referent_within_one_turn() -> None:
    chinese = ChineseExtractor(BASE, "李华")
    chinese.sentence("我女朋友叫林可欣。")
    later = chinese.sentence("她在上海做平面设计。")
    assert {c.fields.get("subject") for c in later if c.schema == "Fact"} == {"林可欣"}


# -- how Chinese records and summaries read --------------------------------------------
def test_chinese_records_read_as_chinese() -> None:
    registry = SchemaRegistry()
    fact = registry.get("Fact").text
    assert fact({"attribute": "home city", "value": "杭州", "subject": "钱雨"}) == "钱雨住在杭州"
    assert fact({"attribute": "birthday", "value": "10月8日", "subject": "陈晨"}) == (
        "陈晨的生日：10月8日"
    )
    card = registry.get("Person").text(
        {"name": "李明杰", "relationship": "下属", "attributes": ["age: 32", "likes 跑步"]}
    )
    assert card == "李明杰（下属）：32岁；喜欢跑步"
    # English records are unchanged
    assert fact({"attribute": "home city", "value": "Leipzig", "subject": "Lukas"}) == (
        "Lukas lives in Leipzig"
    )


def _turn(text: str, role: str, index: int) -> MemoryRecord:
    return MemoryRecord(
        text=text,
        user_id="u",
        session_id="s",
        layer=Layer.EPISODIC,
        speaker="李华" if role == "user" else "assistant",
        metadata={"role": role, "turn_index": index},
    )


def test_a_chinese_session_summary_has_no_english_glue() -> None:
    turns = [
        _turn("我下周三要去杭州出差，住三天。", "user", 0),
        _turn("好的，需要我帮你订酒店吗？", "assistant", 1),
        _turn("预算每晚500元以内。", "user", 2),
        _turn("明白了，我会找西湖附近的酒店。", "assistant", 3),
        _turn("谢谢！", "user", 4),
    ]
    summary = extractive_summary(turns)
    assert "said" not in summary and "The " not in summary
    assert summary.startswith("李华下周三要去杭州出差，住三天。")
    assert "助手说：明白了" in summary
    assert " " not in summary  # Chinese sentences take no spaces between them
    assert is_chinese([t.text for t in turns]) and not is_chinese(["I fly to Rome."])


def test_the_model_is_asked_for_a_chinese_summary_of_a_chinese_session() -> None:
    prompts: list[str] = []

    class Recording(FakeListChatModel):
        def _call(self, messages: Any, *args: Any, **kwargs: Any) -> str:
            prompts.append(str(messages[-1].content))
            return super()._call(messages, *args, **kwargs)

    config = PrismConfig()
    config.extraction.use_llm = False
    llm = Recording(responses=["李华下周三去杭州出差。", json.dumps({"insights": ["李华常出差"]})])
    memory = Memory(location=":memory:", embedder=FakeEmbedder(dim=32), llm=llm, config=config)
    try:
        memory.remember(["我下周三要去杭州出差，住三天。"], user_id="u", session_id="s")
        added = memory.end_session(user_id="u", session_id="s").added
    finally:
        memory.close()
    assert len(prompts) == 2 and all("in Chinese" in p for p in prompts)
    assert {c.record.kind.value: c.record.text for c in added}[
        "summary"
    ] == "李华下周三去杭州出差。"


def _current_and_old(turns: list[str]) -> tuple[list[str], list[str]]:
    """Texts of the current and the superseded extracted records after one session a turn."""
    memory = Memory(location=":memory:", embedder=FakeEmbedder(dim=32))
    try:
        for i, text in enumerate(turns):
            when = f"2026-0{i + 3}-02T10:00:00+08:00"
            message = {"role": "user", "content": text, "name": "李华"}
            memory.remember([message], user_id="u", session_id=f"s{i}", event_time=when)
            memory.end_session(user_id="u", session_id=f"s{i}")
        records = [
            r
            for layer in ("semantic", "episodic")
            for r in memory.list(user_id="u", layer=layer, include_history=True, limit=100)
            if r.kind.value not in ("observation", "summary")
        ]
    finally:
        memory.close()
    return [r.text for r in records if r.valid_to is None], [
        r.text for r in records if r.valid_to is not None
    ]


@pytest.mark.parametrize(
    ("turns", "now", "before"),
    [
        (["我住在上海。", "我上个月搬到了杭州。"], "李华住在杭州", "李华住在上海"),
        (
            ["我吃素三年了。", "我现在不吃素了，什么都吃。"],
            "李华的饮食：不吃素",
            "李华的饮食：素食",
        ),
        (["我在一家银行上班。", "我已经辞职了。"], "李华已离职", "李华在一家银行工作"),
        (["我的预算是每晚600元。", "预算降到400元了。"], "李华的预算：400元", "李华的预算：600元"),
        (["我男朋友叫张强。", "我和张强分手了。"], "人物：张强（前任）", "人物：张强（男朋友）"),
        (
            ["我们计划五月去成都玩。", "成都的行程取消了。"],
            "成都的行程取消了",
            "我们计划去成都玩 (2026-05)",
        ),
        (
            ["我们的婚礼定在6月18号。", "婚礼改到了7月8号。"],
            "婚礼改到了 (2026-07-08)",
            "我们的婚礼定在 (2026-06-18)",
        ),
    ],
)
def test_a_later_turn_supersedes_the_earlier_value(turns: list[str], now: str, before: str) -> None:
    current, old = _current_and_old(turns)
    assert now in current and before in old and before not in current
