"""Zero-concentrated, Rényi and Gaussian DP of a declared density, decided from its Rényi divergence.

Preconditions
    A density whose Rényi divergence :mod:`.renyi` gives in closed form (normal, Laplace, discrete
    Gaussian, finite pmf).
Claim
    * rho-zCDP: D_alpha <= rho alpha for every alpha > 1 (Bun & Steinke 2016, Def. 1.1);
    * (alpha_i, epsilon_i)-RDP: D_{alpha_i} <= epsilon_i at each claimed order (Mironov 2017, Def. 4);
    * mu-GDP of the normal density: T(N(q, sigma^2), N(q', sigma^2)) >= G_mu (Dong, Roth & Su 2022, Def. 2.6).
Proof
    zCDP: when D_alpha = c alpha (normal and discrete Gaussian), the claim holds iff c <= rho, a sign
    decided for all parameters (or at the instance when the claim is a number); otherwise (Laplace,
    finite) pure epsilon-DP with epsilon = D_infinity implies (epsilon^2 / 2)-zCDP (Bun & Steinke 2016,
    Prop. 1.4), and a refutation is searched over a grid of orders.  RDP: D_alpha is evaluated at each
    claimed order.  GDP: N(q, sigma^2) vs N(q', sigma^2) has the trade-off function G_{|q - q'|/sigma}
    exactly (Dong, Roth & Su 2022, Thm. 2.7), and G_mu decreases in mu, so mu-GDP holds iff
    Delta / sigma <= mu.  A proved claim ends with its conversion to (epsilon, delta)-DP as a checked
    step (:mod:`dpaudit.conversions`).  A refutation names the order alpha and the neighbouring pair
    (q, q') where D_alpha exceeds the claim (for GDP: epsilon = 0 and the set where the two densities
    differ most), re-evaluated with mpmath at :data:`~dpaudit.proofs.inequalities.signs.DIGITS` digits.

A claim stated as a number is matched to a parameter of the density named ``rho`` or ``mu`` whose
instance value it equals; then the proof holds for all parameter values, else at the instance.
"""

from __future__ import annotations

from typing import Any

from ...claims import GaussianDP, RenyiDP, ZeroConcentratedDP
from ..inequalities.signs import DIGITS, SignContext
from ..result import Counterexample, Outcome, Step, Verdict
from .renyi import RenyiDivergence, renyi_divergence

__all__ = ["REFUTATION_ORDERS", "prove_concentrated"]

METHOD = "Rényi divergence (closed form)"

REFUTATION_ORDERS = (1.01, 1.1, 1.25, 1.5, 2, 3, 4, 6, 8, 12, 16, 24, 32, 64, 128, 256, 1024)
"""Orders at which a zCDP claim is checked when D_alpha is not linear in alpha."""

# The delta at which a proved claim's (epsilon, delta) conversion is stated in the certificate.
CONVERSION_DELTA = 1e-5


def prove_concentrated(density: Any, claim: Any, context: SignContext) -> Outcome:
    """Decide a ZeroConcentratedDP, RenyiDP or GaussianDP claim (see the module docstring)."""
    divergence = renyi_divergence(density)
    if divergence is None:
        return Outcome(Verdict.UNKNOWN, "no closed-form Rényi divergence for this density "
                       "(normal, Laplace, discrete Gaussian or a finite pmf)", METHOD)
    if isinstance(claim, ZeroConcentratedDP):
        return _zcdp(density, divergence, claim, context)
    if isinstance(claim, RenyiDP):
        return _renyi(density, divergence, claim, context)
    if isinstance(claim, GaussianDP):
        return _gdp(density, divergence, claim, context)
    raise TypeError(f"claim={claim!r} is not a zCDP, RDP or GDP claim")  # pragma: no cover - prove() routes


# -- helpers ------------------------------------------------------------------------------------

def _claimed(density: Any, name: str, value: float) -> tuple[Any, bool]:
    """(the claim as a sympy expression, True if it is the density's own parameter ``name``)."""
    import sympy

    for parameter, number in dict(density.instance).items():
        if parameter.name == name and parameter in density.parameters and abs(float(number) - value) <= 1e-12 * max(1.0, value):
            return parameter, True
    return sympy.nsimplify(value, rational=True), False


def _at(expression: Any, point: dict) -> Any:
    import mpmath
    import sympy

    with mpmath.workdps(DIGITS):
        return mpmath.mpf(str(sympy.N(sympy.sympify(expression).subs(point), DIGITS)))


def _input(value: Any, point: dict) -> Any:
    """A neighbouring input at the instance: a number, or a tuple of numbers (finite input domains)."""
    if isinstance(value, tuple):
        return tuple(float(_at(v, point)) for v in value)
    return float(_at(value, point))


