"""A support-mismatch finding carries a witness output, checked here against independent ground truth.

For the four float entries the default audit must report a proven-empty leak finding whose witness
(one search output of M(a) in the event) (1) lies in the reported event, (2) is outside the support of M(b):
for a lattice event, reached by no double n in fl(q_b + n) -- checked by brute force over the
doubles around y - q_b, not by the auditor's code -- for a float-support event, reproduced by no
uniform index of the noise under q_b -- and (3) where the entry exposes its noise, is reproduced exactly from q_a by a replay.
Seeded audits: a float entry at 2 x 10^4 samples per side has thousands of off-lattice outputs, so a
finding without a witness would be a bug, not bad luck.
"""

from __future__ import annotations

import numpy as np
import pytest

import dpaudit
from dpaudit.auditor.events.leaks.float_support import support_match
from dpaudit.auditor.events.sets import event_from_dict

NAMES = ["laplace-float-textbook", "laplace-scipy", "laplace-numpy", "gaussian-box-muller"]


def reachable_by_brute_force(y: float, q: float, width: int = 8) -> bool:
    """True when fl(q + n) == y for one of the 2 * width + 1 doubles n nearest to y - q."""
    candidate = np.float64(y) - np.float64(q)
    for _ in range(width):
        candidate = np.nextafter(candidate, -np.inf)
    for _ in range(2 * width + 1):
        if np.float64(q) + candidate == np.float64(y):
            return True
        candidate = np.nextafter(candidate, np.inf)
    return False


@pytest.mark.statistical
@pytest.mark.parametrize("name", NAMES)
def test_support_mismatch_comes_with_a_checkable_witness(name):
    mechanism = dpaudit.get(name)
    result = dpaudit.audit(mechanism, samples=20_000, seed=3, executor="in-process")
    proven = [f for f in result.findings if getattr(f, "proven_empty", False)]
    assert result.verdict.value == "violation" and proven, result.reason
    for finding in proven:
        witness = finding.witness
        y = float.fromhex(witness["output_hex"])
        assert y == witness["output"] and witness["under"] == finding.pair[0]
        q_a, q_b = (float(mechanism.query(data)) for data in finding.pair)
        if finding.check == "lattice":
            assert not reachable_by_brute_force(y, q_b)
        else:  # float-support: the replay (tested against brute force in test_float_support.py)
            assert finding.check == "float-support"
            assert not support_match(mechanism.noise, np.array([y]), q_b).consistent.any()
        if mechanism.noise is not None:
            assert support_match(mechanism.noise, np.array([y]), q_a).consistent.all()
    spec = result.event_spec
    if "witness" in spec:
        event = event_from_dict(spec, noise=mechanism.noise)
        assert event.contains(np.array([[float.fromhex(spec["witness"])]])).all()
        assert event.as_dict() == spec


def test_brute_force_reachability_sees_the_lattice():
    # 2^-60 is a double, but every fl(1 + n) is a multiple of 2^-53 (ulp-lattice lemma): not reachable
    assert reachable_by_brute_force(0.75, 1.0) and not reachable_by_brute_force(2.0**-60, 1.0)


@pytest.mark.statistical
def test_box_muller_near_its_largest_claim_reaches_about_8_with_10_5_samples():
    # 95 000 verification + 5 000 search outputs per side.  The impossible-output mass at eps = 0.99 is
    # m = 0.165 (benchmarks/leaks.py), so the expected bound is ln(m 95 000 / ln(2 / alpha_last)) with
    # alpha_last = 0.05 x 0.8 x 7/8 / 2 = 0.0175 (the last planned look's share, dpaudit/auditor/
    # sequential.py, Bonferroni over the two verified candidates: the lattice event and the
    # algorithmic one, dpaudit/auditor/scopes.py): ln(15 675 / 4.74) = 8.10.  ln k_a moves by about
    # 1 / sqrt(15 700) = 0.008 from seed to seed: 7.9 is 25 such steps below.
    from dpaudit.mechanisms.catalogue.flawed.floating_point import gaussian_box_muller

    result = dpaudit.audit(gaussian_box_muller(epsilon=0.99), samples=95_000, search_samples=5_000, seed=1,
                           executor="in-process")
    assert result.samples + result.search_samples <= 100_000
    assert result.epsilon_lower_bound >= 7.9 and result.findings[0].proven_empty
