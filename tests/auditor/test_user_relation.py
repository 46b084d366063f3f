"""A neighbour relation of the user's own (:class:`dpaudit.NeighbourRelation`) audited end to end, and an
object that is not one refused with the method it lacks.

The relation: datasets of the same size that differ in one record by at most 1.  Under it a sum moves by
at most 1, so the Laplace sum of scale 1 released on a 2^-16 grid (post-processing) is 1-DP, and the
same with half the noise is 2-DP; the catalogue's ``laplace-sum`` (scale 2, records clamped to [-1, 2])
is 0.5-DP.  Verdicts are asserted at confidence 1 - 1e-6 and fixed seeds, as in ``test_relation.py``: a
correct mechanism is flagged with probability <= 1e-6 whatever the seed, and the broken one's bound at
2 * 10^4 samples per side (oracle-event limit ~1.9 at epsilon = 2 even at that confidence) lies far
above the claim of 1.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

import dpaudit
from dpaudit import InvalidArgument, NeighbourRelation, NotNeighbouring
from dpaudit.auditor import AuditResult, Verdict
from dpaudit.neighbours import RELATION_METHODS, relation_spec

GRID = 2.0**-16
BUDGET = dict(samples=20_000, confidence=1 - 1e-6, executor="in-process")


@dataclasses.dataclass(frozen=True)
class ChangeOneRecordByOne:
    """D ~ D' when they have the same size and differ in one record, by at most 1."""

    def is_neighbouring(self, a: Any, b: Any) -> bool:
        gap = np.abs(np.asarray(a, dtype=float) - np.asarray(b, dtype=float)) if len(a) == len(b) else None
        return gap is not None and np.count_nonzero(gap) == 1 and float(gap.max()) <= 1

    def check(self, a: Any, b: Any) -> None:
        if not self.is_neighbouring(a, b):
            raise NotNeighbouring(f"{a!r} and {b!r} do not differ in one record by at most 1")

    def candidate_pairs(self, domain: Any, size: int = 3) -> list[tuple[Any, Any]]:
        """D of ``size`` equal records, each value of the domain, against D with its first record moved by 1."""
        return [((v,) * size, (v + step,) + (v,) * (size - 1)) for v in domain for step in (1, -1)]

    def as_dict(self) -> dict[str, Any]:
        return {"relation": "change-one-record-by-1"}

    def __str__(self) -> str:
        return "change one record by at most 1"


def laplace_sum(data, n, rng):
    return np.rint((sum(data) + rng.laplace(0, 1.0, size=n)) / GRID) * GRID


def half_noise(data, n, rng):
    return np.rint((sum(data) + rng.laplace(0, 0.5, size=n)) / GRID) * GRID


def test_the_protocol_is_the_methods_dpaudit_calls_and_the_built_ins_have_them():
    declared = {name for name in vars(NeighbourRelation) if not name.startswith("_")}
    assert declared == set(RELATION_METHODS)
    for relation in (dpaudit.AddRemove(), dpaudit.Replace(), dpaudit.QueryDistance(1.0), dpaudit.Local(),
                     dpaudit.Canary((1, 0)), ChangeOneRecordByOne()):
        assert isinstance(relation, NeighbourRelation)


def test_a_plain_function_is_audited_under_the_users_relation():
    relation = ChangeOneRecordByOne()
    result = dpaudit.audit(laplace_sum, epsilon=1.0, data=[0, 1, 1], neighbours=relation, seed=1, **BUDGET)
    assert result.verdict is Verdict.PASS
    assert result.neighbours.as_dict() == {"relation": {"relation": "change-one-record-by-1"}, "source": "given",
                                           "statement": "change one record by at most 1 (given)"}
    assert relation.is_neighbouring(*result.pair)
    assert AuditResult.from_dict(result.as_dict()) == result
    broken = dpaudit.audit(half_noise, epsilon=1.0, data=[0, 1, 1], neighbours=relation, seed=2, **BUDGET)
    assert broken.violation and broken.epsilon_lower_bound > 1.3
    assert relation.is_neighbouring(*broken.pair)
    with pytest.raises(NotNeighbouring, match="do not differ in one record by at most 1"):
        dpaudit.audit(laplace_sum, epsilon=1.0, pair=([0, 1], [0, 3]), neighbours=relation, **BUDGET)


def test_a_catalogue_sampler_carries_the_users_relation_and_reports_on_it():
    jsonschema = pytest.importorskip("jsonschema")
    from dpaudit.reports import load_schema, render, report_from_audit

    mechanism = dataclasses.replace(dpaudit.get("laplace-sum"), neighbours=ChangeOneRecordByOne(), pairs=())
    result = dpaudit.audit(mechanism, seed=3, **BUDGET)
    assert result.verdict is Verdict.PASS and result.neighbours.source == "mechanism"
    assert mechanism.neighbours.is_neighbouring(*result.pair) and mechanism.as_dict()["neighbours"] == {
        "relation": "change-one-record-by-1"}
    document = report_from_audit(result, mechanism, plots=False)
    jsonschema.Draft202012Validator(load_schema()).validate(document)
    assert document["unit_of_privacy"] == {"relation": "change-one-record-by-1",
                                           "description": "change one record by at most 1"}
    assert "change one record by at most 1 (change-one-record-by-1)" in render(document, "markdown")
    assert relation_spec(mechanism.neighbours) is None  # no command-line option names it
    given = dpaudit.audit(laplace_sum, epsilon=1.0, data=[0, 1, 1], neighbours=ChangeOneRecordByOne(), seed=4, **BUDGET)
    with pytest.raises(InvalidArgument, match="not built in: give the object as neighbours="):
        report_from_audit(given, laplace_sum, plots=False)  # the plain function does not carry it, the dict cannot
    document = report_from_audit(given, laplace_sum, plots=False, neighbours=ChangeOneRecordByOne())
    assert document["unit_of_privacy"]["relation"] == "change-one-record-by-1"


class NoCheck:
    """Has every method of a relation but ``check``."""

    def is_neighbouring(self, a: Any, b: Any) -> bool:
        return True

    def candidate_pairs(self, domain: Any, size: int = 3) -> list[tuple[Any, Any]]:
        return []

    def as_dict(self) -> dict[str, Any]:
        return {"relation": "no-check"}


def test_an_object_lacking_a_method_is_refused_with_its_name():
    assert not isinstance(NoCheck(), NeighbourRelation)
    refused = r"^neighbours=<.*NoCheck object .* must be AddRemove\(\), .*it has no check$"
    with pytest.raises(InvalidArgument, match=refused):
        dpaudit.Mechanism(name="sum", claim=dpaudit.PureDP(1.0), neighbours=NoCheck(), sampler=laplace_sum)
    with pytest.raises(InvalidArgument, match=r"or one of 'add-remove', .*it has no check$"):
        dpaudit.audit(laplace_sum, epsilon=1.0, pair=([0, 1], [0, 2]), neighbours=NoCheck())
    with pytest.raises(InvalidArgument, match="it has no is_neighbouring, check, candidate_pairs, as_dict"):
        dpaudit.audit(laplace_sum, epsilon=1.0, pair=([0, 1], [0, 2]), neighbours=42)
