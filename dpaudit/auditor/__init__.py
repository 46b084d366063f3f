"""Monte Carlo auditing: a verified lower bound on the epsilon a mechanism realises.

``audit(target, ...)`` runs a search stage (pair and event selection) and a verification stage on
fresh samples, and returns an :class:`AuditResult` whose ``epsilon_lower_bound`` holds with the
stated confidence and whose verdict is taken at the stricter ``verdict_confidence``.  Modules: :mod:`.sampling` (seeded, chunked draws), :mod:`.executors` (in process,
process pool, Dask), :mod:`.checkpoint` (resumable audits), :mod:`.events` (event families),
:mod:`.bounds` (Clopper-Pearson union bound, exact joint ratio test, multiplicity), :mod:`.pairs`,
:mod:`.screening` and :mod:`.search` (search stage), :mod:`.leak_events` (the implementation-leak
checks as event families), :mod:`.verification` and :mod:`.sequential` (verification with
anytime-valid early stopping), :mod:`.progress`, :mod:`.result`, :mod:`.audit`; :mod:`.targeting` (the search score at delta > 0),
:mod:`.curve`, :mod:`.curve_stage` and :mod:`.curve_claims` (the empirical privacy curve and the verdicts of
curve claims).
"""

from __future__ import annotations

from .audit import DEFAULT_CONFIDENCE, DEFAULT_SAMPLES, DEFAULT_VERDICT_CONFIDENCE, audit, search_budget
from .curve import EmpiricalCurve
from .result import AuditResult, Verdict, VerifiedEvent

__all__ = ["DEFAULT_CONFIDENCE", "DEFAULT_SAMPLES", "DEFAULT_VERDICT_CONFIDENCE", "AuditResult", "EmpiricalCurve",
           "Verdict", "VerifiedEvent", "audit", "search_budget"]
