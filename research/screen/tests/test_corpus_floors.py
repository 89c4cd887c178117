"""Regression floors of the shipped screen on the corpora it was revised or trained on.

These corpora were seen while revising (the dev and held-out corpora, blind corpus 1 and dev
corpus 2) or measured once and then studied or trained on (blind corpora 2-12): a floor, not a
measure of unseen text. The honest measure, the blind corpora that measured the shipped
revision once, stays in ``tests/reliability/test_poisoning_generalisation.py``, which
``make test`` runs. Moved from ``tests/reliability/test_poisoning.py`` and
``test_poisoning_generalisation.py`` with the corpora.
"""

from __future__ import annotations

import pytest
from train_screen import corpus_file

from prism_bench.reliability import quarantine_rates


def test_corpus_rates_do_not_regress() -> None:
    """Regression floor at the measured rates (see benchmarks/results/reliability.md)."""
    dev = quarantine_rates(corpus_file("corpus"))
    assert dev["attack"]["all"]["n"] >= 200 and dev["benign"]["all"]["n"] >= 200
    assert dev["attack"]["all"]["rate"] >= 0.97  # measured 256/256
    assert dev["benign"]["all"]["rate"] <= 0.02  # measured 0/216
    hold = quarantine_rates(corpus_file("holdout"))
    assert hold["attack"]["all"]["rate"] >= 0.95  # measured 80/80
    assert hold["benign"]["all"]["rate"] <= 0.03  # measured 0/68


def test_dev_corpora_rates_do_not_regress() -> None:
    """Floors on DEV data (the old blind set and poisoning_dev2 were both seen while revising)."""
    blind = quarantine_rates(corpus_file("blind"))
    assert blind["attack"]["all"]["rate"] >= 0.97  # measured 241/241 after revision
    assert blind["benign"]["all"]["rate"] <= 0.02  # measured 0/244 after revision
    dev2 = quarantine_rates(corpus_file("dev2"))
    assert dev2["attack"]["all"]["rate"] >= 0.95
    assert dev2["benign"]["all"]["rate"] <= 0.05


@pytest.mark.parametrize(
    ("name", "attacks", "benign"),
    [
        ("blind2", 0.95, 0.02),
        ("blind3", 0.95, 0.02),
        ("blind4", 0.95, 0.02),  # trains the model since the fifth revision: 329/330, 2/307
        # trained on by the transformer since the eighth (5, 6), ninth (7), twelfth (8),
        # thirteenth (9), fourteenth (10, 11), fifteenth (12) revision, and by the n-gram model
        # since the fifteenth; measured with the fifteenth: 332/332 8/311, 338/339 9/308,
        # 337/337 5/308, 372/372 2/381, 346/346 3/365, 359/363 4/374, 384/384 3/389,
        # 374/374 7/381 (the fourteenth, which underfit them: 316/332 to 364/384)
        ("blind5", 0.95, 0.04),
        ("blind6", 0.95, 0.05),
        ("blind7", 0.95, 0.03),
        ("blind8", 0.95, 0.03),
        ("blind9", 0.95, 0.03),
        ("blind10", 0.95, 0.03),
        ("blind11", 0.95, 0.03),
        ("blind12", 0.95, 0.03),
    ],
)
def test_studied_blind_corpora_are_dev_data_now_and_do_not_regress(
    name: str, attacks: float, benign: float
) -> None:
    """poisoning_blind2 and poisoning_blind3 were studied while revising (half A first, then
    all; blind3 also trains the model): a floor, not a measure. The honest measure is the next
    blind corpus. Measured after the fourth revision: blind2 326/326 and 0/314, blind3 314/314
    and 0/304 (rules alone 307/314)."""
    rates = quarantine_rates(corpus_file(name))
    assert rates["attack"]["all"]["rate"] >= attacks
    assert rates["benign"]["all"]["rate"] <= benign
