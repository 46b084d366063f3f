"""One plan for the audit's confidence: :class:`ConfidencePlan` splits alpha between the stages, and every stage asks it.

Two levels are asked for: the estimate's ``confidence`` (alpha = 1 - confidence) and the verdict's
``verdict_confidence`` (alpha' = 1 - verdict_confidence, never looser than alpha).  Each is spent by
the union bound, so that every reported bound, and the verdict, hold at the stated level whatever the
data and however early the audit stops.  The split, for either level (written for alpha):

1. **Probabilistic DP** (only for a ``ProbabilisticDP`` claim, and only when the bad-set test finds a
   candidate set): the bad-set test of :mod:`.probabilistic` spends ``PDP_SHARE`` x alpha, halved
   between its two samples; the approximate-DP verification spends the rest, (1 - PDP_SHARE) x alpha.
   Union bound over the two tests: P[either errs] <= PDP_SHARE alpha + (1 - PDP_SHARE) alpha = alpha.
   When the test finds no set it spends nothing and the verification keeps all of alpha.
2. **Looks** (:mod:`.sequential`): the verification's alpha is spent over its looks by the power
   spending function A(t) = alpha t^3 of the information fraction t_j = n_j / N (Kim & DeMets 1987;
   close to O'Brien-Fleming), alpha_j = A(t_j) - A(t_(j-1)), so the last planned look keeps 7/8 of
   it, with ``EXTENSION_SHARE`` set aside for the extension looks at 2N and 4N; futility stops use
   ``FUTILITY_SHARE`` x alpha, spent in proportion to the look sizes, on upper bounds (they can only
   cost power).  Bonferroni over the looks: sum_j alpha_j = alpha under any stopping rule.
3. **Candidates**: each look's alpha_j is split evenly over the C verified events (Bonferroni), so a
   candidate's bound at look j is taken at 1 - alpha_j / C.  The implementation and algorithmic scopes
   (:mod:`.scopes`) are maxima over the same C candidates, covered by the same split.

The search stage spends no alpha: its samples are independent of the verification's, so whatever
it chooses, the verification's bounds keep their level.  Its levels only shape the score:

* :attr:`ConfidencePlan.search_level` -- the strict search bound holds simultaneously over the
  ``SEARCH_EVENTS`` events a search scores (Bonferroni), which keeps the maximum over thousands of
  small-mass events from being a fluke (winner's curse);
* :attr:`ConfidencePlan.rescore_level` -- the held-out re-scoring of the pair screening ranks by the
  bound that will decide: the verdict's alpha' of the last planned look over the candidates;
* :attr:`ConfidencePlan.estimate_level` -- at delta > 0 the targeted score works at the estimate's
  alpha of the last planned look over the candidates (:mod:`.targeting`).

Both ranking levels assume the P-DP share is taken (for a P-DP claim), as the verification would
take it if the test runs; they are computed before it is known.

The empirical privacy curve (``curve=True``, :mod:`.curve.stage`) is measured on fresh samples of
its own at the full ``confidence`` and ``verdict_confidence``: for a curve claim it alone decides (the
working point's verification is then an estimate, not a second test of the verdict); for a point
claim it is reported beside the verdict, its coverage stated on its own.

``final_level`` -- the level :func:`.bounds.reach` is judged at: the verdict's alpha' of the last
planned look over the verified candidates, the level at which a perfect witness would have had to
certify the claim for a pass to mean anything.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import bounds
from .config import SEARCH_EVENTS
from .sequential import Schedule, schedule

__all__ = ["PDP_SHARE", "ConfidencePlan"]

PDP_SHARE = 0.5


@dataclass(frozen=True)
class ConfidencePlan:
    """The split of alpha = 1 - ``confidence`` and alpha' = 1 - ``verdict_confidence`` (module docstring).

    ``samples`` is N, the verification's planned samples per side; ``candidates`` the C events
    verified; ``probabilistic`` whether the claim is probabilistic DP (the bad-set test may take its
    share).
    """

    confidence: float
    verdict_confidence: float
    samples: int
    candidates: int
    early_stopping: bool
    probabilistic: bool

    def _after_pdp(self, confidence: float) -> float:
        """The level left to the approximate-DP verification: 1 - (1 - PDP_SHARE) alpha."""
        return 1.0 - (1.0 - confidence) * (1.0 - PDP_SHARE)

    def _ranking(self, confidence: float) -> float:
        """1 - alpha_K / C at the last planned look K, with the P-DP share taken for a P-DP claim."""
        level = self._after_pdp(confidence) if self.probabilistic else confidence
        planned = schedule(self.samples, level, self.early_stopping)
        return 1.0 - planned.alphas[planned.planned - 1] / self.candidates

    @property
    def search_level(self) -> float:
        """The strict search score's level: 1 - alpha / SEARCH_EVENTS (Bonferroni over the scored events)."""
        return bounds.bonferroni_confidence(self.confidence, SEARCH_EVENTS)

    @property
    def rescore_level(self) -> float:
        """The held-out re-scoring's level: the verdict's 1 - alpha'_K / C."""
        return self._ranking(self.verdict_confidence)

    @property
    def estimate_level(self) -> float:
        """The targeted score's level (delta > 0): the estimate's 1 - alpha_K / C."""
        return self._ranking(self.confidence)

    def pdp_alphas(self) -> tuple[tuple[float, float], tuple[float, float]]:
        """The bad-set test's alphas at both levels: PDP_SHARE x alpha halved, PDP_SHARE x alpha' halved."""
        alpha, verdict_alpha = PDP_SHARE * (1.0 - self.confidence), PDP_SHARE * (1.0 - self.verdict_confidence)
        return (alpha / 2, alpha / 2), (verdict_alpha / 2, verdict_alpha / 2)

    def verification(self, pdp_ran: bool) -> Schedule:
        """The verification's looks and their alphas at both levels: all of alpha and alpha', or what the
        bad-set test left when it ran (``pdp_ran``)."""
        levels = (self.confidence, self.verdict_confidence)
        if pdp_ran:
            levels = (self._after_pdp(self.confidence), self._after_pdp(self.verdict_confidence))
        return schedule(self.samples, levels[0], self.early_stopping, levels[1])

    @staticmethod
    def final_level(looks: Schedule, verified: int) -> float:
        """The verdict's per-candidate level at the last planned look: 1 - alpha'_K / max(1, C)."""
        return 1.0 - looks.verdict_alphas[looks.planned - 1] / max(1, verified)
