"""Lattice events on vector outputs: a float histogram leaks through the bin the neighbour changes.

Power: the catalogue's ``laplace-histogram-numpy`` (4 counts plus numpy Laplace noise each, epsilon =
1, add/remove) is flagged at 2 x 10^4 samples per side with a proven support mismatch on the changed
count by each of the two float checks alone: the lattice events (0 against 1: the ulp-lattice lemma;
witness checked by brute force) and the exact noise replay (witness reproduced from q_a, not q_b).
Validity: exact vector mechanisms -- the catalogue's grid Laplace vector and a discrete Laplace
histogram (difference of two geometric draws, integers) -- give no lattice finding over 6 seeds each:
a finding needs an event with a positive strict search bound and a verified bound above the claim,
both impossible for an exact mechanism except with probability <= alpha = 0.05 per audit; the
lattice families see the same grid under both inputs, so no event has that shape at all.
"""

from __future__ import annotations

import numpy as np
import pytest

import dpaudit
from dpaudit import AddRemove, Mechanism, PureDP
from dpaudit.auditor.events.leaks.float_support import support_match
from tests.auditor.events.leaks.test_leak_witness import reachable_by_brute_force

BINS = 5


def histogram(data) -> np.ndarray:
    return np.bincount(np.asarray(data, dtype=int), minlength=BINS).astype(float)


def discrete_histogram(data, n, rng):
    p = 1.0 - np.exp(-1.0)
    return histogram(data) + (rng.geometric(p, size=(n, BINS)) - rng.geometric(p, size=(n, BINS)))


def _mechanism(name: str, sampler) -> Mechanism:
    return Mechanism(name=name, claim=PureDP(1.0), neighbours=AddRemove(), sampler=sampler, query=histogram,
                     sensitivity=1.0, domain=tuple(range(BINS)))


@pytest.mark.statistical
@pytest.mark.parametrize("check", ["lattice", "float-support"])
def test_float_histogram_is_flagged_on_the_changed_bin(check):
    mechanism = dpaudit.get("laplace-histogram-numpy")
    result = dpaudit.audit(mechanism, samples=20_000, seed=5, executor="in-process", checks=(check,))
    found = [f for f in result.findings if f.check == check]
    assert result.verdict.value == "violation" and found, result.reason
    finding = found[0]
    assert finding.proven_empty and finding.epsilon_lower_bound > 5
    coordinate = result.event_spec["coordinate"]
    q_a, q_b = (float(mechanism.query(data)[coordinate]) for data in finding.pair)
    witness = np.array([float.fromhex(finding.witness["output_hex"])])
    assert q_a != q_b and result.event.startswith(f"output[{coordinate}]: ")
    if check == "lattice":
        assert not reachable_by_brute_force(witness[0], q_b)
    else:  # the replay (tested against brute force in test_float_support.py)
        assert not support_match(mechanism.noise, witness, q_b).consistent.any()
    assert support_match(mechanism.noise, witness, q_a).consistent.all()


@pytest.mark.statistical
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("kind", ["laplace-vector", "discrete-histogram"])
def test_exact_vector_mechanisms_give_no_lattice_finding(kind, seed):
    mechanism = dpaudit.get(kind) if kind == "laplace-vector" else _mechanism(kind, discrete_histogram)
    pair = mechanism.pairs[0] if mechanism.pairs else ((0, 1, 2), (0, 1, 2, 3))
    result = dpaudit.audit(mechanism, pair=pair, samples=5_000, seed=seed, executor="in-process", checks=("lattice",))
    assert not [f for f in result.findings if f.check == "lattice"]
    assert "lattice" not in {v.family for v in result.candidates}
