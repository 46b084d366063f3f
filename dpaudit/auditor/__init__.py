"""Monte Carlo auditing: a verified lower bound on the epsilon a mechanism realises.

``audit(target, ...)`` runs a search stage (pair and event selection) and a verification stage on
fresh samples, and returns an :class:`AuditResult` whose ``epsilon_lower_bound`` holds with the
stated confidence and whose verdict is taken at the stricter ``verdict_confidence``.

The pipeline reads top to bottom in :func:`.audit.run_audit`: :mod:`.config` (what was asked,
checked once: :class:`AuditConfig`), :mod:`.confidence` (one :class:`ConfidencePlan` splits alpha
between the stages), :mod:`.pairs` and :mod:`.relation` (the inputs), :mod:`.screening` (pair
screening and event search), :mod:`.verification` and :mod:`.sequential` (verification with
anytime-valid early stopping), :mod:`.decision` (every verdict rule, one :func:`decide`),
:mod:`.result`.  Beside them: :mod:`.bounds` (Clopper-Pearson union bound, exact joint ratio test,
multiplicity), :mod:`.scopes` (implementation and algorithmic bounds), :mod:`.probabilistic` (the
probabilistic-DP bad-set test), :mod:`.sensitivity` (falsifying a declared sensitivity),
:mod:`.targeting` (the search score at delta > 0), :mod:`.one_run` (one training run, many canaries:
Steinke, Nasr & Jagielski 2023).  Three rooms: :mod:`.events` (the event families behind one
interface, the float-leak families in :mod:`.events.leaks`, side channels), :mod:`.curve` (the
empirical privacy curve and its stage) and :mod:`.run` (seeded chunked sampling, executors, shipping
to workers, checkpoints, progress).
"""

from __future__ import annotations

from .audit import audit, run_audit, search_budget
from .confidence import ConfidencePlan
from .config import DEFAULT_CONFIDENCE, DEFAULT_SAMPLES, DEFAULT_VERDICT_CONFIDENCE, AuditConfig
from .curve import EmpiricalCurve
from .result import AuditResult, Verdict, VerifiedEvent

__all__ = ["DEFAULT_CONFIDENCE", "DEFAULT_SAMPLES", "DEFAULT_VERDICT_CONFIDENCE", "AuditConfig", "AuditResult",
           "ConfidencePlan", "EmpiricalCurve", "Verdict", "VerifiedEvent", "audit", "run_audit", "search_budget"]
