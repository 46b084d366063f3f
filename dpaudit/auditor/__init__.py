"""Monte Carlo auditing: a verified lower bound on the epsilon a mechanism realises.

``audit(target, ...)`` runs a search stage (pair and event selection) and a verification stage on
fresh samples, and returns an :class:`AuditResult` whose ``epsilon_lower_bound`` holds with the
stated confidence.  Modules: :mod:`.sampling` (seeded, chunked draws), :mod:`.events` (event
families), :mod:`.bounds` (Clopper-Pearson union bound, exact joint ratio test, multiplicity),
:mod:`.pairs` and :mod:`.search` (search stage), :mod:`.result`, :mod:`.audit`.
"""

from __future__ import annotations

from .audit import DEFAULT_SAMPLES, audit, search_budget
from .result import AuditResult, Verdict, VerifiedEvent

__all__ = ["DEFAULT_SAMPLES", "AuditResult", "Verdict", "VerifiedEvent", "audit", "search_budget"]
