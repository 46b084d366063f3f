"""Lattice events on vector outputs: a float histogram leaks through the bin the neighbour changes.

Power: the catalogue's ``laplace-histogram-numpy`` (4 counts plus numpy Laplace noise each, epsilon =
1, add/remove) is flagged by the default audit at 2 x 10^4 samples per side with a proven support
mismatch on the changed count (0 against 1: the ulp-lattice lemma), whose witness is checked by
brute force.
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
from tests.auditor.test_leak_witness import reachable_by_brute_force

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
def test_float_histogram_is_flagged_on_the_changed_bin():
    mechanism = dpaudit.get("laplace-histogram-numpy")
    result = dpaudit.audit(mechanism, samples=20_000, seed=5, executor="in-process")
    lattice = [f for f in result.findings if f["check"] == "lattice"]
    assert result.verdict.value == "violation" and lattice, result.reason
    finding = lattice[0]
    assert finding["proven_empty"] and finding["epsilon_lower_bound"] > 5
    spec = result.event_spec
    coordinate = spec["coordinate"]
    q_a, q_b = (mechanism.query(data)[coordinate] for data in finding["pair"])
    assert q_a != q_b
    assert not reachable_by_brute_force(float.fromhex(finding["witness"]["output_hex"]), q_b)
    assert result.event.startswith(f"output[{coordinate}]: ")


@pytest.mark.statistical
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("kind", ["laplace-vector", "discrete-histogram"])
def test_exact_vector_mechanisms_give_no_lattice_finding(kind, seed):
    mechanism = dpaudit.get(kind) if kind == "laplace-vector" else _mechanism(kind, discrete_histogram)
    pair = mechanism.pairs[0] if mechanism.pairs else ((0, 1, 2), (0, 1, 2, 3))
    result = dpaudit.audit(mechanism, pair=pair, samples=5_000, seed=seed, executor="in-process", checks=("lattice",))
    assert not [f for f in result.findings if f["check"] == "lattice"]
    assert "lattice" not in {v.family for v in result.candidates}
