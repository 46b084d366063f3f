"""Smooth-sensitivity noise: A(x) = f(x) + (S(x) / alpha) Z is epsilon-DP when Z is admissible.

Nissim, Raskhodnikova & Smith, "Smooth sensitivity and sampling in private data analysis", STOC 2007
(names from the paper).

Preconditions
    Z has a continuous density h > 0 on the real line whose score g(z) = d/dz ln h(z) is a rational
    function of z on each half-line (|z| allowed; no jumps, Piecewise, sign or Heaviside); S is a beta-smooth upper bound on the local sensitivity of f:
    S(x) >= LS(x) and S(x') <= e^beta S(x) for neighbours x, x' (NRS Def. 2.1), S(x) > 0.
Claim
    A is pure epsilon-DP if alpha L_slide <= epsilon/2 and beta L_dilate <= epsilon/2, with
    L_slide = sup_z |g(z)| and L_dilate = sup_z |1 + z g(z)|.
Proof
    Sliding: |ln h(z) - ln h(z + Delta)| <= |Delta| L_slide <= epsilon/2 for |Delta| <= alpha (mean
    value theorem), so P[Z in S] <= e^(epsilon/2) P[Z + Delta in S] for every set S.  Dilation: e^lambda Z
    has density e^-lambda h(e^-lambda z), and ln h(z) - ln(e^-lambda h(e^-lambda z)) =
    int_{-lambda}^0 (1 + u g(u))|_{u = e^t z} dt, at most |lambda| L_dilate <= epsilon/2 in absolute value
    for |lambda| <= beta.  So h is (alpha, beta)-admissible with delta = 0 (NRS Def. 2.5), and NRS
    Lemma 2.6 gives epsilon-DP: |f(x) - f(x')| <= LS(x) <= S(x) is a slide by at most alpha in units
    of S(x)/alpha, and S(x')/S(x) in [e^-beta, e^beta] a dilation by at most beta.  For h proportional
    to 1/(1 + |z|^gamma) this gives L_slide = (gamma - 1)^(1 - 1/gamma) and L_dilate = gamma - 1 (NRS
    Lemma 2.7's family).

Refutation
    When the value itself is released and the instance has neighbours x, x' with S(x) = 0 < S(x'),
    M(x) = f(x) with probability 1 while M(x') has a density: P[M(x) = f(x)] = 1 > e^epsilon * 0 + delta
    for every delta < 1 (the pitfall of noise scaled to the local sensitivity, NRS 2007 Sect. 1.1).
    When neighbours x, x' have different scales S(x)/alpha != S(x')/alpha, a released tail event whose
    probabilities differ by more than e^epsilon refutes pure DP (:mod:`.scale_change`).

The suprema are exact (sympy: critical points by real roots of the derivative's numerator, limits at
the ends of each half-line) and the two inequalities are decided exactly in rationals (alpha, beta and
epsilon are read as the exact binary values of their floats).  The smooth-bound condition is checked
on the declared instance datasets and every neighbour of each among them (the certificate's scope),
with the code the sampler calls; a failed condition gives ``unknown`` with that step.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ...claims import Claim, PureDP
from ...mechanisms.structure import AdmissibleNoise
from ..budget import checkpoint
from ..result import Counterexample, Outcome, Step, Verdict
from .chain import close_chain
from .scale_change import scale_change_witness

__all__ = ["prove_admissible_noise", "score_suprema"]

METHOD = "admissible noise (NRS 2007, Lemma 2.6)"
# S is computed in floats: S(x') <= e^beta S(x) and S(x) >= LS(x) are accepted within 1e-12 relative.
_FLOAT_SLACK = 1e-12


def _half_line_sup(g: Any, t: Any) -> Any:
    """sup over t > 0 of |g(t)| for a rational g (sympy), or None when g is not rational in t."""
    import sympy

    g = sympy.cancel(sympy.together(g))
    numerator, denominator = sympy.fraction(g)
    if not (numerator.is_polynomial(t) and denominator.is_polynomial(t)):
        return None
    poles = [r for r in sympy.real_roots(sympy.Poly(denominator, t)) if r > 0] if sympy.degree(denominator, t) > 0 else []
    if poles:
        return sympy.oo
    candidates = [sympy.limit(g, t, 0, "+"), sympy.limit(g, t, sympy.oo)]
    slope = sympy.numer(sympy.together(sympy.diff(g, t)))
    if slope.has(t):
        candidates += [g.subs(t, r) for r in sympy.real_roots(sympy.Poly(slope, t)) if r > 0]
    return sympy.Max(*[sympy.Abs(sympy.simplify(c)) for c in candidates])


def score_suprema(h: Any, z: Any) -> tuple[Any, Any] | None:
    """(sup_z |g(z)|, sup_z |1 + z g(z)|) with g = d/dz ln h, over z != 0; None when not decidable."""
    import sympy

    t = sympy.Symbol("t", positive=True)
    # The suprema bound ln h's increments only if ln h is continuous: |z| is allowed, jumps are not
    # (their derivative vanishes off the jump, so a jump at 0 would go unseen).
    if h.has(sympy.Piecewise, sympy.Heaviside, sympy.sign, sympy.DiracDelta, sympy.floor, sympy.ceiling):
        return None
    if sympy.limit(h, z, 0, "+") != sympy.limit(h, z, 0, "-"):
        return None
    g = sympy.diff(sympy.log(h), z)
    slides, dilates = [], []
    for side in (t, -t):
        branch = sympy.simplify(g.subs(z, side))
        slide = _half_line_sup(branch, t)
        dilate = _half_line_sup(1 + side * branch, t)
        if slide is None or dilate is None:
            return None
        slides.append(slide)
        dilates.append(dilate)
    return sympy.Max(*slides), sympy.Max(*dilates)


def _exact(value: float) -> Any:
    import sympy

    return sympy.Rational(value)


def _point_mass_witness(noise: AdmissibleNoise, claim: Claim, query: Callable[[Any], Any] | None) -> Counterexample | None:
    """A neighbour pair x, x' of the instance with S(x) = 0 < S(x'), when the value itself is released.

    Then M(x) = f(x) with probability 1, while M(x') = f(x') + (S(x')/alpha) Z has a density (h does)
    and takes the value f(x) with probability 0: the claim fails for every epsilon and every delta < 1.
    """
    if noise.output:
        return None
    for x in noise.datasets:
        checkpoint()
        if noise.smooth_bound(x) != 0:
            continue
        for neighbour in noise.neighbours(x):
            scale = noise.smooth_bound(neighbour)
            if scale > 0:
                value = None if query is None else float(query(x))
                return Counterexample(
                    description=(
                        f"S(x) = 0: M(x) releases f(x) exactly, with probability 1, while M(x') = f(x') + "
                        f"(S(x')/alpha) Z with S(x') = {scale:g} has a density and never equals it"
                    ),
                    inputs=(tuple(x), tuple(neighbour)),
                    output=value,
                    output_set="{f(x)}",
                    log_ratio=math.inf,
                    bound=claim.epsilon,
                    mass=1.0,
                    precision_digits=0,
                    extra={"exact": "P[M(x) = f(x)] = 1 and P[M(x') = f(x)] = 0"},
                )
    return None


def prove_admissible_noise(noise: AdmissibleNoise, claim: Claim, query: Callable[[Any], Any] | None = None) -> Outcome:
    """Decide ``claim`` for f(x) + (S(x)/alpha) Z by NRS Lemma 2.6, or refute it by a point mass
    (see the module docstring); ``query`` is f, used to state the witness's output."""
    import sympy

    checkpoint("noise density")
    h, z = noise.noise_density()
    steps: list[Step] = []
    total = sympy.simplify(sympy.integrate(h, (z, -sympy.oo, sympy.oo)))
    positive = sympy.simplify(h).subs(z, sympy.Symbol("w", real=True)).is_positive
    steps.append(Step("noise density", sympy.Eq(sympy.Integral(h, (z, -sympy.oo, sympy.oo)), total, evaluate=False),
                      "h is the density of Z: positive on the real line and of total mass 1"))
    if total != 1 or positive is not True:
        return Outcome(Verdict.UNKNOWN, f"step 'noise density': h = {h} must be positive with total mass 1 (mass {total})", METHOD, steps)
    checkpoint("point mass")
    witness = _point_mass_witness(noise, claim, query)
    if witness is not None:
        return Outcome(Verdict.REFUTED, f"a noise scale S(x) = 0 next to S(x') > 0 releases an atom: {claim} fails "
                       "for every epsilon (and every delta < 1)", "point mass of a zero noise scale", steps,
                       counterexample=witness)
    checkpoint("scale change")
    witness = scale_change_witness(noise, claim, query)
    if witness is not None:
        return Outcome(Verdict.REFUTED, f"the noise scale S(x)/alpha changes between neighbours: a released tail event "
                       f"has probability ratio e^{witness.log_ratio:.6g} > e^epsilon, so {claim} fails",
                       "tail event of a changing noise scale", steps, counterexample=witness)
    if noise.beta is None:
        return Outcome(Verdict.UNKNOWN, "step 'dilation': S declares no smoothness parameter beta", METHOD, steps)
    eps = _exact(claim.epsilon)
    alpha, beta = _exact(noise.alpha), _exact(noise.beta)
    checkpoint("score suprema")
    try:
        suprema = score_suprema(h, z)
    except (NotImplementedError, TypeError, ValueError, sympy.PolynomialError):
        suprema = None
    if suprema is None:
        return Outcome(Verdict.UNKNOWN, "step 'sliding': ln h is not continuous with a score d/dz ln h rational in z on each half-line; its supremum was not decided", METHOD, steps)
    slide, dilate = suprema
    for name, bound, parameter, sentence in (
        ("sliding", slide, alpha, "|ln h(z) - ln h(z + Delta)| <= alpha sup|d/dz ln h| for |Delta| <= alpha (mean value theorem)"),
        ("dilation", dilate, beta, "|ln h(z) - ln(e^-lambda h(e^-lambda z))| <= beta sup|1 + z d/dz ln h| for |lambda| <= beta"),
    ):
        shown = sympy.Mul(sympy.Float(float(parameter), 6), bound, evaluate=False)
        inequality = sympy.Le(shown, eps / 2, evaluate=False)
        try:
            holds = bool(sympy.simplify(parameter * bound - eps / 2) <= 0)
        except TypeError:  # sympy cannot decide the sign: not proved
            holds = False
        steps.append(Step(name, inequality, f"{sentence}; the supremum is {sympy.sstr(bound)} = {float(bound):.6g}"))
        if not holds:
            return Outcome(
                Verdict.UNKNOWN,
                f"step {name!r}: {sympy.sstr(parameter)} * {sympy.sstr(bound)} = {float(parameter * bound):.6g} > epsilon/2 = "
                f"{float(eps / 2):.6g}: the noise is not ({noise.alpha:g}, {noise.beta:g})-admissible by this bound",
                METHOD,
                steps,
            )
    checkpoint("smooth bound at the instance")
    failure, pairs = _smooth_bound_failure(noise)
    steps.append(Step(
        "smooth bound",
        sympy.Le(sympy.Symbol("S(x')"), sympy.exp(sympy.Symbol("beta")) * sympy.Symbol("S(x)"), evaluate=False),
        f"S(x) >= LS(x) > 0 on each of the {len(noise.datasets)} instance datasets and S(x') <= e^beta S(x) on its "
        f"{pairs} neighbour pairs there (beta = {noise.beta:g}; S is the sampler's code, LS of {noise.statistic} exact): "
        "NRS Def. 2.1 checked on the instance; on other datasets it rests on how S is built",
    ))
    if failure is not None:
        return Outcome(Verdict.UNKNOWN, f"step 'smooth bound': {failure}", METHOD, steps)
    derived = PureDP(claim.epsilon)
    steps.append(Step(
        "admissible noise",
        sympy.Le(sympy.Float(float(alpha * slide + beta * dilate), 6), eps, evaluate=False),
        f"h is ({noise.alpha:g}, {noise.beta:g})-admissible (sliding and dilation each cost <= epsilon/2) and S is a "
        f"{noise.beta:g}-smooth upper bound on LS: f(x) + (S(x)/alpha) Z is {derived} (NRS 2007, Def. 2.5, Lemma 2.6)",
    ))
    outcome = close_chain(derived, claim, METHOD, steps, "NRS Lemma 2.6", noise.output)
    outcome.details.update({"instance_datasets": len(noise.datasets), "neighbour_pairs_checked": pairs,
                            "sliding_supremum": float(slide), "dilation_supremum": float(dilate)})
    return outcome


def _smooth_bound_failure(noise: AdmissibleNoise) -> tuple[str | None, int]:
    """The first dataset or pair where S fails to be a beta-smooth upper bound on LS, and the pairs checked."""
    growth = math.exp(noise.beta) * (1 + _FLOAT_SLACK)
    pairs = 0
    for x in noise.datasets:
        checkpoint()
        s, ls = noise.smooth_bound(x), noise.local_sensitivity(x)
        if not s > 0 or s < ls * (1 - _FLOAT_SLACK):
            return f"S(x) = {s:g} is not >= LS(x) = {ls:g} > 0 at x = {x!r}", pairs
        for neighbour in noise.neighbours(x):
            pairs += 1
            s_neighbour = noise.smooth_bound(neighbour)
            if s_neighbour > growth * s:
                return (f"S(x') = {s_neighbour:g} > e^beta S(x) = {math.exp(noise.beta) * s:g} at x = {x!r}, "
                        f"x' = {neighbour!r}: S is not {noise.beta:g}-smooth"), pairs
    return None, pairs
