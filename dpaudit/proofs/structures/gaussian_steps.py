"""DP-SGD's noisy gradient steps (:class:`~dpaudit.mechanisms.structure.GaussianSteps`): proved, refuted or unknown.

Each step releases S_t + N(0, s_t^2 C^2 I), s_t = sigma_t / divisor, S_t a sum of clipped vectors that
moves by at most Delta C (the declared sensitivity) when the canary is in the batch.  In clip units:

**Upper bound.** One step is dominated by the pair P_t = (1 - q) N(0, s_t^2) + q N(Delta, s_t^2),
Q_t = N(0, s_t^2) (Poisson sampling at rate q, add/remove: Mironov, Talwar & Zhang 2019, Sect. 3;
Zhu, Dong & Wang 2022, "Optimal accounting of differential privacy via characteristic function",
Sect. 5), conditionally on the earlier outputs, and the release (projections or final parameters) is
a post-processing of the noisy sums.

* q = 1: step t is the Gaussian mechanism, (Delta / s_t)-GDP (Dong, Roth & Su 2022, Thm. 2.7), and
  T adaptive steps compose to exactly mu-GDP, mu = Delta sqrt(sum_t 1 / s_t^2) (Cor. 3.3).  Its
  delta(epsilon) = Phi(mu/2 - epsilon/mu) - e^epsilon Phi(-mu/2 - epsilon/mu) (Cor. 2.13) is
  evaluated with mpmath at 50 digits at the claim's epsilon: proved when it is <= the claim's delta.
* q < 1, T = 1: delta(epsilon) of the pair in closed form at the likelihood-ratio thresholds (both
  orders, :func:`~dpaudit.mechanisms.catalogue.dp_sgd.subsampled_gaussian_delta`), at 50 digits likewise.
* q < 1, T > 1 (equal sigma_t): the exact epsilon(delta) lies in the bracket of
  :func:`~dpaudit.proofs.divergences.privacy_loss.exact_epsilon` (the FFT of a pessimistic discretisation of the
  privacy loss distribution, Koskela, Jalko & Honkela 2020); proved when the claim's epsilon is
  >= high (1 + 1e-6).
* fixed-size sampling without replacement: no dominating pair is derived here (unknown), but a
  witness may still refute the claim.

**Witness.** When the entry's canary pair (D, D + canary) has a known law of one step's noiseless
canary projection (a finite mixture, the same at every step; ``projections``), the statistic
Z = sum_t w_t y_t / C, w_t = (s_min / s_t)^2 (the likelihood-ratio statistic for a shift common to
all steps) is under each dataset a Gaussian mixture with variance V = sum_t w_t^2 s_t^2.  The event
S = {Z > t} (or {Z < t}) with t maximising P_X(S) - e^epsilon P_Y(S) is checked at 50 digits:
the release rounds each y_t to a multiple of g and clamps it to [-B, B], so |Z_release - Z| <= r =
sum_t w_t g / 2 off the clamp, and

    P_X(S) >= P_X(Z > t + r) - clamp mass - k 2^-50,   P_Y(S) <= P_Y(Z > t - r) + clamp mass + k 2^-50

(k components, whose probabilities are doubles within 2^-52 each).  The claim is refuted when the
lower bound of P_X(S) - e^epsilon P_Y(S) exceeds delta.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import mpmath
import numpy as np
import sympy
from scipy.optimize import minimize_scalar
from scipy.special import ndtr

from ...claims import Claim
from ...mechanisms.structure import GaussianSteps
from ..budget import checkpoint
from ..divergences.privacy_loss import exact_epsilon
from ..result import Counterexample, Outcome, Step, Verdict

__all__ = ["exact_delta", "prove_gaussian_steps"]

DIGITS = 50
BRACKET_MARGIN = 1e-6
"""Relative margin of the claim over the pessimistic bracket end (the bracket is a float computation)."""
BRACKET_INTERVAL = 1e-4
"""Grid width of the privacy-loss discretisation (the bracket's width is below T times it)."""
MAX_COMPONENTS = 4096
"""Largest number of Gaussian components of the statistic Z that the witness search enumerates."""
METHOD = "DP-SGD steps: dominating pair, composition, conversion"


def exact_delta(epsilon: float, scale: float, q: float, shift: float) -> Any:
    """delta(epsilon) of P = (1 - q) N(0, scale^2) + q N(shift, scale^2) against Q = N(0, scale^2), both orders, mpmath.

    The 50-digit form of :func:`~dpaudit.mechanisms.catalogue.dp_sgd.subsampled_gaussian_delta` (which runs in
    plain floats so that the catalogue loads without mpmath).

    The privacy loss is monotone in x, so the optimal sets are half-lines at the likelihood-ratio
    thresholds x* = scale^2/shift ln((e^eps - 1 + q)/q) + shift/2 (P against Q) and
    x_* = scale^2/shift ln((e^-eps - 1 + q)/q) + shift/2 (Q against P, when e^-eps > 1 - q)
    (Neyman-Pearson; Zhu, Dong & Wang 2022, Sect. 5).  q = 1, scale = 1, shift = mu is mu-GDP.
    """
    with mpmath.workdps(DIGITS):
        eps, s, q_, d = mpmath.mpf(epsilon), mpmath.mpf(scale), mpmath.mpf(q), mpmath.mpf(shift)

        def upper(x: Any, mean: Any) -> Any:  # P(N(mean, s^2) > x)
            return mpmath.erfc((x - mean) / (s * mpmath.sqrt(2))) / 2

        x_star = s**2 / d * mpmath.log((mpmath.exp(eps) - 1 + q_) / q_) + d / 2
        forward = (1 - q_) * upper(x_star, 0) + q_ * upper(x_star, d) - mpmath.exp(eps) * upper(x_star, 0)
        backward = mpmath.mpf(0)
        inner = mpmath.exp(-eps) - 1 + q_
        if inner > 0:
            x_low = s**2 / d * mpmath.log(inner / q_) + d / 2
            backward = (1 - upper(x_low, 0)) - mpmath.exp(eps) * ((1 - q_) * (1 - upper(x_low, 0)) + q_ * (1 - upper(x_low, d)))
        return max(forward, backward, mpmath.mpf(0))


def prove_gaussian_steps(structure: GaussianSteps, claim: Claim) -> Outcome:
    """Decide an (epsilon, delta) claim for the declared steps (module docstring): proved, refuted or unknown."""
    if claim.is_curve or claim.bounds_loss_per_output or not claim.delta > 0:
        return Outcome(Verdict.UNKNOWN, f"step 'claim': the steps are decided for approximate (epsilon, delta) claims "
                       f"with delta > 0, not {claim.kind} {claim}", METHOD)
    scales, delta_ = structure.noise_scales, structure.sensitivity
    q, T = structure.q, structure.steps
    sampler = "Poisson sampling at rate" if structure.sampling == "poisson" else "fixed-size batches without replacement, canary included with probability"
    steps = [Step(
        "sampler",
        sympy.Eq(sympy.Symbol("Delta"), sympy.Float(delta_)),
        f"the loop runs T = {T} steps, {sampler} q = {q:g}, noise standard deviations sigma_t C / divisor = "
        f"({', '.join(f'{s:g}' for s in scales)}) C; sensitivity Delta = {delta_:g} C: {structure.sensitivity_reason}",
    )]
    checkpoint("dominating pair")
    bound = _upper_bound(structure, claim, steps)
    if bound.verdict is Verdict.PROVED:
        return bound
    checkpoint("witness")
    witness = _witness(structure, claim)
    if isinstance(witness, Counterexample):
        return Outcome(Verdict.REFUTED, f"{witness.description}: P_X(S) - e^epsilon P_Y(S) >= {witness.log_ratio:.6g} > "
                       f"delta = {claim.delta:g} (checked at {DIGITS} digits); {bound.reason}", METHOD, steps,
                       counterexample=witness)
    return Outcome(Verdict.UNKNOWN, f"{bound.reason}; step 'witness': {witness}", METHOD, steps)


def _upper_bound(structure: GaussianSteps, claim: Claim, steps: list[Step]) -> Outcome:
    """Proved when the dominating pair's composition meets the claim, else unknown with the comparison (steps appended)."""
    scales, sensitivity, q, T = structure.noise_scales, structure.sensitivity, structure.q, structure.steps
    eps, dlt = claim.epsilon, claim.delta
    if structure.sampling != "poisson" and q < 1:
        return Outcome(Verdict.UNKNOWN, "step 'dominating pair': no dominating pair is derived for fixed-size sampling "
                       "without replacement under add/remove", METHOD, steps)
    if q == 1:
        mu = sensitivity * math.sqrt(sum(1.0 / s**2 for s in scales))
        steps.append(Step("dominating pair", sympy.Eq(sympy.Symbol("mu_t"), sympy.Symbol("Delta") / sympy.Symbol("s_t")),
                          "every step sees the canary: step t is the Gaussian mechanism of sensitivity Delta and noise s_t, "
                          "(Delta / s_t)-GDP (Dong, Roth & Su 2022, Thm. 2.7), for every value of the earlier outputs"))
        steps.append(Step("composition", sympy.Eq(sympy.Symbol("mu"), sympy.Float(mu, 15)),
                          f"T = {T} adaptive Gaussian step(s) compose to exactly mu-GDP with mu = Delta sqrt(sum_t 1/s_t^2) "
                          "(Dong, Roth & Su 2022, Cor. 3.3); the release is a post-processing of the noisy sums"))
        delta_at = exact_delta(eps, 1.0, 1.0, mu)
        conversion = "delta(epsilon) = Phi(mu/2 - epsilon/mu) - e^epsilon Phi(-mu/2 - epsilon/mu) (Dong, Roth & Su 2022, Cor. 2.13)"
    elif T == 1:
        s = scales[0]
        steps.append(Step("dominating pair", sympy.Eq(sympy.Symbol("q"), sympy.Float(q, 15)),
            f"P = (1 - q) N(0, {s:g}^2) + q N({sensitivity:g}, {s:g}^2) against Q = N(0, {s:g}^2): "
            "one Poisson-subsampled Gaussian step under add/remove is dominated by P against Q = N(0, s^2) "
            "(Mironov, Talwar & Zhang 2019, Sect. 3; Zhu, Dong & Wang 2022, Sect. 5)"))
        delta_at = exact_delta(eps, s, q, sensitivity)
        conversion = "delta(epsilon) of the pair at the likelihood-ratio thresholds, both orders (Neyman-Pearson)"
    else:
        return _bracket(structure, claim, steps)
    holds = delta_at <= mpmath.mpf(dlt)
    steps.append(Step("conversion", sympy.Eq(sympy.Symbol("delta_exact"), sympy.Float(mpmath.nstr(delta_at, 20), 20)),
                      f"{conversion}, evaluated with mpmath at {DIGITS} digits at the claim's epsilon = {eps!r}"))
    if holds:
        steps.append(Step("final inequality", sympy.Le(sympy.Float(mpmath.nstr(delta_at, 20), 20), sympy.Float(dlt), evaluate=False),
                          f"delta_exact({eps!r}) <= {dlt!r}: the steps satisfy ({eps!r}, {dlt!r})-DP"))
        return Outcome(Verdict.PROVED, f"the exact delta at epsilon = {eps:.6g} is {mpmath.nstr(delta_at, 17)} <= {dlt:g} "
                       f"({DIGITS}-digit evaluation of the dominating pair's composition)", METHOD, steps)
    return Outcome(Verdict.UNKNOWN, f"step 'final inequality': the dominating pair's exact delta at epsilon = {eps:.6g} is "
                   f"{mpmath.nstr(delta_at, 6)} > {dlt:g}", METHOD, steps)


def _bracket(structure: GaussianSteps, claim: Claim, steps: list[Step]) -> Outcome:
    scales = structure.noise_scales
    if len(set(scales)) != 1:
        return Outcome(Verdict.UNKNOWN, "step 'composition': the privacy-loss bracket takes equal noise at every step "
                       f"(noise scales {scales})", METHOD, steps)
    effective = scales[0] / structure.sensitivity  # the noise in units of the shift
    bracket = exact_epsilon(effective, structure.q, structure.steps, claim.delta, BRACKET_INTERVAL)
    steps.append(Step("dominating pair", sympy.Eq(sympy.Symbol("sigma_eff"), sympy.Float(effective, 15)),
                      "each step is dominated by (1 - q) N(0, s^2) + q N(Delta, s^2) against N(0, s^2) "
                      "(Zhu, Dong & Wang 2022, Sect. 5), i.e. shift 1 and noise s / Delta"))
    steps.append(Step("composition", sympy.Eq(sympy.Symbol("epsilon_high"), sympy.Float(bracket.high, 15)),
                      f"{structure.steps} steps composed numerically by an FFT of a pessimistic discretisation of the "
                      f"privacy loss distribution (Koskela, Jalko & Honkela 2020), grid {BRACKET_INTERVAL:g}: exact epsilon "
                      f"in [{bracket.low:.6g}, {bracket.high:.6g}] at delta = {claim.delta:g}"))
    if claim.epsilon >= bracket.high * (1 + BRACKET_MARGIN):
        steps.append(Step("final inequality", sympy.Le(sympy.Float(bracket.high, 15), sympy.Float(claim.epsilon), evaluate=False),
                          f"the claim's epsilon {claim.epsilon!r} >= epsilon_high (1 + {BRACKET_MARGIN:g})"))
        return Outcome(Verdict.PROVED, f"the pessimistic bracket end {bracket.high:.6g} is below the claim's epsilon "
                       f"{claim.epsilon:.6g} (FFT of a pessimistic discretisation)", METHOD, steps)
    return Outcome(Verdict.UNKNOWN, f"step 'final inequality': the claim's epsilon {claim.epsilon:.6g} is not above the "
                   f"bracket [{bracket.low:.6g}, {bracket.high:.6g}] with margin {BRACKET_MARGIN:g}", METHOD, steps)


def _weights(structure: GaussianSteps) -> list[float]:
    """w_t = (s_min / s_t)^2: the likelihood-ratio statistic's weights for a shift common to all steps."""
    scales = structure.noise_scales
    return [(min(scales) / s) ** 2 for s in scales]


def _statistic_law(structure: GaussianSteps, law: tuple[tuple[float, float], ...]) -> list[tuple[float, float]] | None:
    """Z = sum_t w_t y_t / C as (probability, mean) components, or None beyond MAX_COMPONENTS."""
    weights = _weights(structure)
    if len(law) ** structure.steps > MAX_COMPONENTS:
        return None
    merged: dict[float, float] = {}
    for choice in itertools.product(law, repeat=structure.steps):
        probability = math.prod(p for p, _ in choice)
        mean = sum(w * v for w, (_, v) in zip(weights, choice))
        merged[mean] = merged.get(mean, 0.0) + probability
    return sorted((p, m) for m, p in merged.items())


def _witness(structure: GaussianSteps, claim: Claim) -> Counterexample | str:
    """A checked threshold event on the canary pair, or the reason why none was found."""

    if structure.projections is None:
        return f"the canary projections' law is not known exactly ({structure.projection_reason})"
    scales, weights = structure.noise_scales, _weights(structure)
    laws = [_statistic_law(structure, law) for law in structure.projections]
    if laws[0] is None or laws[1] is None:
        return f"the statistic has more than {MAX_COMPONENTS} Gaussian components"
    sd = math.sqrt(sum(w * w * s * s for w, s in zip(weights, scales)))
    eps, dlt = claim.epsilon, claim.delta

    def tail(law: list[tuple[float, float]], t: float, up: bool) -> float:
        return float(sum(p * ndtr(((m - t) if up else (t - m)) / sd) for p, m in law))

    means = [m for law in laws for _, m in law]
    grid = np.linspace(min(means) - 12 * sd, max(means) + 12 * sd, 4001)
    best = None
    for (x, y), up in itertools.product(((1, 0), (0, 1)), (True, False)):
        def excess(t: float, x: int = x, y: int = y, up: bool = up) -> float:
            return tail(laws[x], t, up) - math.exp(eps) * tail(laws[y], t, up)

        values = [excess(t) for t in grid]
        k = int(np.argmax(values))
        low, high = grid[max(k - 1, 0)], grid[min(k + 1, len(grid) - 1)]
        refined = minimize_scalar(lambda t: -excess(t), bounds=(low, high), method="bounded", options={"xatol": 1e-12})
        t = float(refined.x) if -refined.fun >= values[k] else float(grid[k])
        if best is None or excess(t) > best[0]:
            best = (excess(t), x, y, up, t)
    _, x, y, up, t = best
    with mpmath.workdps(DIGITS):
        r = mpmath.mpf(sum(w * structure.grid / structure.clip / 2 for w in weights))
        bound = mpmath.mpf(structure.clamp) / structure.clip
        sd_mp = mpmath.sqrt(sum(mpmath.mpf(w) ** 2 * mpmath.mpf(s) ** 2 for w, s in zip(weights, scales)))

        def tail_mp(law: list[tuple[float, float]], threshold: Any) -> Any:
            total = mpmath.mpf(0)
            for p, m in law:
                z = ((mpmath.mpf(m) - threshold) if up else (threshold - mpmath.mpf(m))) / sd_mp
                total += mpmath.mpf(p) * mpmath.erfc(-z / mpmath.sqrt(2)) / 2
            return total

        clamp_mass = mpmath.mpf(0)
        if mpmath.isfinite(bound):
            for s in scales:
                worst = max(abs(v) for law in structure.projections for _, v in law)
                clamp_mass += mpmath.erfc((bound - worst) / (mpmath.mpf(s) * mpmath.sqrt(2)))
        slack = {i: len(laws[i]) * mpmath.mpf(2) ** -50 for i in (0, 1)}
        shift = r if up else -r  # the event on the release contains {Z > t + r} and lies in {Z > t - r} (up)
        p_x = tail_mp(laws[x], mpmath.mpf(t) + shift) - clamp_mass - slack[x]
        p_y = tail_mp(laws[y], mpmath.mpf(t) - shift) + clamp_mass + slack[y]
        reached = p_x - mpmath.exp(mpmath.mpf(eps)) * p_y
        if not reached > dlt:
            return (f"the best threshold event reaches P_X(S) - e^epsilon P_Y(S) >= {mpmath.nstr(reached, 6)}, "
                    f"not above delta = {dlt:g}")
        names = ("[D]", "[D + canary]")
        statistic = " + ".join(f"{w:g} y_{i + 1}" for i, w in enumerate(weights)) if len(weights) > 1 else "y_1"
        event = f"({statistic}) / C {'>' if up else '<'} {t:.12g}"
        return Counterexample(
            description=f"the event S = {{{event}}} on the canary projections has P{names[x]}(S) > e^epsilon P{names[y]}(S) + delta",
            inputs=(structure.pair[x], structure.pair[y]),
            output=None,
            output_set=event,
            log_ratio=float(reached),
            bound=float(dlt),
            quantity="hockey-stick delta",
            mass=float(p_x),
            parameters={"epsilon": float(eps), "threshold": t, "rounding_radius": float(r)},
            precision_digits=DIGITS,
            extra={
                "direction": f"P{names[x]}(S) > e^epsilon P{names[y]}(S) + delta",
                "tail": "upper" if up else "lower",
                "weights": weights,
                "P_X(S) lower bound": mpmath.nstr(p_x, 20),
                "P_Y(S) upper bound": mpmath.nstr(p_y, 20),
                "statistic sd (clip units)": sd,
            },
        )
