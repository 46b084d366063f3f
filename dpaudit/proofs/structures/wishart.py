"""The Wishart mechanism A(x) + W, W ~ Wishart_d(nu, c I): (epsilon', delta') by splitting off the support.

Jiang, Xie & Zhang, "Wishart mechanism for differentially private principal components analysis",
AAAI 2016 (Alg. 1); densities and the chi-square law from Muirhead, "Aspects of multivariate
statistical theory", 1982.  A(x) = (1/n) sum_i x_i x_i^T over n records with ||x_i||_2 <= 1; replacing
record x by x' moves A by (x' x'^T - x x^T)/n.

Preconditions
    nu >= d; the determinant exponent (nu - d - 1)/2 of the Wishart density is 0 (nu = d + 1), else the
    log-ratio on the common support is unbounded and this rule does not apply.
Claim
    (epsilon', delta')-DP with epsilon' = 1/(2 c n) and delta' = P[chi^2_{nu-d+1} <= 1/(c n)].
Proof
    1. Density (Muirhead Thm. 3.2.1): p(W) proportional to det(W)^((nu-d-1)/2) exp(-tr(W)/(2c)) on W > 0.
    2. On the common support of M(x) and M(x') the log-ratio is
       ((nu-d-1)/2) ln(det(Y-A)/det(Y-A')) + (tr A - tr A')/(2c) = (||x||^2 - ||x'||^2)/(2 c n) <= 1/(2 c n).
    3. Off M(x')'s support: Y - A' = W - (x'x'^T - x x^T)/n >= W - u u^T/n with u = x', and for W > 0,
       W - u u^T/n > 0 iff u^T W^-1 u < n.  (u^T C^-1 u)/(u^T W^-1 u) ~ chi^2_{nu-d+1} (Muirhead
       Thm. 3.2.12) with u^T C^-1 u = ||u||^2/c <= 1/c, so P[Y not in A' + PD] <= P[chi^2_{nu-d+1} <= 1/(c n)].
    4. For every set S, P[M(x) in S] <= e^epsilon' P[M(x') in S] + P[M(x) off the support of M(x')].
The bounds are evaluated exactly (sympy, c read as the exact value of its float) at the instance.
"""

from __future__ import annotations

from ...claims import ApproxDP, Claim
from ...mechanisms.structure import WishartNoise
from ..budget import checkpoint
from ..result import Outcome, Step, Verdict
from .chain import close_chain

__all__ = ["prove_wishart"]

METHOD = "Wishart density ratio and support split"


def prove_wishart(noise: WishartNoise, claim: Claim) -> Outcome:
    """Decide ``claim`` for the Wishart mechanism (see the module docstring)."""
    import sympy

    checkpoint("Wishart density")
    d, nu, n = noise.dimension, noise.dof, noise.size
    c = sympy.Rational(noise.scale)
    det_w, tr_w = sympy.symbols("det(W) tr(W)", positive=True)
    exponent = sympy.Rational(nu - d - 1, 2)
    steps = [Step(
        "Wishart density",
        sympy.Eq(sympy.Symbol("p(W)"), sympy.Mul(sympy.Pow(det_w, exponent, evaluate=False), sympy.exp(-tr_w / (2 * c)), evaluate=False) / sympy.Symbol("Z")),
        f"W ~ Wishart_{d}({nu}, c I) with c = {noise.scale:g}: density on W > 0 (Muirhead 1982, Thm. 3.2.1)",
    )]
    det_a, det_b, tr_diff = sympy.symbols("det(Y-A) det(Y-A') tr(A-A')")
    log_ratio = sympy.Add(sympy.Mul(exponent, sympy.log(det_a / det_b), evaluate=False), tr_diff / (2 * c), evaluate=False)
    steps.append(Step("log ratio", sympy.Eq(sympy.Symbol("L"), log_ratio),
                      "ln p(Y - A) - ln p(Y - A') on the common support of M(x) and M(x')"))
    if exponent != 0:
        return Outcome(
            Verdict.UNKNOWN,
            f"step 'log ratio': the determinant term ({exponent}) ln(det(Y-A)/det(Y-A')) is unbounded on the common "
            f"support (det(Y-A') -> 0 at its boundary); this rule needs dof = d + 1 = {d + 1}, the mechanism has {nu}",
            METHOD,
            steps,
        )
    epsilon = 1 / (2 * c * n)
    steps.append(Step(
        "trace bound",
        sympy.Le(sympy.Symbol("L"), epsilon, evaluate=False),
        f"tr A - tr A' = (||x||^2 - ||x'||^2)/n <= 1/n for records in the unit ball (n = {n}): L <= 1/(2 c n)",
    ))
    checkpoint("off-support mass")
    k = nu - d + 1
    threshold = 1 / (c * n)
    mass = sympy.simplify(sympy.lowergamma(sympy.Rational(k, 2), threshold / 2) / sympy.gamma(sympy.Rational(k, 2)))
    steps.append(Step(
        "off-support mass",
        sympy.Le(sympy.Symbol("P[M(x) outside supp M(x')]"), mass, evaluate=False),
        f"outside iff u^T W^-1 u >= n for the new record u (||u|| <= 1); (u^T C^-1 u)/(u^T W^-1 u) ~ chi^2_{k} "
        f"(Muirhead 1982, Thm. 3.2.12): P[chi^2_{k} <= 1/(c n) = {sympy.sstr(threshold)}] = {float(mass):.6g}",
    ))
    derived = ApproxDP(float(epsilon), float(mass))
    steps.append(Step(
        "support split",
        sympy.Tuple(sympy.Eq(sympy.Symbol("epsilon"), epsilon), sympy.Eq(sympy.Symbol("delta"), mass)),
        "P[M(x) in S] <= e^epsilon P[M(x') in S] + P[M(x) outside supp M(x')] for every set S: "
        f"{derived}",
    ))
    return close_chain(derived, claim, METHOD, steps, "the support split", noise.output)
