"""Sign decisions under non-strict assumptions: the boundary value is decided, never assumed away.

An assumption ``tau >= 2`` lets tau equal 2, where ``tau - 2 > 0`` fails; the re-parametrisation
tau = 2 + r (r > 0) alone would call it positive for all parameters.  The oracle is direct
substitution of the boundary value and of interior points.
"""

from __future__ import annotations

import pytest
import sympy

from dpaudit.proofs.inequalities.signs import SignContext

tau = sympy.Symbol("tau", positive=True)
p = sympy.Symbol("p", positive=True)


@pytest.mark.parametrize(
    "assumption, expr, nonnegative, positive",
    [
        (tau >= 2, tau - 2, True, None),   # zero at the boundary: >= 0 holds, > 0 does not
        (tau > 2, tau - 2, True, True),    # open range: both hold
        (tau >= 2, 2 - tau, None, False),  # < 0 inside, 0 at the boundary
        (tau >= 2, tau - 1, True, True),   # > 0 at the boundary as well
        (p <= 1, 1 - p, True, None),
        (p < 1, 1 - p, True, True),
        (p <= 1, 2 - p, True, True),
    ],
)
def test_boundary_of_a_non_strict_assumption_is_decided(assumption, expr, nonnegative, positive):
    context = SignContext((expr.free_symbols.pop(),), assumptions=(assumption,))
    assert context.nonnegative(expr) is nonnegative
    assert context.positive(expr) is positive


def test_decisions_agree_with_substitution_at_the_boundary():
    context = SignContext((tau,), assumptions=(tau >= 2,))
    for expr in (tau**2 - 4, (tau - 2) * (tau + 1), sympy.exp(tau) - sympy.exp(2), 3 * tau - 6):
        at_edge = expr.subs(tau, 2)
        if context.positive(expr):
            assert at_edge > 0
        if context.nonnegative(expr):
            assert at_edge >= 0


def test_equalities_and_inequations_give_no_range():
    # Eq(p, 1) and Ne(p, 1) must not be read as p > 1: nothing is decided from them
    assert SignContext((p,), assumptions=(sympy.Eq(p, 1),)).nonnegative(1 - p) is None
    assert SignContext((p,), assumptions=(sympy.Ne(p, 1),)).positive(p - 1) is None
