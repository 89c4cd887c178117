"""Link keys: the people, places, things and events a record mentions, as the graph's nodes."""

from __future__ import annotations

from prism_memory.links import keys_of_payload, link_keys
from prism_memory.records import MemoryRecord


def test_a_stated_alias_keys_the_record_by_name_and_by_relation() -> None:
    keys = link_keys("My sister Maya moved to Lisbon last spring.")
    assert {"maya", "sister", "lisbon"} <= set(keys)
    # the comma and "named" forms are the same coreference
    assert {"rex", "dog"} <= set(link_keys("Our dog, Rex, hates the rain."))
    assert {"sam", "boss"} <= set(link_keys("my boss named Sam called twice"))


def test_a_relation_without_a_name_still_links_to_the_named_one() -> None:
    # "my sister" alone shares the key ``sister`` with "my sister Maya ..."
    assert "sister" in link_keys("I visited my sister yesterday.")
    assert "sister" in link_keys("My sister Maya moved to Lisbon.")


def test_names_things_and_events_are_keys_but_sentence_openers_are_not() -> None:
    keys = link_keys("Yesterday we went camping near Lake Tahoe. The kids loved a pottery class.")
    assert {"lake tahoe", "camping", "kid", "pottery", "class"} <= set(keys)
    assert "yesterday" not in keys and "the" not in keys
    assert link_keys("Thanks! That was great.") == []


def test_the_speakers_own_name_is_not_a_key() -> None:
    assert "melanie" not in link_keys("Melanie here: I love Melanie's garden", speaker="Melanie")


def test_the_payload_carries_link_keys_and_drops_them_on_read() -> None:
    r = MemoryRecord(text="My brother Tom runs a bakery in Porto", user_id="u")
    payload = r.to_payload()
    assert {"tom", "brother", "porto", "bakery"} <= set(payload["link_keys"])
    assert MemoryRecord.from_payload(payload) == r  # derived, never a model field


def test_a_record_written_before_the_field_gets_its_keys_from_its_text() -> None:
    old = {"text": "Went hiking with my friend Ana", "speaker": "Bo"}
    assert {"ana", "friend", "hiking"} <= set(keys_of_payload(old))
    assert keys_of_payload({"text": "x", "link_keys": ["kept"]}) == ["kept"]
