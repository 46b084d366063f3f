"""The search score for an (epsilon, delta) claim: the event whose *verified* bound at the claimed delta is largest.

For a pure claim the strict search score (the bound on the search counts, Bonferroni over the events
scored) picks the event of the largest ratio with enough mass, and that event is also the one the
verification certifies best.  At delta > 0 the two part: the verified bound
ln((LCB(p_a) - delta) / UCB(p_b)) rewards events whose mass is small but well above delta, and how
small depends on the verification's sample size N, not the search's.  Scored on n_s < N search samples
at the strict level, the search prefers events of too much mass (analytic Gaussian at (1, 1e-5):
P_a(S) = 1.2e-2, where the optimum at N = 10^6 is 1.4e-3; ``benchmarks/approx_dp.py``).

So for delta > 0 each event is scored by the bound the verification would give at its size and level,
from counts that are the search estimates shrunk against the winner's curse:

    score(S) = ln((LCB_N(N p_a^-) - delta) / UCB_N(N p_b^+)),
    p_a^- = CP_lower(k_a; n_s, SHRINK_LEVEL),  p_b^+ = CP_upper(k_b; n_s, SHRINK_LEVEL),

with LCB_N / UCB_N the one-sided Clopper-Pearson bounds of the union bound (:func:`.bounds.union_bound`)
at the verification's level.  With the plug-in p^ = k / n_s instead (SHRINK_LEVEL = 1/2) the maximum
over thousands of cuts chases noise in the far tail (mean expected verified bound 0.643 over ten seeds
against 0.731 at SHRINK_LEVEL = 0.975 and 0.720 for the strict score, limit 0.768; classic Gaussian at
(1, 1e-6): 0.401 / 0.487 / 0.468, limit 0.511 -- the simulation in ``benchmarks/approx_dp.py``).

The event is chosen for the full budget N.  A passing audit with early stopping usually stops for
futility at N/16 (:mod:`.sequential`), and there a deeper event can certify less than a heavier one
(diffprivlib's classic Gaussian at (1, 1e-6), seed 1: 0.348 before, 0.138 after; seeds 2 and 3 pick
the same event either way); the tight figure at the claimed delta is then the empirical curve's
(``curve=True``) or the audit's with ``early_stopping=False`` (benchmarks/README.md).

This only *chooses* the event; the reported bound is computed on fresh verification samples, so the
choice cannot bias it.
"""

from __future__ import annotations

import numpy as np

from . import bounds
from .events.family import Scorer

__all__ = ["SHRINK_LEVEL", "targeted_score"]

SHRINK_LEVEL = 0.975


def targeted_score(n_verify: int, level: float, delta: float) -> Scorer:
    """The score of an event for a claim with ``delta`` > 0: its expected verified bound (module docstring).

    ``n_verify`` is the verification's sample size per side and ``level`` the confidence of its bound.
    """

    def score(ka, na, kb, nb):
        expected_a = n_verify * bounds.cp_lower(ka, na, SHRINK_LEVEL)
        expected_b = n_verify * bounds.cp_upper(kb, nb, SHRINK_LEVEL)
        return bounds.union_bound(np.round(expected_a), n_verify, np.round(expected_b), n_verify, level, delta)

    return score
