"""The gallery as a whole: every entry is a documented, buildable counterexample."""

from __future__ import annotations

import importlib
import math

import numpy as np
import pytest

import dpaudit.mechanisms.catalogue.flawed as gallery
from dpaudit.mechanisms.registry import catalogue

FLAWED = [m for m in catalogue() if m.flawed]
EXPECTED = {
    "noisy-max-value-laplace", "noisy-max-value-exponential", "svt-lyu-3", "svt-lyu-4", "svt-lyu-5",
    "svt-lyu-6", "laplace-scale-epsilon", "rr-miscalibrated", "exponential-no-factor-2",
    "laplace-float-textbook", "laplace-scipy", "laplace-numpy", "gaussian-box-muller", "laplace-histogram-numpy",
    "clamped-mean-wrong-sensitivity", "sum-clamp-after", "median-local-sensitivity", "geometric-by-trials",
}


def test_gallery_holds_every_entry_and_lists_it():
    assert EXPECTED <= {m.name for m in FLAWED}
    for name in EXPECTED:
        assert f"``{name}``" in gallery.__doc__, name


@pytest.mark.parametrize("mech", [m for m in FLAWED if m.name in EXPECTED], ids=lambda m: m.name)
def test_entry_states_its_flaw_and_breaks_its_claim(mech):
    assert mech.flaw and mech.source and mech.pairs and mech.domain is not None
    assert math.isinf(mech.true_epsilon) or mech.true_epsilon > mech.claim.epsilon
    module = importlib.import_module(mech.sampler.__module__)
    assert f"``{mech.name}``" in module.__doc__, "the module docstring states each entry's flaw"
    for a, b in mech.pairs:
        mech.neighbours.check(a, b)
        out_a, out_b = mech.sample(a, 64, np.random.default_rng(0)), mech.sample(b, 64, np.random.default_rng(0))
        assert out_a.shape == out_b.shape and out_a.shape[0] == 64
