"""Scores calibrated to the embedder in use, not to MiniLM's cosine spread (two embedders)."""

from __future__ import annotations

from datetime import datetime, timezone

import numpy as np
import pytest

from prism_memory import FakeEmbedder, Memory, PrismConfig
from prism_memory.retrieval.calibration import (
    REFERENCE_BASELINE,
    Calibration,
    calibrated,
    calibration_for,
)
from prism_memory.retrieval.scoring import informativeness

T0 = datetime(2024, 1, 10, tzinfo=timezone.utc)


class CrowdedEmbedder:
    """A second embedder whose cosines all sit high, as multilingual-e5's do: the fake's
    vectors with one large shared component, so ``cos' = (cos + 4) / 5`` exactly."""

    def __init__(self, inner: FakeEmbedder) -> None:
        self._inner = inner

    @property
    def dim(self) -> int:
        return self._inner.dim + 1

    @property
    def name(self) -> str:
        return f"crowded-{self._inner.name}"

    def _lift(self, v: list[float]) -> list[float]:
        x = np.asarray([*v, 2.0]) / np.sqrt(5.0)
        return [float(a) for a in x]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._lift(v) for v in self._inner.embed_documents(texts)]

    def embed_query(self, text: str) -> list[float]:
        return self._lift(self._inner.embed_query(text))


def test_calibration_maps_the_baseline_onto_the_reference_and_keeps_one() -> None:
    assert calibrated(0.8, 0.8) == pytest.approx(REFERENCE_BASELINE)
    assert calibrated(1.0, 0.8) == pytest.approx(1.0)
    assert Calibration(REFERENCE_BASELINE).identity
    fake = FakeEmbedder(dim=32)
    crowded = CrowdedEmbedder(fake)
    base_fake = calibration_for(fake).baseline
    base_crowded = calibration_for(crowded).baseline
    assert base_crowded == pytest.approx((base_fake + 4) / 5, abs=1e-6)
    assert base_crowded > 0.75  # uncalibrated, every text looks related
    for cos in (0.1, 0.3, 0.6, 0.9):
        assert calibration_for(crowded)((cos + 4) / 5) == pytest.approx(
            calibration_for(fake)(cos), abs=1e-6
        )


def test_the_speaker_penalty_does_not_crush_every_turn_under_a_crowded_embedder() -> None:
    # today's constant: a crowded embedder's speaker cosine (~0.85) scaled every turn by ~0.4
    raw = (0.3 + 4) / 5
    assert informativeness(raw, 0.5) < 0.45
    cal = calibration_for(CrowdedEmbedder(FakeEmbedder(dim=32)))
    assert informativeness(cal(raw), 0.5) > 0.8


def _recall(embedder: object) -> tuple[list[str], list[float]]:
    cfg = PrismConfig(cjk_embedding_model=None)
    with Memory(location=":memory:", embedder=embedder, config=cfg) as m:
        m.remember(
            [
                {"role": "user", "content": "My sister Maria lives in Berlin near the zoo"},
                {"role": "assistant", "content": "Wow, great!"},
                {"role": "user", "content": "I prefer window seats on long flights"},
                {"role": "assistant", "content": "Noted, window seats it is"},
                {"role": "user", "content": "The dentist moved my appointment to Tuesday"},
            ],
            user_id="u",
            session_id="s",
            event_time=T0,
        )
        m.end_session(user_id="u", session_id="s")
        ctx = m.recall("Where does Maria live?", user_id="u", budget_tokens=400, now=T0)
        factors = [
            c.scores["informative"] for c in ctx.trace.candidates if "informative" in c.scores
        ]
        return [r.text for r in ctx.records], factors


def test_recall_is_the_same_under_an_embedder_with_another_cosine_spread() -> None:
    fake = FakeEmbedder(dim=32)
    texts, factors = _recall(fake)
    crowded_texts, crowded_factors = _recall(CrowdedEmbedder(fake))
    assert crowded_texts == texts
    assert crowded_factors == pytest.approx(factors, abs=1e-3)
    assert min(crowded_factors) > 0.5
