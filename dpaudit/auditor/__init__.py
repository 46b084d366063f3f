"""Monte Carlo auditing: a verified lower bound on the epsilon a mechanism realises.

``audit(target, ...)`` runs a search stage (pair and event selection) and a verification stage on
fresh samples, and returns an :class:`AuditResult` whose ``epsilon_lower_bound`` holds with the
stated confidence and whose verdict is taken at the stricter ``verdict_confidence``.

The stages sit here: :mod:`.audit` (the audit), :mod:`.pairs` and :mod:`.relation` (the inputs),
:mod:`.screening` (pair screening and event search), :mod:`.verification` and :mod:`.sequential`
(verification with anytime-valid early stopping), :mod:`.bounds` (Clopper-Pearson union bound, exact
joint ratio test, multiplicity), :mod:`.scopes` (implementation and algorithmic bounds),
:mod:`.probabilistic` (the probabilistic-DP bad-set test), :mod:`.sensitivity` (falsifying a declared
sensitivity), :mod:`.targeting` (the search score at delta > 0), :mod:`.one_run` (one training run, many
canaries: Steinke, Nasr & Jagielski 2023), :mod:`.result`.  Three rooms: :mod:`.events` (the event
families behind one interface, the float-leak families in :mod:`.events.leaks`, side channels),
:mod:`.curve` (the empirical privacy curve, its stage, and the verdicts of curve claims) and
:mod:`.run` (seeded chunked sampling, executors, shipping to workers, checkpoints, progress).
"""

from __future__ import annotations

from .audit import (
           DEFAULT_CONFIDENCE,
           DEFAULT_SAMPLES,
           DEFAULT_VERDICT_CONFIDENCE,
           audit,
           search_budget,
)
from .curve import EmpiricalCurve
from .result import AuditResult, Verdict, VerifiedEvent

__all__ = ["DEFAULT_CONFIDENCE", "DEFAULT_SAMPLES", "DEFAULT_VERDICT_CONFIDENCE", "AuditResult", "EmpiricalCurve",
           "Verdict", "VerifiedEvent", "audit", "search_budget"]
