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

from .audit import SEARCH_FLOOR, SEARCH_ROWS, SEARCH_VALUES, audit, run_audit, search_budget, search_start
from .bounds import METHODS, delta_lower_bound, union_bound
from .confidence import ConfidencePlan
from .config import (
    DEFAULT_CONFIDENCE,
    DEFAULT_SAMPLES,
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_TIME_LIMIT,
    DEFAULT_VERDICT_CONFIDENCE,
    MAX_SAMPLES,
    MIN_SAMPLES,
    AuditConfig,
)
from .curve import EmpiricalCurve
from .curve.claims import working_point
from .events.leaks.events import ALL_CHECKS, CHECK_SWITCHES, DEFAULT_CHECKS
from .pairs import START_HINT
from .presenter import result_lines
from .relation import check_pair, parse_relation
from .result import AuditResult, Verdict, VerifiedEvent, not_reproducible_suffix
from .run.observed import as_audited
from .run.sampling import fresh_seed
from .sensitivity import falsify_sensitivity
from .stepwise import step_bounds

# The stated API: what users and the shells (the CLI, the pytest plugin, the reports) may import from the
# auditor -- the audit, its configuration and result and how they read; the checks it can run and the
# switches naming them; its inputs checked as audit() checks them; what a report re-computes from a result
# (bounds from counts, the mechanism as audited, a curve claim's working point).  Every other module of
# this package is its inside (tests/test_architecture.py holds the shells to this list).
__all__ = [
    "ALL_CHECKS",
    "CHECK_SWITCHES",
    "DEFAULT_CHECKS",
    "DEFAULT_CONFIDENCE",
    "DEFAULT_SAMPLES",
    "DEFAULT_CONNECT_TIMEOUT",
    "DEFAULT_TIME_LIMIT",
    "DEFAULT_VERDICT_CONFIDENCE",
    "MAX_SAMPLES",
    "METHODS",
    "MIN_SAMPLES",
    "SEARCH_FLOOR",
    "SEARCH_ROWS",
    "SEARCH_VALUES",
    "START_HINT",
    "AuditConfig",
    "AuditResult",
    "ConfidencePlan",
    "EmpiricalCurve",
    "Verdict",
    "VerifiedEvent",
    "as_audited",
    "audit",
    "check_pair",
    "delta_lower_bound",
    "falsify_sensitivity",
    "fresh_seed",
    "not_reproducible_suffix",
    "parse_relation",
    "result_lines",
    "run_audit",
    "search_budget",
    "search_start",
    "step_bounds",
    "union_bound",
    "working_point",
]
