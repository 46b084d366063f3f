"""Anytime-valid early stopping of the verification stage: looks at growing sample sizes, alpha spent over them.

The verification budget of N samples per side is drawn in K batches.  After batch j the cumulative
sample size per side is Poisson(n_j) with n_j = N / 2^(K - j) (so the looks are at N/16, N/8, N/4,
N/2 and N when N allows it), and the bound of every verified event is computed at confidence
1 - alpha_j / C (C candidates), where the alpha_j spend the total alpha = 1 - confidence by the
power spending function of Kim & DeMets (1987), A(t) = alpha t^rho at the information fraction
t_j = n_j / N:

    alpha_j = A(t_j) - A(t_(j-1)) = alpha (t_j^rho - t_(j-1)^rho),   t_0 = 0,   sum_j alpha_j = alpha.

With rho = SPENDING_POWER = 3, the member of the family whose boundaries are close to O'Brien &
Fleming's (1979) (Jennison & Turnbull 2000, "Group Sequential Methods", Sect. 7.3), the last look
keeps 1 - 2^-3 = 7/8 of alpha and the first, at N/16, 16^-3 = 2.4e-4 of it.  The last look is where a
mechanism at its claim is decided, so its bound is nearly the single-look bound: at alpha = 0.05 its
z is 1.81 with the extension share below (1.64 for a single look), where spending in proportion to
the look sizes gave it 0.8 x 16/31 of alpha and z 2.04.  The first looks still stop a large
violation, whose log-ratio exceeds the claim by many standard errors (at the verdict's alpha' =
0.001 the first look's z is 5.07).

Validity under any stopping rule (Bonferroni over looks; the "alpha spending" idea of Lan & DeMets
1983 with a spending sequence fixed in advance).  Let L_{j,c} be the bound of candidate c at look j.  Each is a
lower confidence bound at level 1 - alpha_j / C, so

    P[ max over j <= tau and c of L_{j,c} > epsilon_true ]  <=  sum_j sum_c alpha_j / C  =  alpha

for *every* stopping time tau, since the event on the left is contained in the union over all
(j, c) of {L_{j,c} > epsilon_true}.  The reported bound is that running maximum, so its stated
confidence holds exactly as stated (it is a guarantee, not an approximation), however early the
audit stopped.  The Poissonised sizes keep each look's joint ratio test exact (:mod:`.bounds`): the
cumulative counts at look j are independent Poisson(n_j p) and Poisson(n_j p') variables.

Stopping rules, checked after each look before the last:

* **violation** -- the running maximum exceeds the claimed epsilon: the claim is refuted at the
  stated confidence and more samples cannot undo it (a blatant violation stops at N/16);
* **futility** -- for every verified event, an *upper* confidence bound on its log-ratio, at level
  1 - f_j / C, is below the claimed epsilon: with the evidence in, no amount of further sampling
  would make that event refute the claim, except with probability at most FUTILITY_SHARE * alpha
  over all looks (the power this rule may cost).  The f_j spend FUTILITY_SHARE * alpha in proportion
  to the look sizes, not by the power function: futility errs only towards a missed flaw, so its
  sequence need not match the bounds', and an early look with a usable share is what lets an audit
  well inside its claim stop at N/16.  A mechanism exactly at its
  claim never stops this way (its best event's log-ratio equals the claim), so tightness at the claim
  is kept; one well inside its claim stops early.

Two levels, one set of looks.  The audit reports an *estimate* at ``confidence`` and takes its
*verdict* at a stricter ``verdict_confidence`` (:mod:`.audit`); the verdict's alpha' = 1 -
verdict_confidence is spent over the same looks by the same function (alpha'_j = alpha' (t_j^rho -
t_(j-1)^rho)), so the argument above holds for each running maximum separately, on the same counts.
The violation stop uses the verdict's running maximum (a claim is refuted only at the verdict
level); the futility stop uses the estimate's alpha_j as before (it may only cost power).

Extension looks.  An audit at the edge -- its estimate above the claim, its verdict-level bound not
("not significant") after the planned N -- may continue to EXTENSION_LOOKS more looks, at 2N and 4N
(so at most 4N samples per side), and stops there as soon as the verdict is certain either way.
Their alphas are fixed in advance, like every other look's: EXTENSION_SHARE of each alpha is kept for
them (in proportion to their sizes, 1/3 and 2/3: an extension should decide at 2N when it can) and
the planned looks spend the rest by the power function, so the union bound above still sums to alpha
whether or not an audit extends, and the rule that decides to extend may look at the data.  The price
is paid at the planned looks (the last one's alpha' is (1 - EXTENSION_SHARE) 7/8 alpha': z 3.19
instead of 3.09 at alpha' = 0.001); the gain is at the edge: svt-lyu-4's witness (loss 0.175 against
the claim 0.1, sd of its log-ratio 0.016 at N = 10^6) has an expected verdict-level bound of 0.175 -
3.19 x 0.016 = 0.124 at N but 0.175 - 3.65 x 0.008 = 0.146 at 4N.  (A share of 0.1 would give the
last planned look z 3.16, and the extensions 3.82: exponential-no-factor-2, flagged at N = 100 by
its 4N look, then needs N = 200, benchmarks/detection.py.)

Sequential p-values: p_seq = min over looks j <= tau of p_j * alpha / alpha_j (Bonferroni over looks,
valid for the same reason).  The ratio alpha / alpha_j is the same for both levels, so one p-value
serves both: an event refutes at level 1 - a exactly when p_seq <= a.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import bounds

__all__ = ["EXTENSION_LOOKS", "EXTENSION_SHARE", "FUTILITY_SHARE", "MAX_DOUBLINGS", "MIN_FIRST_LOOK", "SPENDING_POWER",
           "Schedule", "schedule", "upper_bound"]

MAX_DOUBLINGS = 4
MIN_FIRST_LOOK = 1_000
FUTILITY_SHARE = 0.2
EXTENSION_LOOKS = 2
EXTENSION_SHARE = 0.2
SPENDING_POWER = 3


@dataclass(frozen=True)
class Schedule:
    """Cumulative Poisson means ``sizes`` of the looks and the alpha spent at each.

    ``alphas`` spend 1 - confidence (the estimate's), ``verdict_alphas`` 1 - verdict_confidence (the
    verdict's), by the same spending function; ``futility_alphas`` spend FUTILITY_SHARE x (1 -
    confidence) in proportion to the look sizes.  The first ``planned`` looks make the budget; the
    rest are extension looks (module docstring).
    """

    sizes: tuple[int, ...]
    alphas: tuple[float, ...]
    futility_alphas: tuple[float, ...]
    verdict_alphas: tuple[float, ...]
    planned: int

    @property
    def looks(self) -> int:
        return len(self.sizes)

    def increments(self) -> list[int]:
        """Poisson mean of the batch drawn before each look."""
        return [self.sizes[0]] + [b - a for a, b in zip(self.sizes, self.sizes[1:])]

    def describe(self) -> str:
        if self.looks == 1:
            return "single look at the full budget (no early stopping)"
        shares = ", ".join(f"{n}" for n in self.sizes[: self.planned])
        extension = ", ".join(f"{n}" for n in self.sizes[self.planned :])
        return (
            f"alpha spending over {self.planned} looks at {shares} samples per side by the power function "
            f"alpha t^{SPENDING_POWER} of the information fraction t (Kim & DeMets 1987; Bonferroni over looks: the "
            f"running maximum of the bounds keeps the stated confidence under any stopping; the verdict's alpha is "
            f"spent over the same looks by the same function); stop at a look when the bound at the verdict level "
            f"exceeds the claim (violation) or when every verified event's upper bound is below it (futility, "
            f"{FUTILITY_SHARE:g} x alpha spent in proportion to the look sizes)"
            + (f"; {EXTENSION_SHARE:g} of each alpha is kept for extension looks at {extension}, made only when the "
               f"estimate lies above the claim and the verdict's bound does not" if extension else "")
        )

    def as_dict(self) -> dict[str, Any]:
        return {"sizes": list(self.sizes), "alphas": list(self.alphas), "futility_alphas": list(self.futility_alphas),
                "verdict_alphas": list(self.verdict_alphas), "planned": self.planned}


def schedule(samples: int, confidence: float, early_stopping: bool = True,
             verdict_confidence: float | None = None) -> Schedule:
    """Looks at ``samples / 2^(K - j)``, K - 1 = min(MAX_DOUBLINGS, log2(samples / MIN_FIRST_LOOK)) doublings,
    then (with ``early_stopping``) EXTENSION_LOOKS extension looks at 2N, 4N.

    Without extension looks each alpha is spent over the planned looks by A(t) = alpha t^SPENDING_POWER
    at t_j = n_j / N; with them, 1 - EXTENSION_SHARE of it is, and EXTENSION_SHARE over the extension
    looks in proportion to their sizes.  The futility alphas spend FUTILITY_SHARE x alpha over all the
    looks in proportion to their sizes.  ``verdict_confidence`` (default ``confidence``) sets the
    verdict's alphas over the same looks.
    """
    alpha = 1.0 - confidence
    verdict_alpha = alpha if verdict_confidence is None else 1.0 - verdict_confidence
    doublings = 0
    if early_stopping and samples >= 2 * MIN_FIRST_LOOK:
        doublings = min(MAX_DOUBLINGS, int(math.floor(math.log2(samples / MIN_FIRST_LOOK))))
    planned = [int(round(samples / 2 ** (doublings - j))) for j in range(doublings)] + [int(samples)]
    extension = [int(samples) * 2 ** (j + 1) for j in range(EXTENSION_LOOKS)] if early_stopping else []
    kept = 1.0 - EXTENSION_SHARE if extension else 1.0
    spent = [(n / samples) ** SPENDING_POWER for n in planned[:-1]] + [1.0]  # A(t_j) / alpha, exactly 1 at N
    weights = [kept * (b - a) for a, b in zip([0.0] + spent, spent)]
    weights += [n / sum(extension) * EXTENSION_SHARE for n in extension]
    proportional = [n / sum(planned) * kept for n in planned] + weights[len(planned):]
    return Schedule(tuple(planned + extension), tuple(alpha * w for w in weights),
                    tuple(FUTILITY_SHARE * alpha * w for w in proportional),
                    tuple(verdict_alpha * w for w in weights), len(planned))


def upper_bound(method: str, ka: int, na: float, kb: int, nb: float, confidence: float, delta: float = 0.0) -> float:
    """An upper confidence bound on ln((p - delta) / p'), the mirror image of the lower bound of ``method``.

    ``"joint"``: ln(pi_U / (1 - pi_U)) - ln(na / nb) with pi_U the one-sided Clopper-Pearson upper
    bound of Bin(k + k', pi) (``na``, ``nb`` the Poisson means); ``"union"``: ln(UCB(p) - delta) -
    ln(LCB(p')), each Clopper-Pearson bound at 1 - alpha/2.  ``inf`` when nothing bounds it.
    """
    if method == "joint":
        total = ka + kb
        if total == 0:
            return math.inf
        pi_high = float(bounds.cp_upper(ka, total, confidence)[()])
        if pi_high >= 1.0:
            return math.inf
        return math.log(pi_high / (1.0 - pi_high)) - math.log(na / nb)
    alpha = 1.0 - confidence
    high = float(bounds.cp_upper(ka, na, 1 - alpha / 2)[()]) - delta
    low = float(bounds.cp_lower(kb, nb, 1 - alpha / 2)[()])
    if low <= 0:
        return math.inf
    return -math.inf if high <= 0 else math.log(high / low)


def sequential_p_value(p_values: list[float], alphas: tuple[float, ...]) -> float:
    """min_j p_j * alpha / alpha_j over the looks made (Bonferroni over looks), capped at 1."""
    alpha = float(sum(alphas))
    adjusted = [p * alpha / a for p, a in zip(p_values, alphas)]
    return float(min(1.0, min(adjusted))) if adjusted else 1.0


def running_best(values: list[float]) -> float:
    return float(np.max(values)) if values else -math.inf
