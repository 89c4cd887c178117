"""The screen's learned opinion: the n-gram model and the fine-tuned transformer, averaged.

Design:
- P(attack) = sigmoid of the mean of the two models' log-odds, each reading the text as coming
  from its source (:func:`combine`). Averaging keeps what both see: on the study half of blind
  corpus 6 it added attacks without adding benign quarantines, where quarantining whatever
  either model flagged added both (``research/screen/decision-log.md``, eighth revision).
- The thresholds (user; external) are the ensemble's own, stored with the transformer's
  weights; the LoCoMo guard set them (at most 0.5% of ordinary chat turns quarantined as user
  or as tool; none until the fifteenth revision).
- External content is also read as the user's words and fires at the user threshold: the
  screen is never more lenient with a web page than with the user.
- Cost: the transformer is skipped when neither the rules nor the n-gram model see anything
  (:data:`GATE_BELOW`); measured to change no verdict on any corpus.
- Without the transformer's base weights the ensemble is the n-gram model alone, at its own
  thresholds (the sixth revision's screen), and :func:`load` warns once how to install them.
- Batches: :meth:`Ensemble.fires_many` decides a whole write call with one transformer call
  (every reading of every text that passes the gate), the way ``screen="strict"`` runs.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass

from . import _model
from ._transformer import TransformerScreen, TransformerUnavailable, sigmoid
from ._transformer import load as load_transformer

__all__ = ["GATE_BELOW", "Ensemble", "Reading", "combine", "load"]

# The transformer is skipped for a text the rules found nothing in and the n-gram model reads
# as benign (P < 0.05 for every reading): to fire, the transformer would then need P >= 0.974
# (user) or >= 0.984 (external) at the shipped thresholds (0.58 / 0.64). Over 31,097 training-
# corpus and guard texts (fifteenth revision) this skipped the transformer on 10,926 and
# changed no verdict.
GATE_BELOW = 0.05

logger = logging.getLogger("prism_memory.safety")


def _logit(p: float) -> float:
    p = min(max(p, 1e-9), 1.0 - 1e-9)
    return math.log(p / (1.0 - p))


def combine(p_ngram: float, p_transformer: float) -> float:
    """P(attack) of the ensemble: the sigmoid of the mean log-odds of the two models.

    >>> round(combine(0.9, 0.9), 3), round(combine(0.5, 0.9), 3), round(combine(0.1, 0.9), 3)
    (0.9, 0.75, 0.5)
    """
    return sigmoid((_logit(p_ngram) + _logit(p_transformer)) / 2.0)


@dataclass(frozen=True)
class Ensemble:
    """The n-gram model, and the transformer when its base weights are installed."""

    ngram: _model.ScreenModel
    transformer: TransformerScreen | None

    def probability(self, text: str, views: Sequence[str], source: str) -> float:
        """P(attack) of ``text`` (read as ``views`` by the n-gram model) from ``source``."""
        return self.probabilities(text, views, (source,))[0]

    def probabilities(self, text: str, views: Sequence[str], sources: Sequence[str]) -> list[float]:
        """:meth:`probability` of ``text`` read as coming from each of ``sources``."""
        p = [self.ngram.text_probability(views, s) for s in sources]
        if self.transformer is None:
            return p
        t = self.transformer.probabilities(text, sources)
        return [combine(a, b) for a, b in zip(p, t)]

    def fires_many(self, readings: Sequence[Reading]) -> list[tuple[bool, float]]:
        """:meth:`fires` for a batch: the transformer runs once, on every reading that passes
        the gate (both readings of external content), instead of once per text."""
        return _fires_many(self, readings)

    def threshold(self, external: bool) -> float:
        """The P(attack) at which the opinion quarantines content of that source group."""
        if self.transformer is None:
            return self.ngram.threshold(external)
        if external:
            return self.transformer.threshold_external
        return self.transformer.threshold_user

    def fires(
        self,
        text: str,
        views: Sequence[str],
        source: str,
        external: bool,
        *,
        rule_evidence: bool = True,
    ) -> tuple[bool, float]:
        """Whether the opinion quarantines ``text`` from ``source``, and the P(attack) that decided.

        External content is also read as the user's words (:func:`._model.decide`, the rule both
        opinions share). Without ``rule_evidence`` (the rules found nothing) and
        with the n-gram model below :data:`GATE_BELOW` for every reading, the transformer is
        not asked (see :data:`GATE_BELOW`) and the n-gram model's P is returned.
        """
        if self.transformer is None:
            return self.ngram.fires(views, source, external)
        sources = (source, "user") if external else (source,)
        p_ngram = [self.ngram.text_probability(views, s) for s in sources]
        if not rule_evidence and max(p_ngram) < GATE_BELOW:
            return False, p_ngram[0]
        # both readings in one pass: the transformer costs little more for two than for one
        p_transformer = self.transformer.probabilities(text, sources)
        p = [combine(a, b) for a, b in zip(p_ngram, p_transformer)]
        as_user = (lambda: p[1]) if external else None
        return _model.decide(p[0], as_user, self.threshold(False), self.threshold(True))


@dataclass(frozen=True)
class Reading:
    """One text to decide in a batch: as written, the views the rules read, its source."""

    text: str
    views: Sequence[str]
    source: str
    external: bool
    rule_evidence: bool


def _fires_many(ensemble: Ensemble, readings: Sequence[Reading]) -> list[tuple[bool, float]]:
    """:meth:`Ensemble.fires` of every reading, with one transformer call for the batch."""
    transformer = ensemble.transformer
    if transformer is None:
        return [ensemble.ngram.fires(r.views, r.source, r.external) for r in readings]
    sources = [(r.source, "user") if r.external else (r.source,) for r in readings]
    p_ngram = [
        [ensemble.ngram.text_probability(r.views, s) for s in srcs]
        for r, srcs in zip(readings, sources)
    ]
    asked = [i for i, r in enumerate(readings) if r.rule_evidence or max(p_ngram[i]) >= GATE_BELOW]
    pairs = [(readings[i].text, s) for i in asked for s in sources[i]]
    p_transformer = iter(transformer.probabilities_many(pairs))
    out: list[tuple[bool, float]] = [(False, p[0]) for p in p_ngram]
    t_user, t_external = ensemble.threshold(False), ensemble.threshold(True)
    for i in asked:
        p = [combine(a, next(p_transformer)) for a in p_ngram[i]]
        as_user = (lambda p=p: p[1]) if readings[i].external else None
        out[i] = _model.decide(p[0], as_user, t_user, t_external)
    return out


def load(ngram: _model.ScreenModel) -> Ensemble:
    """The shipped ensemble; without the transformer's base weights, the n-gram model alone."""
    try:
        transformer = load_transformer()
    except TransformerUnavailable as exc:
        logger.warning("poisoning screen without its transformer opinion: %s", exc)
        transformer = None
    return Ensemble(ngram, transformer)
