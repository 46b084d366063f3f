"""Mechanism's parts (Runtime, Declaration, AuditHints, EntryInfo): built flat or from parts, replaced, pickled."""

from __future__ import annotations

import dataclasses
import pickle

import numpy as np
import pytest

from dpaudit import AddRemove, InvalidArgument, Mechanism, PureDP, QueryDistance
from dpaudit.mechanisms.base import AuditHints, Declaration, EntryInfo, Runtime, StepwiseRelease


def zeros(data, n, rng):
    """A module-level sampler, so that a Mechanism holding it pickles."""
    return np.zeros(n)


def ones(data, n, rng):
    return np.ones(n)


def flat() -> Mechanism:
    return Mechanism(name="m", claim=PureDP(1.0), neighbours=AddRemove(), sampler=zeros, randomness="own",
                     float_sum=False, sensitivity=2, domain=(0, 1), pairs=[[(0,), (0, 1)]], family="laplace",
                     description="one line", flaw="broken", true_epsilon=3, source="here")


def parted() -> Mechanism:
    return Mechanism(
        name="m", claim=PureDP(1.0), neighbours=AddRemove(),
        runtime=Runtime(zeros, randomness="own", float_sum=False),
        declaration=Declaration(sensitivity=2),
        hints=AuditHints(domain=(0, 1), pairs=[[(0,), (0, 1)]]),
        info=EntryInfo(family="laplace", description="one line", flaw="broken", true_epsilon=3, source="here"),
    )


def test_flat_fields_and_parts_build_the_same_mechanism():
    built = flat()
    assert built == parted() and hash(built) == hash(parted()) and repr(built) == repr(parted())
    assert built.runtime == Runtime(zeros, randomness="own", float_sum=False)
    runtime = (built.sampler, built.randomness, built.float_sum, built.noise, built.stepwise)
    assert runtime == (zeros, "own", False, None, None)
    assert (built.density, built.program, built.structure, built.query, built.sensitivity) == (None,) * 4 + (2.0,)
    assert (built.domain, built.pairs) == ((0, 1), (((0,), (0, 1)),))
    assert (built.family, built.description, built.flaw, built.true_epsilon, built.source) == (
        "laplace", "one line", "broken", 3.0, "here")
    assert built.flawed and not built.reproducible and not built.thread_safe


def test_a_flat_field_overrides_the_same_field_of_the_part_given():
    built = Mechanism("m", PureDP(1.0), AddRemove(), runtime=Runtime(zeros, randomness="own"), sampler=ones,
                      info=EntryInfo(family="laplace", flaw="broken"), flaw=None)
    assert built.runtime == Runtime(ones, randomness="own")
    assert built.info == EntryInfo(family="laplace") and not built.flawed


def test_the_one_run_sampler_is_a_runtime_field_read_flat():
    def one(data, rng):
        return 0

    built = Mechanism("m", PureDP(1.0), AddRemove(), zeros, one_run=one)
    assert built.one_run is one and built.runtime.one_run is one and flat().one_run is None
    assert dataclasses.replace(built, one_run=None).one_run is None
    assert built.runtime.marked_thread_safe().one_run is one


def test_flat_attributes_are_read_only():
    with pytest.raises(dataclasses.FrozenInstanceError):
        flat().sampler = ones
    with pytest.raises(dataclasses.FrozenInstanceError):
        flat().runtime = Runtime(ones)


def test_replace_takes_flat_fields_and_parts():
    before = flat()
    changed = dataclasses.replace(before, claim=PureDP(2.0), sampler=ones, neighbours=QueryDistance(1.0), flaw=None)
    assert changed.claim == PureDP(2.0) and changed.neighbours == QueryDistance(1.0)
    assert changed.runtime == dataclasses.replace(before.runtime, sampler=ones)
    assert changed.info == dataclasses.replace(before.info, flaw=None) and changed.hints == before.hints
    assert dataclasses.replace(before, hints=AuditHints()).hints == AuditHints()
    redeclared = dataclasses.replace(before, declaration=Declaration(), sensitivity=1)
    assert redeclared.declaration == Declaration(sensitivity=1)
    assert dataclasses.replace(before) == before


def test_pickling_round_trips():
    built = flat()
    again = pickle.loads(pickle.dumps(built))
    assert again == built and repr(again) == repr(built) and again.sampler is zeros


def test_the_parts_reprs_leave_out_functions_and_live_objects():
    assert repr(Runtime(zeros)) == "Runtime(randomness='generator', float_sum=True)"
    assert repr(Declaration(density=lambda: None, sensitivity=1)) == "Declaration(sensitivity=1.0)"
    assert repr(AuditHints((0, 1), [(0, 1)])) == "AuditHints(domain=(0, 1), pairs=((0, 1),))"
    assert repr(EntryInfo("laplace", true_epsilon=1)) == (
        "EntryInfo(family='laplace', description='', flaw=None, true_epsilon=1.0, source='')")
    assert repr(flat()) == (
        "Mechanism(name='m', claim=PureDP(epsilon=1.0), neighbours=AddRemove(), family='laplace', "
        "description='one line', sensitivity=2.0, domain=(0, 1), pairs=(((0,), (0, 1)),), flaw='broken', "
        "true_epsilon=3.0, source='here', randomness='own', float_sum=False)")


@pytest.mark.parametrize(
    "build, message",
    [
        (lambda: Runtime(3), "sampler=3 must be callable"),
        (lambda: Runtime(zeros, randomness="os"), "randomness='os' must be one of"),
        (lambda: Runtime(zeros, stepwise=3), "stepwise=3 must be a StepwiseRelease"),
        (lambda: Runtime(zeros, one_run=3), "one_run=3 must be callable as one_run"),
        (lambda: Declaration(sensitivity=0), "sensitivity=0 must be a positive finite number"),
        (lambda: EntryInfo(true_epsilon=float("nan")), "true_epsilon=nan must be >= 0"),
        (lambda: Mechanism("m", PureDP(1.0), AddRemove()), "sampler=None must be callable"),
        (lambda: Mechanism("m", PureDP(1.0), AddRemove(), zeros, info=Runtime(zeros)),
         "info=Runtime.* must be of type EntryInfo or None"),
    ],
)
def test_each_part_validates_itself(build, message):
    with pytest.raises(InvalidArgument, match=message):
        build()


def test_an_unknown_flat_field_is_a_type_error():
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        Mechanism("m", PureDP(1.0), AddRemove(), zeros, colour="red")


def test_the_registry_marks_a_wrapper_thread_safe_not_the_sampler():
    stepwise = StepwiseRelease(2, lambda t, delta: t * 1.0)
    runtime = Runtime(zeros, stepwise=stepwise)
    marked = runtime.marked_thread_safe()
    assert marked.thread_safe and not runtime.thread_safe and not hasattr(zeros, "thread_safe")
    assert marked.stepwise is stepwise and marked.sampler.__wrapped__ is zeros
