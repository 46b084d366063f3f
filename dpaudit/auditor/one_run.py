"""One-run auditing: an epsilon lower bound from m canaries in a single training run.

Steinke, Nasr & Jagielski, "Privacy auditing with one (1) training run", NeurIPS 2023.  Each of m
canaries enters the training set independently with probability 1/2 (S_i = +1 in, -1 out); the
auditor reads one output, scores every canary, and guesses "in" for the k+ highest scores, "out" for
the k- lowest, abstaining on the rest (r = k+ + k- guesses).  If the training algorithm is
(epsilon, delta)-DP under add/remove of one record, the number W of correct guesses satisfies, for
every v (their main theorem, Thm. 3.1, in its (epsilon, delta) form of Sect. 5),

    P[W >= v] <= beta + 2 m delta alpha,
    beta  = P[Binomial(r, e^eps / (1 + e^eps)) >= v],
    alpha = max_{1 <= i <= v} P[v - i <= Binomial(r, e^eps / (1 + e^eps)) < v] / i,

which is the p-value of observing v correct guesses under the hypothesis "(epsilon, delta)-DP"
(:func:`one_run_p_value`; the same quantity as the p-value routine of the paper's appendix).  The
lower bound at confidence 1 - beta_0 is the largest epsilon whose p-value is below beta_0
(:func:`one_run_epsilon`, by bisection: the p-value increases with epsilon).  The guesses are a
post-processing of the one output, so the bound holds whatever the scores are; it costs one run,
where the many-run audit of :func:`~dpaudit.auditor.audit` costs thousands, and it is looser: r
guesses all correct give at most about ln(r) at confidence 0.95, and the 2 m delta term needs
m delta small.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from .._validation import (
    check_nonnegative_int,
    check_positive_int,
    check_probability_open,
    check_unit_interval,
)
from ..errors import InvalidArgument

__all__ = ["OneRunResult", "one_run_audit", "one_run_epsilon", "one_run_p_value"]


def one_run_p_value(m: int, r: int, v: int, epsilon: float, delta: float) -> float:
    """P[W >= v] under (epsilon, delta)-DP: beta + 2 m delta alpha (module docstring), capped at 1."""
    from scipy.stats import binom

    if not 0 <= v <= r <= m:
        raise InvalidArgument(f"need 0 <= v={v!r} <= r={r!r} <= m={m!r} (correct guesses, guesses, canaries)")
    p = 1.0 / (1.0 + math.exp(-epsilon))  # the accuracy of epsilon-DP randomized response
    beta = float(binom.sf(v - 1, r, p))
    alpha = 0.0
    if delta > 0 and v > 0:
        below = np.cumsum(binom.pmf(v - np.arange(1, v + 1), r, p))  # P[v - i <= B < v], i = 1..v
        alpha = float(np.max(below / np.arange(1, v + 1)))
    return min(1.0, beta + 2.0 * m * delta * alpha)


def one_run_epsilon(m: int, r: int, v: int, delta: float, confidence: float) -> float:
    """The largest epsilon >= 0 whose p-value stays below 1 - confidence (0 when none does).

    Bisection to 1e-9 on [0, hi] with hi doubled until p-value(hi) >= 1 - confidence; the returned
    value is the lower end, so its p-value is below 1 - confidence (a valid bound).
    """
    level = 1.0 - confidence
    if one_run_p_value(m, r, v, 0.0, delta) >= level:
        return 0.0
    low, high = 0.0, 1.0
    while one_run_p_value(m, r, v, high, delta) < level:
        low, high = high, 2.0 * high
        if high > 1e4:  # all guesses correct and delta = 0: no finite epsilon explains it
            return math.inf
    while high - low > 1e-9:
        middle = (low + high) / 2.0
        low, high = (middle, high) if one_run_p_value(m, r, v, middle, delta) < level else (low, middle)
    return low


@dataclass(frozen=True)
class OneRunResult:
    """A one-run audit: m canaries, r guesses of which v correct, the epsilon bound at ``confidence``."""

    canaries: int
    guesses: int
    correct: int
    delta: float
    confidence: float
    epsilon_lower_bound: float
    runs: int
    seed: int | None
    method: str = "Steinke, Nasr & Jagielski 2023 (NeurIPS), Thm. 3.1 ((eps, delta) form): P[W >= v] <= beta + 2 m delta alpha"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def one_run_audit(
    train: Callable[[Any, np.random.Generator], Any],
    canaries: Sequence[Any],
    score: Callable[[Any, Any], float],
    *,
    data: Sequence[Any] = (),
    guesses: int | None = None,
    delta: float = 1e-5,
    confidence: float = 0.95,
    seed: int | None = None,
) -> OneRunResult:
    """Train once on ``data`` plus each canary with probability 1/2; bound epsilon from the guesses.

    ``train(dataset, rng)`` returns the output the auditor sees; ``score(output, canary)`` is higher
    when the canary looks included.  ``guesses`` (even, default m / 5 rounded to even, at least 2)
    are split evenly: the top half "in", the bottom half "out".  The canaries' inclusion and the
    training share one ``numpy.random.SeedSequence(seed)`` (two children), recorded in the result.
    """
    m = check_positive_int("canaries", len(canaries))
    guesses = max(2, 2 * round(m / 10)) if guesses is None else check_nonnegative_int("guesses", guesses)
    if guesses % 2 or not 2 <= guesses <= m:
        raise InvalidArgument(f"guesses={guesses!r} must be even and between 2 and the number of canaries {m}")
    delta = check_unit_interval("delta", delta)
    confidence = check_probability_open("confidence", confidence)
    inclusion_seed, training_seed = np.random.SeedSequence(seed).spawn(2)
    included = np.random.default_rng(inclusion_seed).random(m) < 0.5
    dataset = list(data) + [canary for canary, s in zip(canaries, included) if s]
    output = train(dataset, np.random.default_rng(training_seed))
    scores = np.array([float(score(output, canary)) for canary in canaries])
    order = np.argsort(scores, kind="stable")
    half = guesses // 2
    correct = int(included[order[-half:]].sum() + (~included[order[:half]]).sum())
    bound = one_run_epsilon(m, guesses, correct, delta, confidence)
    return OneRunResult(m, guesses, correct, delta, confidence, bound, runs=1, seed=seed)
