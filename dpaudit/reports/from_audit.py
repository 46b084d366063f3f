"""The report document of an audit that has already run (the pytest plugin's ``--dp-report``).

:func:`report_from_audit` proves nothing and audits nothing again: the audit section is the given
``AuditResult.as_dict()``, the implementation checks are its ``findings`` (:mod:`.checks`; the
sensitivity falsification appears when the audit ran it), the proof section says why it is absent,
and the figures are drawn as in every report, from a small seeded re-sample of the audited pair.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from .._codec import to_json
from .._validation import check_positive_int
from ..errors import InvalidArgument
from ..neighbours import RELATIONS, NeighbourRelation, relation_from_dict
from .document import assemble, plots_section
from .model import section

__all__ = ["report_from_audit"]


def report_from_audit(
    result: Any,
    target: Any,
    *,
    proof_note: str = "not run: this report was made from an audit computed beforehand",
    plots: bool = True,
    plot_samples: int | None = None,
    reproduce: str | None = None,
    env: dict[str, Any] | None = None,
    neighbours: Any = None,
) -> dict[str, Any]:
    """The report document of ``result`` (an :class:`~dpaudit.auditor.AuditResult` or its ``as_dict()``).

    Parameters
    ----------
    result : AuditResult or dict
        The audit, as returned by :func:`dpaudit.audit`.
    target : Mechanism, str or callable
        What was audited (as passed to :func:`dpaudit.audit`): the figures re-sample it, and its
        catalogue data fill the mechanism section.  It is given the audited claim.
    proof_note : str
        Why the proof section is empty (its status is ``skipped``).
    plots, plot_samples : bool, int
        Draw the figures from ``min(plot_samples, samples)`` re-sampled outputs per side
        (default :data:`.plots.PLOT_SAMPLES`).
    reproduce : str, optional
        The command that reruns the audit (default: ``AuditResult.reproduce()``).
    env : dict, optional
        Environment fields to record instead of the live ones.
    neighbours : NeighbourRelation or str, optional
        The relation the audit was given (``dpaudit.audit(..., neighbours=...)``): a relation of the user's
        own is not rebuilt from the dict the result records, so the report takes this object.

    Returns
    -------
    dict
        JSON-ready, valid against :func:`.model.load_schema`.
    """
    from ..auditor import AuditResult
    from ..targets import resolve
    from .checks import implementation_checks
    from .plots import PLOT_SAMPLES

    started = time.perf_counter()
    if plot_samples is not None:
        check_positive_int("plot_samples", plot_samples)
    if isinstance(result, dict):
        result = AuditResult.from_dict(result)
    point = result.point_claim()  # a curve claim is restated below, as probabilistic DP is
    mechanism = resolve(target, epsilon=point.epsilon, delta=point.delta)
    if mechanism.claim != result.claim:  # e.g. a probabilistic-DP claim, which resolve() cannot restate
        mechanism = replace(mechanism, claim=result.claim)
    relation = None if result.neighbours is None else result.neighbours.relation
    if relation is not None:  # the relation the audit used (a plain function's comes from the audit)
        mechanism = replace(mechanism, neighbours=_audited_relation(relation, neighbours, mechanism.neighbours))
    audit_dict = to_json(result.as_dict())
    implementation = to_json(implementation_checks(mechanism, audit_dict, run_sensitivity=False))
    figures = plots_section(mechanism, audit_dict, plots, plot_samples or PLOT_SAMPLES)
    settings = {
        "samples": result.samples,
        "seed": result.seed,
        "confidence": result.confidence,
        "plot_samples": min(plot_samples or PLOT_SAMPLES, result.samples),
        "elapsed_s": round(result.elapsed_s + time.perf_counter() - started, 3),
        "reproduce": reproduce if reproduce is not None else result.reproduce(),
    }
    return assemble(mechanism, proof=section("skipped", None, proof_note), audit=section("done", audit_dict),
                    implementation=implementation, plots=figures, settings=settings, env=env)


def _audited_relation(recorded: dict[str, Any], given: Any, own: NeighbourRelation) -> NeighbourRelation:
    """The relation whose ``as_dict()`` the audit recorded: a built-in one rebuilt from it, else a relation of
    the user's own, which no dict rebuilds: the object the audit was given (``given``) or the target's own."""
    if recorded.get("relation") in RELATIONS:
        return relation_from_dict(recorded)
    for relation in (given, own):
        if isinstance(relation, NeighbourRelation) and to_json(relation.as_dict()) == to_json(recorded):
            return relation
    raise InvalidArgument(
        f"the audit used the relation {recorded!r}, which is not built in: give the object as neighbours= to "
        "report on it"
    )
