"""Report noisy max with two answers: the Lipschitz bound in d = u0 - u1, its mutants, and the
exponential-polynomial sign decisions it rests on."""

from __future__ import annotations

import mpmath
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from dpaudit.mechanisms.density import SymbolicDensity, symbol
from dpaudit.neighbours import QueryDistance
from dpaudit.proofs import Verdict, prove
from dpaudit.proofs.densities.linear_statistic import linear_statistic
from dpaudit.proofs.inequalities.exp_polynomials import nonnegative_on_half_line
from dpaudit.proofs.inequalities.signs import SignContext
from tests.proofs.density_builders import as_mechanism

EPS, DELTA = symbol("epsilon"), symbol("Delta")


def noisy_max_2(scale=2, rate=1, flip=1, claim=None):
    """P[y = 0] of argmax(u0 + Lap(b), u1 + Lap(b)), b = scale Delta / epsilon (scale 2 is correct)."""
    y, u0, u1 = symbol("y"), symbol("u0"), symbol("u1")
    b = scale * DELTA / EPS
    d = u0 - u1
    p0 = sympy.Piecewise(
        (1 - (1 + d / (2 * b)) * sympy.exp(-rate * d / b) / 2, d >= 0),
        ((1 - flip * d / (2 * b)) * sympy.exp(rate * d / b) / 2, True),
    )
    return SymbolicDensity(
        expr=sympy.Piecewise((p0, sympy.Eq(y, 0)), (1 - p0, sympy.Eq(y, 1)), (0, True)),
        outputs=(y,),
        inputs=(u0, u1),
        epsilon=EPS if claim is None else claim(EPS),
        sensitivity=DELTA,
        norm="linf",
        discrete=True,
        output_domain=sympy.FiniteSet(0, 1),
        instance={EPS: 1, DELTA: 1},
    )


def _prove(**changes):
    return prove(as_mechanism("mutant", lambda: noisy_max_2(**changes), neighbours=QueryDistance(1.0, "linf")))


def test_the_correct_pmf_is_proved_for_all_parameters():
    result = _prove()
    assert result.verdict is Verdict.PROVED and result.scope == "all parameters"
    assert "Lipschitz" in result.method


def test_the_statistic_and_its_range_are_found():
    vector, d, reduced = linear_statistic(noisy_max_2().expr, (symbol("u0"), symbol("u1")))
    assert vector == (1, -1) and not reduced.has(symbol("u0"), symbol("u1"))


# Each mutant is wrong (its true supremum exceeds the claim), so it must come back refuted with a
# witness re-verified at 50 digits.
MUTANTS = {
    "missing factor 2 in the scale": {"scale": 1},  # sup = 2 epsilon
    "scale 3/2 instead of 2": {"scale": sympy.Rational(3, 2)},
    "wrong constant in the exponent": {"rate": 2},
    "sign flip in the left branch": {"flip": -1},  # p0 < 0 for d < -2b: not a pmf, and a ratio > e^eps
    "claim epsilon / 2": {"claim": lambda e: e / 2},
    # the supremum epsilon is approached only as d -> -oo: the witness must be searched far out
    "claim 9 epsilon / 10": {"claim": lambda e: 9 * e / 10},
}


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_no_mutant_is_proved(name):
    result = _prove(**MUTANTS[name])
    assert result.verdict is Verdict.REFUTED, result.reason
    witness = result.counterexample
    assert witness.log_ratio > witness.bound
    a, b = witness.inputs
    assert max(abs(x - z) for x, z in zip(a, b)) <= 1  # the witness pair is neighbouring (linf, Delta = 1)


@settings(max_examples=40, deadline=None)
@given(
    eps=st.fractions(min_value="1/20", max_value=5, max_denominator=20),
    sens=st.fractions(min_value="1/10", max_value=4, max_denominator=10),
    u=st.tuples(st.integers(-40, 40), st.integers(-40, 40)),
    w=st.tuples(st.sampled_from([-1, 0, 1]), st.sampled_from([-1, 0, 1])),
)
def test_the_proved_bound_holds_at_random_values(eps, sens, u, w):
    density = noisy_max_2()
    values = {EPS: sympy.Rational(eps.numerator, eps.denominator), DELTA: sympy.Rational(sens.numerator, sens.denominator)}
    a = [sympy.Rational(x, 4) * values[DELTA] for x in u]
    b = [x + m * values[DELTA] for x, m in zip(a, w)]
    for y in (0, 1):
        expr = density.expr.subs(values).subs(symbol("y"), y)
        pa, pb = (expr.subs(dict(zip(density.inputs, q))) for q in (a, b))
        with mpmath.workdps(40):
            ratio = mpmath.log(mpmath.mpf(str(sympy.N(pa, 40)))) - mpmath.log(mpmath.mpf(str(sympy.N(pb, 40))))
        assert ratio <= float(values[EPS]) * (1 + 1e-12)


V = sympy.Symbol("v", positive=True)


@pytest.mark.parametrize(
    "expr, strict",
    [
        (sympy.exp(V) - sympy.Rational(3, 4) - V / 2, False),  # the right branch of the noisy-max bound
        (1 - (1 + V / 2) * sympy.exp(-V) / 2, True),  # P[y = 0] > 0 for d > 0
        (sympy.exp(EPS * V / DELTA) - 1 - EPS * V / DELTA, False),  # tight at v = 0: needs the order-1 bound exactly
        ((8 * sympy.exp(V) - 4 - 2 * V) / (1 + V * sympy.exp(-V)), True),
    ],
)
def test_true_exponential_polynomial_signs_are_decided(expr, strict):
    assert nonnegative_on_half_line(expr, V, SignContext((DELTA, EPS)), strict=strict) is True


@pytest.mark.parametrize(
    "expr",
    [
        sympy.exp(V) - 2 - V,  # negative on (0, 1.14)
        V * sympy.exp(-V) - sympy.Rational(1, 2),  # never >= 0
        sympy.exp(-V) - sympy.Rational(1, 2),  # negative for v > ln 2
        sympy.exp(V**2) - 1,  # not an exponential polynomial: left undecided
    ],
)
def test_false_or_foreign_signs_are_never_claimed(expr):
    assert nonnegative_on_half_line(expr, V, SignContext((DELTA, EPS))) is not True