def _numbers(point: dict) -> dict[str, float]:
    return {str(p): float(v) for p, v in point.items()}


def _instance(context: SignContext) -> dict:
    import sympy

    return {p: sympy.nsimplify(v, rational=True) for p, v in context.instance.items()}


def _decide_at(expression: Any, symbolic: bool, context: SignContext) -> tuple[bool | None, str]:
    """Is ``expression >= 0``?  For all parameters when ``symbolic``, else at the instance (mpmath)."""
    if symbolic:
        answer = context.nonnegative(expression)
        if answer is not None:
            return answer, "all parameters"
    value = _at(expression, _instance(context))
    return value >= 0, "instance"


def _conversion_step(claim: Any, point: dict) -> Step:
    """The proved claim's (epsilon, delta)-DP at CONVERSION_DELTA, checked by evaluating delta(epsilon) back."""
    import sympy

    del point
    epsilon = claim.epsilon_at_delta(CONVERSION_DELTA)
    back = claim.delta_at_epsilon(epsilon)
    if back > CONVERSION_DELTA * (1 + 1e-9):  # pragma: no cover - the conversions are inverses
        raise ArithmeticError(f"delta({epsilon}) = {back} exceeds {CONVERSION_DELTA}")
    source = claim.conversion_reference + (" (exact)" if claim.conversion_is_exact else "")
    return Step(
        "conversion",
        sympy.Eq(sympy.Symbol("epsilon"), sympy.Float(epsilon, 10)),
        f"{claim} implies ({epsilon:.6g}, {CONVERSION_DELTA:g})-DP ({source}); checked: delta({epsilon:.6g}) = {back:.6g} <= {CONVERSION_DELTA:g}",
    )


def direct_divergence(density: Any, pair: tuple, order: Any, point: dict) -> Any:
    """D_alpha(p(.|a) || p(.|b)) by direct summation or quadrature with mpmath, independent of the closed form.

    One output: ``mpmath.nsum`` over the integers or ``mpmath.quad`` over the reals of
    p(y|a)^alpha p(y|b)^(1-alpha); finite outputs: the exact finite sum.  None for other shapes.
    """
    import mpmath
    import sympy

    from ..densities.outputs import finite_outputs, is_finite_output, pmf_at
    from ..densities.verify import _series_value

    def at(expr: Any) -> Any:
        expr = sympy.sympify(expr).xreplace(point)
        return expr.xreplace({series: _series_value(series) for series in expr.atoms(sympy.Sum) if not series.free_symbols})

    alpha = mpmath.mpf(str(sympy.N(order, DIGITS)))
    with mpmath.workdps(DIGITS):
        if density.input_domain is not None and is_finite_output(density):
            terms = [(mpmath.mpf(str(sympy.N(at(pmf_at(density, y, pair[0])), DIGITS))),
                      mpmath.mpf(str(sympy.N(at(pmf_at(density, y, pair[1])), DIGITS)))) for y in finite_outputs(density)]
            moment = mpmath.fsum(pa**alpha * pb ** (1 - alpha) for pa, pb in terms if pa > 0)
        elif len(density.outputs) == 1 and len(density.inputs) == 1:
            y, q = density.outputs[0], density.inputs[0]
            a, b = (at(sympy.sympify(x)) for x in pair)
            pa = sympy.lambdify(y, at(density.expr).xreplace({q: a}), modules="mpmath")
            pb = sympy.lambdify(y, at(density.expr).xreplace({q: b}), modules="mpmath")
            function = lambda v: pa(v) ** alpha * pb(v) ** (1 - alpha)  # noqa: E731
            if density.discrete:
                moment = mpmath.nsum(function, [-mpmath.inf, mpmath.inf])
            else:
                moment = mpmath.quad(function, [-mpmath.inf, mpmath.mpf(str(sympy.N(a, DIGITS))),
                                                mpmath.mpf(str(sympy.N(b, DIGITS))), mpmath.inf])
        else:
            return None
        return mpmath.log(moment) / (alpha - 1)


