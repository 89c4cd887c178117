"""The synthetic memories and queries of ``prism bench scale`` (and ``prism bench serve``).

Design: short texts from templates and a random vocabulary, reproducible from a seed; an
optional share of long texts (600-2,800 characters of template sentences, like a long assistant
reply); queries from their own templates, each asked in one user's scope. Pure functions of
their seeds, so a run's texts (and the vectors embedded from them) can be rebuilt.
"""

from __future__ import annotations

import random
from typing import Any

__all__ = ["KIND_TO_LAYER", "NAMES", "long_text", "make_queries", "make_texts"]

# -- synthetic data ------------------------------------------------------------------------
NAMES = [
    "Alice", "Bruno", "Chen", "Dara", "Elif", "Farid", "Grace", "Hugo", "Ines", "Jonas",
    "Kaito", "Lena", "Marco", "Nadia", "Omar", "Priya", "Quinn", "Rosa", "Sven", "Tariq",
    "Uma", "Viktor", "Wen", "Yara", "Zoe", "Malik", "Sofia", "Ivan", "Leila", "Tom",
]  # fmt: skip
CITIES = [
    "Lisbon", "Kyoto", "Nairobi", "Oslo", "Lima", "Hanoi", "Montreal", "Seville", "Tbilisi",
    "Cape Town", "Reykjavik", "Porto", "Marrakesh", "Krakow", "Austin", "Melbourne", "Bergen",
    "Valparaiso", "Istanbul", "Edinburgh",
]  # fmt: skip
FOODS = [
    "ramen", "falafel", "sourdough", "green curry", "tapas", "dumplings", "paella", "tacos",
    "mezze", "pho", "risotto", "bibimbap", "ceviche", "goulash", "pierogi", "shakshuka",
]  # fmt: skip
PROJECTS = [
    "billing", "onboarding", "search", "mobile app", "data warehouse", "pricing", "design system",
    "migration", "analytics", "support portal", "checkout", "recommendations",
]  # fmt: skip
THINGS = [
    "the kitchen renovation", "a new laptop", "the wedding", "summer camp", "the road trip",
    "a bike", "language classes", "the garden", "a used car", "concert tickets", "the move",
]  # fmt: skip
ALLERGENS = ["peanuts", "shellfish", "gluten", "cats", "pollen", "penicillin", "dairy", "bees"]
SKILLS = [
    "piano", "pottery", "Spanish", "rock climbing", "sailing", "chess", "watercolour", "Rust",
    "salsa", "woodworking", "photography", "Japanese",
]  # fmt: skip
DEVICES = ["dishwasher", "router", "phone", "printer", "car battery", "heater", "laptop", "camera"]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
MONTHS = [
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
]  # fmt: skip
PLACES = ["harbour", "old town", "night market", "botanical garden", "museum", "beach", "castle"]
REASONS = ["the price", "the noise", "battery life", "the commute", "a doctor's advice", "taste"]

TEMPLATES: list[tuple[str, str]] = [
    ("preference", "{name} prefers {food} for dinner when travelling to {city}"),
    ("event", "Meeting with {name} about the {project} project on {weekday} at {hour}:00"),
    ("fact", "My budget for {thing} is {amount} euros"),
    ("fact", "{name} is allergic to {allergen}"),
    ("event", "I started learning {skill} in {month} {year}"),
    ("event", "The {device} stopped working on {weekday} after the {project} deadline"),
    ("event", "Remind me to call {name} about {thing} next {weekday}"),
    ("event", "We visited {city} with {name} in {month} and loved the {place}"),
    ("preference", "{name}'s favourite dish is {food}, ideally with friends from {city}"),
    ("preference", "I switched from {skill} lessons to {skill2} because of {reason}"),
    ("fact", "{name} moved to {city} in {year} to work on {project}"),
    ("preference", "I never book flights before {hour}:00 and always ask for an aisle seat"),
    ("fact", "Our {project} retro is every second {weekday}; {name} takes the notes"),
    ("event", "Paid {amount} euros for {thing} on {month} {day}"),
]
QUERY_TEMPLATES = [
    "what does {name} like to eat in {city}?",
    "when is the meeting about the {project} project?",
    "how much is the budget for {thing}?",
    "who is allergic to {allergen}?",
    "when did I start learning {skill}?",
    "what broke after the {project} deadline?",
    "which trip to {city} did we enjoy?",
    "why did I stop the {skill} lessons?",
    "where does {name} live now?",
    "what did I pay for {thing}?",
]
KIND_TO_LAYER = {"preference": "semantic", "fact": "semantic", "event": "episodic"}


def _slots(rng: random.Random) -> dict[str, Any]:
    skill, skill2 = rng.sample(SKILLS, 2)
    return {
        "name": rng.choice(NAMES),
        "city": rng.choice(CITIES),
        "food": rng.choice(FOODS),
        "project": rng.choice(PROJECTS),
        "thing": rng.choice(THINGS),
        "allergen": rng.choice(ALLERGENS),
        "skill": skill,
        "skill2": skill2,
        "device": rng.choice(DEVICES),
        "weekday": rng.choice(WEEKDAYS),
        "month": rng.choice(MONTHS),
        "place": rng.choice(PLACES),
        "reason": rng.choice(REASONS),
        "hour": rng.randint(7, 20),
        "day": rng.randint(1, 28),
        "year": rng.randint(2015, 2024),
        "amount": rng.randrange(50, 20000, 10),
    }


#: openers and links of a long text: an assistant's reply or a pasted note that runs on
LONG_OPENERS = [
    "Here is a summary of what we discussed so far.",
    "Sure, let me go through the details one by one.",
    "I went through your notes from last month and put them in order.",
    "Thanks for the update; here is how everything fits together.",
]
LONG_LINKS = ["Also,", "Besides that,", "On a related note,", "Separately,", "For context,", ""]


def long_text(rng: random.Random) -> str:
    """One long memory (about 600 to 2,800 characters): an opener, then 10 to 36 sentences
    from the templates, some with a linking phrase, like a long assistant reply."""
    parts = [rng.choice(LONG_OPENERS)]
    for _ in range(rng.randint(10, 36)):
        sentence = rng.choice(TEMPLATES)[1].format(**_slots(rng))
        link = rng.choice(LONG_LINKS)
        parts.append(f"{link} {sentence[0].lower()}{sentence[1:]}." if link else f"{sentence}.")
    return " ".join(parts)


def make_texts(n: int, seed: int = 7, long_share: float = 0.0) -> list[tuple[str, str]]:
    """``n`` deterministic ``(kind, text)`` pairs (varied, mostly unique): short template
    sentences, and a ``long_share`` of long texts (kind ``event``, see :func:`long_text`).

    >>> [k for k, _ in make_texts(3)], len(make_texts(1, long_share=1.0)[0][1]) > 300
    (['event', 'event', 'fact'], True)
    """
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        if long_share > 0 and rng.random() < long_share:
            out.append(("event", long_text(rng)))
        else:
            kind, template = rng.choice(TEMPLATES)
            out.append((kind, template.format(**_slots(rng))))
    return out


def make_queries(n: int, users: int, seed: int = 11) -> list[tuple[str, str]]:
    """``n`` deterministic ``(user_id, query)`` pairs."""
    rng = random.Random(seed)
    return [
        (f"user-{rng.randrange(users):04d}", rng.choice(QUERY_TEMPLATES).format(**_slots(rng)))
        for _ in range(n)
    ]


# -- measurement helpers ---------------------------------------------------------------------
