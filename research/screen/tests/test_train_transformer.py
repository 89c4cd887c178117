"""The transformer's training code (``train_transformer``): the LoCoMo guard, the out-of-fold
floor, what it trains on, and how it fails without JAX or with a depth the network lacks.

Moved from ``tests/unit/test_screen_transformer.py``, which keeps what ships (the numpy forward
pass, the shipped weights, the ensemble and its fallback to the n-gram model).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
import train_screen
import train_transformer as tt

from prism_memory.safety import _ensemble


class _FakeTransformer:
    """P = 0.95 for a user's text, 0.5 from a tool; thresholds user 0.9, external 0.99."""

    threshold_user = 0.9
    threshold_external = 0.99

    def probability(self, text: str, source: str) -> float:
        return 0.95 if source == "user" else 0.5

    def probabilities(self, text: str, sources: Sequence[str]) -> list[float]:
        return [self.probability(text, s) for s in sources]


def _ensemble_with_fake(p_ngram: float) -> _ensemble.Ensemble:
    ngram: Any = SimpleNamespace(
        probability=lambda idx, val: p_ngram, text_probability=lambda views, source: p_ngram
    )
    return _ensemble.Ensemble(ngram, _FakeTransformer())  # type: ignore[arg-type]


def test_guard_thresholds_sit_just_above_the_highest_chat_turn() -> None:
    ens = _ensemble_with_fake(0.6)  # user: combine(0.6, 0.95); tool: combine(0.6, 0.5)
    user, tool = tt.guard_thresholds(ens, ["We went hiking on Sunday."])
    assert user == next(g for g in train_screen.GRID if g > _ensemble.combine(0.6, 0.95))
    assert tool == next(g for g in train_screen.GRID if g > _ensemble.combine(0.6, 0.5))


def test_training_without_jax_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    real = tt.importlib.import_module

    def no_jax(name: str) -> Any:
        if name.startswith("jax"):
            raise ImportError(name)
        return real(name)

    monkeypatch.setattr(tt.importlib, "import_module", no_jax)
    with pytest.raises(SystemExit, match="pip install jax"):
        tt.Network()


def test_the_training_corpora_exclude_the_honest_test() -> None:
    assert "blind13" not in tt.CORPORA  # measures the fifteenth revision once
    assert "blind14" not in tt.CORPORA  # measures the fifteenth revision once too
    assert not {"blind15", "blind16"} & set(tt.CORPORA)  # kept unread for the next revision
    assert {f"blind{i}" for i in range(5, 13)} <= set(tt.CORPORA)
    assert {"train6a", "train10a", "train10b", "train10c", "train10d", "train10e"} <= set(
        tt.CORPORA
    )
    corpora = train_screen.CORPUS_DIRS[0]
    assert set(tt.CORPORA) <= {p.stem.removeprefix("poisoning_") for p in corpora.glob("*.jsonl")}


def test_the_out_of_fold_floor_uses_the_n_gram_models_one_percent_rule() -> None:
    rows = [
        {"label": "benign", "source": "user"},
        {"label": "benign", "source": "tool"},
        {"label": "attack", "source": "tool"},
    ] * 100
    p_ngram = np.array([0.2, 0.2, 0.9] * 100)
    p_transformer = np.array([0.2, 0.95, 0.9] * 100)
    user, external = tt.oof_thresholds(rows, p_ngram, p_transformer)
    assert user == train_screen.GRID[0]  # every benign user row is far below 0.5
    # every benign tool row sits at combine(0.2, 0.95) = 0.685: the floor passes none of them
    assert external == next(g for g in train_screen.GRID if g > _ensemble.combine(0.2, 0.95))


def test_the_guard_reads_records_as_the_langgraph_store_writes_them() -> None:
    from langchain_prism._store_values import index_text

    turn = "Caroline: I went to the support group yesterday."
    texts = tt.guard_variants(turn, 0)
    assert texts[0] == turn and "Caroline:" in texts  # the turn, then its fragments
    assert index_text({"text": turn, "turn": 0}, None) in texts
    assert json.dumps({"text": turn, "turn": 0}) in texts
    assert len(texts) == len(set(texts))


@pytest.mark.parametrize("depth", ["0", "7"])
def test_training_refuses_a_depth_the_network_does_not_have(
    depth: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        tt.main(["--out", str(tmp_path / "w.npz"), "--tuned-layers", depth])
    assert exc.value.code == 2
    assert "--tuned-layers must be between 1 and 6" in capsys.readouterr().err
    assert not (tmp_path / "w.npz").exists()


def test_the_guard_tolerates_its_stated_share_of_turns_and_no_more() -> None:
    turns = [f"turn number {i} of an ordinary chat" for i in range(400)]
    level = {"number 0 ": 0.9, "number 1 ": 0.9, "number 2 ": 0.7, "number 3 ": 0.55}

    def probability(text: str, views: Sequence[str], source: str) -> float:
        return next((p for key, p in level.items() if key in text), 0.1)

    ens: Any = SimpleNamespace(probability=probability)
    # 0.5% of 400 turns: two may pass, each counted once for all of its variants
    assert tt.guard_thresholds(ens, turns) == (0.71, 0.71)
    assert tt.guard_thresholds(ens, turns, tolerance=0.0) == (0.91, 0.91)
    assert tt.guard_thresholds(ens, turns[:100]) == (0.91, 0.91)  # 0.5 turns: none may pass
