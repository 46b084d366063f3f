"""The exact suprema behind NRS admissibility, against closed forms (Nissim, Raskhodnikova & Smith 2007)."""

from __future__ import annotations

import dataclasses

import pytest
import sympy

from dpaudit.mechanisms.catalogue.smooth_sensitivity import smooth_median
from dpaudit.proofs import prove
from dpaudit.proofs.structures.admissible import score_suprema

z = sympy.Symbol("z", real=True)


@pytest.mark.parametrize(
    ("h", "slide", "dilate"),
    [
        # Cauchy: g = -2z/(1 + z^2), |g| <= 1 at z = 1; 1 + z g = (1 - z^2)/(1 + z^2) in (-1, 1]
        (1 / (sympy.pi * (1 + z**2)), 1, 1),
        # 1/(1 + |z|^gamma): sup|g| = (gamma - 1)^(1 - 1/gamma) at z^gamma = gamma - 1, sup|1 + z g| = gamma - 1
        (sympy.sqrt(2) / sympy.pi / (1 + z**4), 3 ** sympy.Rational(3, 4), 3),
        (1 / (1 + sympy.Abs(z) ** 6), 5 ** sympy.Rational(5, 6), 5),
        # Laplace: |g| = 1 off 0, but |1 + z g| = |1 - |z|| is unbounded (not admissible for pure DP)
        (sympy.exp(-sympy.Abs(z)) / 2, 1, sympy.oo),
        # Gaussian: g = -z is unbounded
        (sympy.exp(-(z**2) / 2) / sympy.sqrt(2 * sympy.pi), sympy.oo, sympy.oo),
    ],
)
def test_score_suprema_match_closed_forms(h, slide, dilate):
    got_slide, got_dilate = score_suprema(h, z)
    assert sympy.simplify(got_slide - slide) == 0 or got_slide == slide
    assert sympy.simplify(got_dilate - dilate) == 0 or got_dilate == dilate


@pytest.mark.parametrize(
    "h",
    [
        sympy.exp(-sympy.cosh(z)) / 3,  # score sinh(z): not rational
        # a jump at 0: the score is 0 off the jump, which must not be read as sup |g| = 0
        (2 + sympy.sign(z)) / (4 * (1 + z**2)) * 2 / sympy.pi,
        sympy.Heaviside(z) * sympy.exp(-z) + sympy.Heaviside(-z) * sympy.exp(z) / 2,
    ],
)
def test_scores_outside_the_rule_are_undecided(h):
    assert score_suprema(h, z) is None


def _with_noise(h):
    m = smooth_median()
    return dataclasses.replace(m, structure=dataclasses.replace(m.structure, noise_density=lambda: (h, z)))


def test_cauchy_noise_at_the_same_alpha_beta_is_also_proved():
    # alpha sup|g| = 1/8 and beta sup|1 + z g| = 1/10, both <= 1/2 (NRS Lemma 2.7's family, gamma = 2)
    assert prove(_with_noise(1 / (sympy.pi * (1 + z**2)))).proved


def test_unnormalised_noise_is_unknown_at_the_density_step():
    result = prove(_with_noise(1 / (1 + z**4)))
    assert not result.proved and "step 'noise density'" in result.reason