def _refutation(divergence: RenyiDivergence, order: Any, value: Any, bound: Any, point: dict, what: str,
                density: Any = None) -> Counterexample | None:
    """The witness, with D_alpha re-evaluated by :func:`direct_divergence`; None if that does not confirm it."""
    direct = None if density is None else direct_divergence(density, divergence.pair, order, point)
    if direct is not None:
        if not direct > bound:
            return None
        value = direct
    return Counterexample(
        description=f"D_alpha at alpha = {float(order):g} is {float(value):.6g} > {what} = {float(bound):.6g}",
        inputs=tuple(_input(x, point) for x in divergence.pair),
        output=None,
        output_set="all outputs (a divergence)",
        quantity=f"Rényi divergence D_{float(order):g}",
        log_ratio=float(value),
        bound=float(bound),
        parameters=_numbers(point),
        precision_digits=DIGITS,
        extra={"alpha": float(order), "family": divergence.family,
               "recomputed": "by direct summation/quadrature" if direct is not None else "closed form at 50 digits"},
    )


# -- zCDP ---------------------------------------------------------------------------------------

def _zcdp(density: Any, divergence: RenyiDivergence, claim: ZeroConcentratedDP, context: SignContext) -> Outcome:
    import sympy

    rho, symbolic = _claimed(density, "rho", claim.rho)
    steps = list(divergence.steps)
    point = _instance(context)
    if divergence.linear_coefficient is not None:
        c = divergence.linear_coefficient
        holds, scope = _decide_at(rho - c, symbolic, context)
        steps.append(Step("final inequality", sympy.Le(c, rho, evaluate=False),
                          f"D_alpha / alpha = {sympy.sstr(c)} <= rho for every alpha > 1 (Bun & Steinke 2016, Def. 1.1)"))
        if holds:
            steps.append(_conversion_step(claim, point))
            return Outcome(Verdict.PROVED, f"D_alpha = alpha * {sympy.sstr(c)} <= rho alpha for every alpha > 1", METHOD,
                           steps, details={"renyi_divergence": sympy.sstr(divergence.expression)}, scope=scope)
        order = sympy.Integer(2)  # exact for the discrete Gaussian too when Delta is an integer
        if not divergence.exact and not _integer(sympy.sympify(divergence.pair[1]).subs(point)):
            return Outcome(Verdict.UNKNOWN, f"rho < {sympy.sstr(c)} but the bound on D_alpha is exact only at "
                           f"{divergence.exact_orders}, and Delta is not an integer", METHOD, steps[:-1])
        value = _at(divergence.expression.subs(divergence.alpha, order), point)
        bound = _at(order * rho, point)
        witness = _refutation(divergence, order, value, bound, point, "rho alpha", density)
        if witness is None:
            return _unconfirmed(order, steps[:-1])
        return Outcome(Verdict.REFUTED, witness.description, METHOD, steps[:-1], counterexample=witness, scope="instance",
                       details={"true_rho": float(_at(c, point))})
    return _zcdp_general(density, divergence, claim, rho, steps, point)


def _unconfirmed(order: Any, steps: list) -> Outcome:
    return Outcome(Verdict.UNKNOWN, f"the closed form exceeds the claim at alpha = {float(order):g}, but direct "
                   "summation/quadrature did not confirm it", METHOD, steps)


def _zcdp_general(density: Any, divergence: RenyiDivergence, claim: ZeroConcentratedDP, rho: Any, steps: list,
                  point: dict) -> Outcome:
    """Laplace and finite pmfs: pure-DP implication for the proof, a grid of orders for the refutation."""
    import sympy

    from ..budget import checkpoint

    rho_value = _at(rho, point)
    if divergence.limit is not None:
        pure = _at(divergence.limit, point)
        if pure**2 / 2 <= rho_value:
            steps.append(Step("supremum", sympy.Eq(sympy.Symbol("D_oo"), divergence.limit),
                              "D_infinity = sup log p(y|q)/p(y|q'): the mechanism is pure epsilon-DP with this epsilon"))
            steps.append(Step("final inequality", sympy.Le(divergence.limit**2 / 2, rho),
                              f"epsilon-DP implies (epsilon^2/2)-zCDP (Bun & Steinke 2016, Prop. 1.4); {float(pure)**2 / 2:.6g} <= rho at the instance"))
            steps.append(_conversion_step(claim, point))
            return Outcome(Verdict.PROVED, f"pure {float(pure):.6g}-DP implies {float(pure)**2 / 2:.6g}-zCDP <= the claimed rho",
                           METHOD, steps, scope="instance")
    for order in REFUTATION_ORDERS:
        checkpoint(f"D_alpha at alpha = {order}")
        alpha = sympy.nsimplify(order, rational=True)
        value = _at(divergence.expression.subs(divergence.alpha, alpha), point)
        if value > alpha * rho_value:
            witness = _refutation(divergence, alpha, value, alpha * rho_value, point, "rho alpha", density)
            if witness is None:
                return _unconfirmed(alpha, steps)
            return Outcome(Verdict.REFUTED, witness.description, METHOD, steps, counterexample=witness, scope="instance")
    return Outcome(Verdict.UNKNOWN, f"D_alpha <= rho alpha at every order of {REFUTATION_ORDERS}, but rho is below "
                   "epsilon^2/2 of the pure-DP bound, so no proof for every alpha > 1", METHOD, steps)


