"""Approximate DP of the Gaussian mechanism: the analytic delta(epsilon) of Balle & Wang (2018).

Preconditions
    A scalar density p(y | q) = N(q, sigma^2) (recognised from its logarithm: a quadratic in y - q
    with leading coefficient -1/(2 sigma^2)), neighbours |q - q'| <= Delta.
Claim
    (epsilon, delta)-DP, i.e. delta_BW(epsilon) <= delta where (Balle & Wang 2018, ICML, Thm. 8)

        delta_BW(epsilon) = Phi(Delta/(2 sigma) - epsilon sigma/Delta)
                            - e^epsilon Phi(-Delta/(2 sigma) - epsilon sigma/Delta).
Proof
    For all parameters: if sigma >= Delta sqrt(2 ln(1.25/delta)) / epsilon and epsilon < 1 are
    implied by the declaration, the classic calibration theorem (Dwork & Roth 2014, Thm. A.1) applies;
    both preconditions are decided symbolically.  Otherwise (e.g. sigma calibrated numerically by
    Balle & Wang's Alg. 1) delta_BW(epsilon) <= delta is checked at the catalogue instance with
    mpmath at 50 digits (scope: instance).  A violated instance is refuted with the output set
    {y : L(y) > epsilon}, a half-line.
"""

from __future__ import annotations

from typing import Any

from ..inequalities.signs import DIGITS, SignContext
from ..result import Counterexample, Outcome, Step, Verdict

__all__ = ["balle_wang_delta", "gaussian_sigma", "prove_gaussian_approx"]

METHOD = "analytic Gaussian (Balle & Wang 2018, Thm. 8)"


def gaussian_sigma(density: Any) -> Any:
    """sigma if ``density`` is exactly the normal density N(q, sigma^2) in one output, else None."""
    import sympy

    if len(density.outputs) != 1 or len(density.inputs) != 1 or density.discrete or density.sensitivity is None:
        return None
    y, q = density.outputs[0], density.inputs[0]
    z = sympy.Symbol("_z", real=True)
    logarithm = sympy.expand(sympy.expand_log(sympy.log(density.expr), force=True).subs(y, q + z))
    if logarithm.has(q) or not logarithm.is_polynomial(z) or sympy.degree(logarithm, z) != 2:
        return None
    poly = sympy.Poly(logarithm, z)
    a, b, c = poly.all_coeffs()
    if sympy.simplify(b) != 0 or (-a).is_positive is False:
        return None
    sigma = sympy.simplify(sympy.sqrt(sympy.simplify(-1 / (2 * a))))
    if sympy.simplify(sympy.expand_log(c + sympy.log(sympy.sqrt(2 * sympy.pi) * sigma), force=True)) != 0:
        return None
    return sigma


def balle_wang_delta(epsilon: Any, sigma: Any, sensitivity: Any) -> Any:
    """delta_BW(epsilon) as a sympy expression (Balle & Wang 2018, Thm. 8)."""
    import sympy

    phi = lambda x: (1 + sympy.erf(x / sympy.sqrt(2))) / 2  # noqa: E731 (standard normal CDF)
    u = sensitivity / (2 * sigma)
    v = epsilon * sigma / sensitivity
    return phi(u - v) - sympy.exp(epsilon) * phi(-u - v)


def prove_gaussian_approx(density: Any, epsilon: Any, delta: Any, context: SignContext, sigma: Any) -> Outcome:
    """Decide (epsilon, delta)-DP of the Gaussian density (see the module docstring)."""
    import mpmath
    import sympy

    sensitivity = density.sensitivity
    profile = balle_wang_delta(epsilon, sigma, sensitivity)
    steps = [Step("log ratio", profile, "delta_BW(epsilon), the exact privacy profile of N(q, sigma^2) vs N(q', sigma^2) (Balle & Wang 2018, Thm. 8)")]
    classic = sensitivity * sympy.sqrt(2 * sympy.log(sympy.Rational(5, 4) / delta)) / epsilon
    below_one = any(
        context.nonnegative(sympy.sympify(1 - sympy.sympify(a).rhs)) is True
        for a in density.assumptions
        if isinstance(a, (sympy.StrictLessThan, sympy.LessThan)) and sympy.sympify(a).lhs == epsilon
    ) or (epsilon.is_number and epsilon < 1)
    if epsilon.free_symbols and below_one and context.nonnegative(sympy.simplify(sigma**2 - classic**2)) is True:
        steps.append(Step("case split", sympy.Ge(sigma, classic), "sigma >= Delta sqrt(2 ln(1.25/delta)) / epsilon, decided for all parameters"))
        steps.append(Step("final inequality", sympy.Lt(epsilon, 1), "with epsilon < 1 (declared assumption), Dwork & Roth (2014) Thm. A.1 gives (epsilon, delta)-DP"))
        scope = "all parameters"
        points = [p for p in context.parameter_points()[:1]]
    else:
        scope = "instance"
        points = context.parameter_points()[:1]
    if not points:
        return Outcome(Verdict.UNKNOWN, "no instance values to evaluate delta_BW at", METHOD, steps)
    point = points[0]
    with mpmath.workdps(DIGITS):
        value = mpmath.mpf(str(sympy.N(profile.subs(point), DIGITS)))
        claimed = mpmath.mpf(str(sympy.N(delta.subs(point), DIGITS)))
    steps.append(
        Step(
            "supremum",
            sympy.Eq(sympy.Symbol("delta_BW"), sympy.Float(str(value), 15)),
            f"delta_BW at the instance {{{', '.join(f'{p}={sympy.N(v, 8)}' for p, v in point.items())}}} (mpmath, {DIGITS} digits)",
        )
    )
    details = {"delta_bw": float(value), "sigma": float(sympy.N(sigma.subs(point)))}
    if value <= claimed:
        if scope == "instance":
            steps.append(Step("final inequality", sympy.Le(sympy.Float(str(value), 15), sympy.Float(str(claimed), 15)), "checked at the instance"))
        reason = (
            f"delta_BW(epsilon) = {float(value):.6g} <= delta = {float(claimed):.6g}"
            if scope == "instance"
            else "classic Gaussian calibration with epsilon < 1 (Dwork & Roth 2014, Thm. A.1)"
        )
        return Outcome(Verdict.PROVED, reason, METHOD, steps, details=details, scope=scope)
    y, q = density.outputs[0], density.inputs[0]
    sigma_value = sympy.N(sigma.subs(point), DIGITS)
    sens_value = sympy.N(sensitivity.subs(point), DIGITS)
    eps_value = sympy.N(epsilon.subs(point), DIGITS)
    threshold = sens_value / 2 - eps_value * sigma_value**2 / sens_value
    witness = Counterexample(
        description=f"delta_BW(epsilon) = {float(value):.6g} > claimed delta = {float(claimed):.6g}",
        inputs=(0.0, float(sens_value)),
        output=None,
        output_set=f"y < {float(threshold):.10g}",
        quantity="hockey-stick delta",
        log_ratio=float(value),
        bound=float(claimed),
        parameters={str(p): float(sympy.N(v)) for p, v in point.items()},
        precision_digits=DIGITS,
    )
    del y, q
    return Outcome(Verdict.REFUTED, witness.description, METHOD, steps, counterexample=witness, details=details, scope="instance")
