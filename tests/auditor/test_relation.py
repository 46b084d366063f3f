"""The explicit pair is the user's statement: a plain function audited on the pair it is given, under
the relation that pair states, with ``neighbours=`` and ``data=`` for the rest -- each from the call a
user writes and the result they read (``AuditResult.neighbours``, the JSON, the report).

The mechanisms are a Laplace count released on a 2^-16 grid (post-processing: epsilon 1 under
add/remove or replace for records in {0, 1}) and the same with half the noise (true epsilon 2).
Verdicts are asserted at confidence 1 - 1e-6 and fixed seeds: a correct mechanism is flagged with
probability <= 1e-6 whatever the seed, and the broken one's bound at 2 * 10^4 samples per side
(oracle-event limit ~1.9 at epsilon = 2 even at that confidence) lies far above the claim of 1.
"""

from __future__ import annotations

import numpy as np
import pytest

import dpaudit
from dpaudit import (
    AddRemove,
    InvalidArgument,
    MechanismError,
    NotNeighbouring,
    QueryDistance,
    Replace,
)
from dpaudit.auditor import AuditResult

GRID = 2.0**-16
CONFIDENCE = 1 - 1e-6
BUDGET = dict(samples=20_000, confidence=CONFIDENCE, executor="in-process")


def f(data, n, rng):  # a user's function, verbatim
    return np.rint((sum(data) + rng.laplace(0, 1.0, size=n)) * 2**16) / 2**16


def half_noise(data, n, rng):
    return np.rint((sum(data) + rng.laplace(0, 0.5, size=n)) / GRID) * GRID


def test_the_issue_call_audits_the_two_datasets_as_add_remove():
    result = dpaudit.audit(f, epsilon=1.0, pair=([1, 0, 1], [1, 0, 1, 1]), seed=1, **BUDGET)
    assert result.verdict is dpaudit.auditor.Verdict.PASS
    assert sorted(result.pair, key=len) == [(1, 0, 1), (1, 0, 1, 1)]
    assert result.neighbours.as_dict() == {
        "relation": {"relation": "add-remove"},
        "source": "inferred",
        "statement": "add/remove one record (inferred from the pair: sizes 3 and 4, one record added)",
    }


def test_a_broken_dataset_function_is_flagged_on_the_given_pair():
    result = dpaudit.audit(half_noise, epsilon=1.0, pair=([1, 0, 1], [1, 0, 1, 1]), seed=2, **BUDGET)
    assert result.violation and result.epsilon_lower_bound > 1.3


def test_one_record_changed_is_replace():
    result = dpaudit.audit(f, epsilon=1.0, pair=([1, 0, 1], [1, 1, 1]), seed=3, **BUDGET)
    assert result.neighbours.relation == Replace().as_dict() and result.neighbours.source == "inferred"
    assert not result.violation


def test_two_numbers_are_query_values_at_their_distance():
    def noisy(q, n, rng):  # Laplace(3) on a query value: epsilon 1 for values 3 apart
        return np.rint((q + rng.laplace(0, 3.0, size=n)) / GRID) * GRID

    result = dpaudit.audit(noisy, epsilon=1.0, pair=(2, 5), seed=4, **BUDGET)
    assert result.neighbours.relation == QueryDistance(3.0).as_dict()
    assert "query values within ℓ1 distance 3 (inferred from the pair" in result.neighbours.statement
    assert not result.violation


def test_a_pair_no_relation_explains_is_audited_as_given_and_says_so():
    # Sizes 2 and 3 but two records differ: the user's pair is audited, and the result says it is unchecked.
    result = dpaudit.audit(f, epsilon=1.0, pair=([1, 0], [1, 1, 1]), seed=5, **BUDGET)
    assert result.neighbours.relation is None and result.neighbours.source == "unchecked"
    assert result.neighbours.statement.startswith("pair given, relation unchecked (sizes 2 and 3, 1 record(s) only")
    assert result.violation  # the sums differ by 2: epsilon 2 on this pair, which the user called neighbours


def test_neighbours_by_name_or_object_is_checked_against_the_pair():
    for relation in ("replace", Replace()):
        with pytest.raises(NotNeighbouring, match="not replace-one neighbours"):
            dpaudit.audit(f, epsilon=1.0, pair=([1, 0, 1], [1, 0, 1, 1]), neighbours=relation, **BUDGET)
    result = dpaudit.audit(f, epsilon=1.0, pair=([1, 0, 1], [1, 0, 1, 1]), neighbours="add-remove", seed=6, **BUDGET)
    assert result.neighbours.source == "given" and result.neighbours.statement == "add/remove one record (given)"
    with pytest.raises(InvalidArgument, match="neighbours='nope' must be add-remove"):
        dpaudit.audit(f, epsilon=1.0, pair=([1], []), neighbours="nope")


