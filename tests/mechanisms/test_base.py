"""Mechanism: validation of what the code under test returns, and wrapping of plain callables."""

from __future__ import annotations

import numpy as np
import pytest

from dpaudit import AddRemove, InvalidArgument, Mechanism, MechanismError, PureDP, QueryDistance


def make(sampler, **fields):
    return Mechanism(name="under-test", claim=PureDP(1.0), neighbours=QueryDistance(1.0), sampler=sampler, **fields)


def test_sample_returns_n_rows():
    m = make(lambda q, n, rng: q + rng.laplace(0, 1, n))
    out = m.sample(0.0, 7, np.random.default_rng(0))
    assert out.shape == (7,)


@pytest.mark.parametrize(
    "sampler, message",
    [
        (lambda q, n, rng: 1 / 0, r"raised ZeroDivisionError: division by zero \(data=0.0, n=5\)"),
        (lambda q, n, rng: np.full(n, np.nan), "returned NaN"),
        (lambda q, n, rng: np.full(n, np.inf), "returned an infinite output"),
        (lambda q, n, rng: np.zeros(n + 1), "returned 6 rows for n=5"),
        (lambda q, n, rng: [[0.0], [1.0, 2.0]] * n, r"varying shapes: \[0.0\] and \[1.0, 2.0\]"),
        (lambda q, n, rng: 3.0, "returned float 3.0 where 5 outputs were expected"),
        (lambda q, n, rng: [object()] * n, r"returned an output of type object \(<object object at"),
        (lambda q, n, rng: [{1, 2}] * n, r"returned an output of type set \(\{1, 2\}\), which is not hashable"),
    ],
)
def test_misbehaving_samplers_get_a_clear_error(sampler, message):
    with pytest.raises(MechanismError, match=message) as info:
        make(sampler).sample(0.0, 5, np.random.default_rng(0))
    assert "'under-test'" in str(info.value)


def test_the_cause_of_a_raising_sampler_is_kept():
    with pytest.raises(MechanismError) as info:
        make(lambda q, n, rng: 1 / 0).sample(0.0, 5, np.random.default_rng(0))
    assert isinstance(info.value.__cause__, ZeroDivisionError)


def test_one_run_callables_are_batched():
    def one_run(data, rng):
        return sum(data) + rng.laplace(0, 1.0)

    m = Mechanism.from_callable(one_run, claim=PureDP(1.0), neighbours=AddRemove())
    assert m.name == "one_run"
    a = m.sample([1, 2], 4, np.random.default_rng(3))
    b = m.sample([1, 2], 4, np.random.default_rng(3))
    assert a.shape == (4,) and np.array_equal(a, b)


def test_vectorised_callables_are_called_once():
    calls = []

    def many(q, n, rng):
        calls.append(n)
        return q + rng.normal(size=(n, 2))

    m = Mechanism.from_callable(many, claim=PureDP(1.0))
    assert m.sample(0.0, 10, np.random.default_rng(0)).shape == (10, 2)
    assert calls == [10]


@pytest.mark.parametrize(
    "one_run, message",
    [
        (lambda data, rng: np.zeros(int(rng.integers(1, 3))), "varying shapes"),
        (lambda data, rng: {"a": 1.0} if rng.random() < 0.5 else {"b": 1.0}, r"dicts with keys \['[ab]'\] and \['[ab]'\]"),
        (lambda data, rng: ("yes", [1.0]), r"an output of type list \(\[1.0\]\), which is not hashable"),
        (lambda data, rng: float("nan"), "returned NaN"),
    ],
)
def test_one_run_callables_that_misbehave(one_run, message):
    m = Mechanism.from_callable(one_run, claim=PureDP(1.0), name="odd")
    with pytest.raises(MechanismError, match=message):
        m.sample(0.0, 50, np.random.default_rng(1))


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"name": ""}, "name='' must be a non-empty string"),
        ({"claim": 1.0}, "claim=1.0 must be PureDP"),
        ({"neighbours": "add"}, "neighbours='add' must be"),
        ({"sampler": 3}, "sampler=3 must be callable"),
        ({"sensitivity": 0}, "sensitivity=0 must be a positive finite number"),
        ({"true_epsilon": -1}, "true_epsilon=-1 must be >= 0"),
    ],
)
def test_invalid_descriptions_are_refused(fields, message):
    base = dict(name="m", claim=PureDP(1.0), neighbours=QueryDistance(1.0), sampler=lambda q, n, rng: np.zeros(n))
    base.update(fields)
    with pytest.raises(InvalidArgument, match=message):
        Mechanism(**base)


def test_sample_checks_its_own_arguments():
    m = make(lambda q, n, rng: np.zeros(n))
    with pytest.raises(InvalidArgument, match="n=-1 must be a non-negative integer"):
        m.sample(0.0, -1, np.random.default_rng(0))
    with pytest.raises(InvalidArgument, match="must be a numpy.random.Generator"):
        m.sample(0.0, 3, np.random.RandomState(0))


def test_as_dict_is_json_ready():
    import json

    m = make(lambda q, n, rng: np.zeros(n), flaw="broken", true_epsilon=float("inf"))
    doc = m.as_dict()
    assert doc["flawed"] is True and doc["true_epsilon"] == "inf"
    json.dumps(doc)
