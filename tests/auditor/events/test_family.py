"""The event-family interface: the registry, a user's own family in a real audit, rebuilding its events."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

import dpaudit
from dpaudit.auditor import Verdict
from dpaudit.auditor.events import (
    BaseFamily,
    EventFamily,
    Scored,
    family,
    family_named,
    register_family,
    registered_families,
    unregister_family,
)
from dpaudit.auditor.events.sets import event_from_dict
from dpaudit.errors import InvalidArgument


def test_the_shipped_families_are_registered_in_search_order_and_satisfy_the_protocol():
    names = [f.name for f in registered_families()]
    assert names == ["standard", "lattice", "float-support", "correlated-noise", "learned", "product-ratio"]
    assert all(isinstance(f, EventFamily) for f in registered_families())
    assert [f.name for f in registered_families() if f.implementation] == ["lattice", "float-support",
                                                                            "correlated-noise"]


@dataclass(frozen=True)
class LastAboveFirst:
    """y[-1] - y[0] > t: an event type of its own, to check the registry rebuilds it."""

    t: float

    def contains(self, rows: np.ndarray) -> np.ndarray:
        return rows[:, -1] - rows[:, 0] > self.t

    def describe(self) -> str:
        return f"output[-1] - output[0] > {self.t:g}"

    def as_dict(self) -> dict[str, Any]:
        return {"type": "last-above-first", "t": self.t}


class LastAboveFirstFamily(BaseFamily):
    name, event_types = "last-above-first", ("last-above-first",)

    def search(self, rows_a, rows_b, context):
        event = LastAboveFirst(0.5)
        ka, kb = np.count_nonzero(event.contains(rows_a)), np.count_nonzero(event.contains(rows_b))
        bound = float(context.score(np.array([ka]), len(rows_a), np.array([kb]), len(rows_b))[0])
        return [Scored(event, self.name, True, bound, int(ka), int(kb))], ["last-above-first: one event"]

    def event_from_dict(self, spec, noise=None):
        return LastAboveFirst(float(spec["t"]))


@pytest.fixture
def own_family():
    registered = register_family(LastAboveFirstFamily())
    try:
        yield registered
    finally:
        unregister_family(registered.name)


def _two_coordinates(data, n, rng):
    # Only the difference of the coordinates carries the input: y = (n0, n0 + 2 * data + n1).
    base = rng.normal(size=n)
    return np.c_[base, base + 2.0 * float(data) + 0.1 * rng.normal(size=n)]


def test_a_registered_family_joins_a_real_audit_and_its_event_is_verified(own_family):
    result = dpaudit.audit(_two_coordinates, epsilon=1.0, pair=(1, 0), samples=20_000, seed=3,
                           executor="in-process", progress=False, learned=False, checks=None)
    # The difference moves by 2 with noise sd ~0.14: the event y[-1] - y[0] > 0.5 separates the inputs.
    assert result.event == "output[-1] - output[0] > 0.5"
    assert any(c.family == "last-above-first" for c in result.candidates)
    assert result.verdict is Verdict.VIOLATION
    assert "last-above-first: one event" in result.notes
    assert family_named("last-above-first") is own_family


def test_a_registered_familys_events_are_rebuilt_from_their_json(own_family):
    spec = json.loads(json.dumps(LastAboveFirst(0.25).as_dict()))
    assert event_from_dict(spec) == LastAboveFirst(0.25)


def test_after_unregistering_its_events_are_unknown_by_name():
    with pytest.raises(ValueError, match="event type='last-above-first' must be one of threshold"):
        event_from_dict({"type": "last-above-first", "t": 0.25})
    with pytest.raises(InvalidArgument, match="no event family named 'nope'"):
        unregister_family("nope")


def test_registering_the_same_name_replaces_in_place_and_a_partial_family_is_refused():
    before = registered_families()
    try:
        replacement = LastAboveFirstFamily()
        replacement.name = "standard"
        register_family(replacement)
        assert [f.name for f in registered_families()] == [f.name for f in before]
        assert registered_families()[0] is replacement
    finally:
        register_family(before[0])
    assert registered_families() == before
    with pytest.raises(InvalidArgument, match="lacks enabled, search, screen, event_from_dict"):
        register_family(type("Half", (), {"name": "half", "implementation": False, "event_types": ()})())


def test_the_documented_example_family_runs_as_written():
    code = re.search(r"::\n\n((?:    .*\n|\n)+)", family.__doc__).group(1)
    namespace: dict[str, Any] = {}
    exec(compile("\n".join(line[4:] for line in code.splitlines()), "<family docstring>", "exec"), namespace)
    try:
        example = family_named("max-above-median")
        assert example is not None
        rows_a = np.random.default_rng(0).normal(size=(1000, 3)) + 1.0
        rows_b = np.random.default_rng(1).normal(size=(1000, 3))
        context = family.SearchContext(None, (0, 1), lambda ka, na, kb, nb: np.log((ka + 1) / na) - np.log((kb + 1) / nb))
        (scored,), notes = example.search(rows_a, rows_b, context)
        assert scored.event.describe().startswith("max of coordinates >") and scored.hits_a > scored.hits_b and notes == []
    finally:
        unregister_family("max-above-median")