def test_data_starts_the_pair_search_on_datasets_like_it():
    result = dpaudit.audit(half_noise, epsilon=1.0, data=[1, 0, 1], seed=7, **BUDGET)
    assert result.neighbours.relation == AddRemove().as_dict() and result.neighbours.source == "default"
    assert result.pairs_screened > 1 and result.violation
    a, b = result.pair
    assert abs(len(a) - len(b)) == 1 and set(a) | set(b) <= {0, 1}
    assert not dpaudit.audit(f, epsilon=1.0, data=[1, 0, 1], seed=8, **BUDGET).violation


def test_data_keeps_the_users_array_type():
    def mean_count(data, n, rng):  # uses an array method: tuples would not do
        return np.rint((data.sum() + rng.laplace(0, 1.0, size=n)) / GRID) * GRID

    result = dpaudit.audit(mean_count, epsilon=1.0, data=np.array([0.0, 1.0, 1.0]), neighbours=Replace(), seed=9,
                           **BUDGET)
    assert result.neighbours.source == "given" and not result.violation


def test_a_search_that_cannot_start_says_which_argument_to_give():
    with pytest.raises(MechanismError) as caught:  # the TypeError from inside, now with the way out
        dpaudit.audit(f, epsilon=1.0, **BUDGET)
    message = str(caught.value)
    assert "\n" not in message and "'float' object is not iterable" in message
    assert message.endswith("give pair=(a, b) or data=[...] (an example dataset)")
    with pytest.raises(InvalidArgument, match=r"no domain .* give pair=\(a, b\) or data=\[\.\.\.\]"):
        dpaudit.audit(f, epsilon=1.0, neighbours="add-remove", **BUDGET)


def test_the_same_input_twice_or_a_pair_with_data_is_refused():
    with pytest.raises(InvalidArgument, match="holds the same input twice"):
        dpaudit.audit(f, epsilon=1.0, pair=([1, 0], [1, 0]), **BUDGET)
    with pytest.raises(InvalidArgument, match="give pair= or data=, not both"):
        dpaudit.audit(f, epsilon=1.0, pair=([1, 0], [1]), data=[1, 0], **BUDGET)


def test_a_mechanism_keeps_its_own_relation_and_the_result_says_so():
    result = dpaudit.audit("laplace", pair=([1, 0], [1, 0, 1]), seed=10, **BUDGET)
    assert result.neighbours.source == "mechanism"
    assert result.neighbours.statement == "add/remove one record (the mechanism's own relation)"
    with pytest.raises(NotNeighbouring):  # its relation is checked: the pair must satisfy it
        dpaudit.audit("laplace", pair=([1, 0], [1, 1, 1]), **BUDGET)


def test_the_relation_travels_to_json_and_the_report():
    from dpaudit.reports import render
    from dpaudit.reports.from_audit import report_from_audit

    result = dpaudit.audit(f, epsilon=1.0, pair=([1, 0, 1], [1, 0, 1, 1]), seed=11, **BUDGET)
    assert AuditResult.from_dict(result.as_dict()) == result
    document = report_from_audit(result, f, plots=False)
    assert document["unit_of_privacy"]["relation"] == "add-remove"
    assert "| neighbours | add/remove one record (inferred from the pair" in render(document, "markdown")
    unchecked = dpaudit.audit(f, epsilon=1.0, pair=([1, 0], [1, 1, 1]), seed=12, **BUDGET)
    html = render(report_from_audit(unchecked, f, plots=False), "html")
    assert "pair given, relation unchecked" in html


def test_a_report_built_on_a_plain_function_states_the_relation_its_audit_used():
    """``dpaudit report file.py:f --a ... --b ...``: the unit of privacy is the one the audit inferred from the
    pair (add/remove), not the query-distance default of a function that declares none."""
    from dpaudit.reports import build_report, render

    document = build_report(f, epsilon=1.0, pair=([1, 0, 1], [1, 0, 1, 1]), seed=11, samples=20_000,
                            confidence=CONFIDENCE, plots=False, checks=False, executor="in-process")
    assert document["unit_of_privacy"]["relation"] == "add-remove"
    assert document["unit_of_privacy"]["description"] == document["audit"]["result"]["neighbours"]["statement"]
    assert "| unit of privacy | add/remove one record (inferred from the pair" in render(document, "markdown")