def _integer(value: Any) -> bool:
    import sympy

    return bool(sympy.sympify(value).is_integer) or (sympy.sympify(value).is_number and float(value).is_integer())


# -- RDP ----------------------------------------------------------------------------------------

def _renyi(density: Any, divergence: RenyiDivergence, claim: RenyiDP, context: SignContext) -> Outcome:
    import sympy

    steps = list(divergence.steps)
    point = _instance(context)
    for alpha, epsilon in zip(claim.alpha, claim.epsilon):
        order = sympy.nsimplify(alpha, rational=True)
        at_order = divergence.expression.subs(divergence.alpha, order)
        value = _at(at_order, point)
        steps.append(Step("final inequality", sympy.Le(sympy.Float(str(value), 15), sympy.Float(epsilon, 15)),
                          f"D_alpha at alpha = {alpha:g} at the instance (mpmath, {DIGITS} digits) against epsilon({alpha:g}) = {epsilon:g}"))
        if value > epsilon:
            exact_here = divergence.exact or _integer((order - 1) * sympy.sympify(divergence.pair[1]).subs(point))
            if not exact_here:
                return Outcome(Verdict.UNKNOWN, f"the bound on D_alpha exceeds epsilon at alpha = {alpha:g} but is exact "
                               f"only at {divergence.exact_orders}", METHOD, steps[:-1])
            witness = _refutation(divergence, order, value, epsilon, point, f"epsilon({alpha:g})", density)
            if witness is None:
                return _unconfirmed(order, steps[:-1])
            return Outcome(Verdict.REFUTED, witness.description, METHOD, steps[:-1], counterexample=witness, scope="instance")
    steps.append(_conversion_step(claim, point))
    return Outcome(Verdict.PROVED, f"D_alpha <= epsilon(alpha) at each of the {len(claim.alpha)} claimed order(s)",
                   METHOD, steps, scope="instance")


# -- GDP ----------------------------------------------------------------------------------------

def _gdp(density: Any, divergence: RenyiDivergence, claim: GaussianDP, context: SignContext) -> Outcome:
    import mpmath
    import sympy

    if divergence.family != "gaussian":
        return Outcome(Verdict.UNKNOWN, f"mu-GDP is decided for the normal density only (this one is {divergence.family})", METHOD)
    mu, symbolic = _claimed(density, "mu", claim.mu)
    true_mu = sympy.sqrt(2 * divergence.linear_coefficient)  # Delta / sigma, as D_alpha = alpha (Delta/sigma)^2 / 2
    point = _instance(context)
    steps = list(divergence.steps) + [
        Step("supremum", sympy.Eq(sympy.Symbol("mu_true"), sympy.simplify(true_mu)),
             "N(q, sigma^2) vs N(q', sigma^2) has trade-off function G_(|q - q'|/sigma), largest shift Delta: "
             "it is exactly (Delta/sigma)-GDP (Dong, Roth & Su 2022, Thm. 2.7)"),
    ]
    holds, scope = _decide_at(mu**2 - true_mu**2, symbolic, context)
    if holds:
        steps.append(Step("final inequality", sympy.Le(true_mu, mu, evaluate=False), "G_mu decreases in mu, so G_(Delta/sigma) >= G_mu"))
        steps.append(_conversion_step(claim, point))
        return Outcome(Verdict.PROVED, "Delta/sigma <= mu: the trade-off function is at least G_mu", METHOD, steps, scope=scope)
    with mpmath.workdps(DIGITS):
        m, shift = _at(true_mu, point), _at(divergence.pair[1], point)
        realised = 2 * mpmath.ncdf(m / 2) - 1
        claimed = 2 * mpmath.ncdf(_at(mu, point) / 2) - 1
    witness = Counterexample(
        description=f"at epsilon = 0 the total variation {float(realised):.6g} exceeds the {claim}'s delta(0) = {float(claimed):.6g}",
        inputs=(0.0, float(shift)),
        output=None,
        output_set=f"y < {float(shift) / 2:.10g}",
        quantity="hockey-stick delta at epsilon = 0",
        log_ratio=float(realised),
        bound=float(claimed),
        parameters=_numbers(point),
        precision_digits=DIGITS,
        extra={"true_mu": float(m)},
    )
    return Outcome(Verdict.REFUTED, witness.description, METHOD, steps, counterexample=witness, scope="instance",
                   details={"true_mu": float(m)})
