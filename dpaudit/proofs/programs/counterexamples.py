"""Counterexamples for programs that no alignment fits: a neighbouring pair and an output whose
probability ratio exceeds e^epsilon, with both probabilities in closed form.

Preconditions
    A program of :mod:`dpaudit.mechanisms.programs` at its numeric instance; neighbours
    |q_i - q'_i| <= Delta for every i.

Claim
    A returned witness (q, q', output) has ln P[M(q) = output] - ln P[M(q') = output] > epsilon: both
    probabilities come from :func:`~dpaudit.proofs.programs.probabilities.output_probability` (closed
    forms at 60 digits, within E = 1e-35 of the exact value), and the lower bound
    ln((p - E) / (p' + E)) is compared with epsilon at 50 digits.  For a value
    output the witness is the event "value <= v", a set of outputs, so it refutes the claim for the
    released (grid-rounded) values too when v is a grid point.

Search (the inputs of Ding et al. 2018, CCS, "Detecting violations of differential privacy", and of
Lyu, Su & Li 2017; the outputs of CheckDP's counterexamples, Wang et al. CCS 2020)
    The mechanism's own recommended pairs first, then query vectors at integer distance from the
    threshold (T - 1, T, T + 1 for sparse vector; 0 for noisy max) moved by Delta in the patterns
    "all up", "all down", "one against the rest" (first or last query moves the other way) and "half
    up half down".  Outputs: every answer pattern when there are at most 64, else the patterns that
    follow the pair (top where q_i > q'_i, bottom where q_i < q'_i) and the prefixes bottom^m top^(k-m)
    and top^m bottom^(k-m); values "<= v" at v in T - 1 .. T + 1 (sparse vector) or min q - 1 .. max q
    + 1 (noisy max).  Not finding a witness is not a proof: the verdict is then unknown.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath

from ...mechanisms.programs import NoisyMaxProgram, ThresholdProgram
from ..budget import checkpoint
from .probabilities import ABSOLUTE_ERROR, output_probability

__all__ = ["ProgramWitness", "samples_to_see", "search_counterexample"]

MAX_PATTERNS = 64
MORE_OUTPUTS = 500  # outputs still evaluated after the first witness, looking for one an audit sees sooner
CHECK_DIGITS = 50


@dataclass(frozen=True)
class ProgramWitness:
    """q, q', the output and ln P[M(q) = output] - ln P[M(q') = output] (``inf`` when q' cannot produce it)."""

    first: tuple
    second: tuple
    output: Any
    log_ratio: Any
    probability_first: Any
    probability_second: Any
    pairs_tried: int
    outputs_tried: int
    samples_to_see: float


def samples_to_see(p1: Any, p2: Any, log_ratio: Any, epsilon: Any, z: float = 5.0) -> float:
    """Rough samples per side for a frequency estimate to separate the ratio from e^epsilon:
    n = (z (1/sqrt(p1) + 1/sqrt(p2)) / (log_ratio - epsilon))^2 (delta method for ln p-hat, z standard
    errors each side), or z^2 / p1 when p2 = 0 (see the output z^2 times).  A ranking heuristic only."""
    if p2 == 0:
        return float(z * z / p1)
    return float((z * (1 / mpmath.sqrt(p1) + 1 / mpmath.sqrt(p2)) / (log_ratio - epsilon)) ** 2)


def _log_ratio(p: Any, r: Any) -> Any:
    """A lower bound on ln(p / r) for the exact p, r within ABSOLUTE_ERROR of these: ln((p - E) / (r + E)),
    or inf when r is exactly 0 (an impossible output gets exactly 0) and p is not."""
    if p <= ABSOLUTE_ERROR:
        return mpmath.ninf
    if r == 0:
        return mpmath.inf
    return mpmath.log(p - ABSOLUTE_ERROR) - mpmath.log(r + ABSOLUTE_ERROR)


def _pairs(program: Any, hints: tuple) -> Iterator[tuple[tuple, tuple]]:
    k = program.queries
    sens = Fraction(str(program.exact(program.sensitivity)))
    seen = set()
    for a, b in hints:
        if len(a) == k and len(b) == k and all(abs(Fraction(str(x)) - Fraction(str(y))) <= sens for x, y in zip(a, b)):
            yield tuple(map(Fraction, map(str, a))), tuple(map(Fraction, map(str, b)))
    centre = Fraction(str(program.exact(program.threshold))) if isinstance(program, ThresholdProgram) else Fraction(0)
    half = k // 2
    moves = [
        (1,) * k,
        (-1,) * k,
        (1,) * (k - 1) + (-1,),
        (-1,) * (k - 1) + (1,),
        (-1,) + (1,) * (k - 1),
        (1,) + (-1,) * (k - 1),
        (-1,) * half + (1,) * (k - half),
        (1,) * half + (-1,) * (k - half),
    ]
    for offset in (0, -1, 1):
        base = (centre + offset,) * k
        for move in moves:
            pair = (base, tuple(x + m * sens for x, m in zip(base, move)))
            if pair not in seen:
                seen.add(pair)
                yield pair


def _answer_patterns(k: int, cutoff: int, tops: int = 0) -> Iterator[tuple]:
    """Every answer sequence of k queries: 0 / 1, and -1 for each query after the cutoff-th top."""
    if k == 0:
        yield ()
    elif tops >= cutoff:
        yield (-1,) * k
    else:
        for first in (0, 1):
            for rest in _answer_patterns(k - 1, cutoff, tops + first):
                yield (first, *rest)


def _cut(pattern: tuple, cutoff: int) -> tuple:
    """``pattern`` with the answers after the cutoff-th top replaced by -1 (unanswered)."""
    shaped, count = [], 0
    for v in pattern:
        shaped.append(-1 if count >= cutoff else v)
        count += v if count < cutoff else 0
    return tuple(shaped)


def _threshold_outputs(p: ThresholdProgram, a: tuple, b: tuple) -> Iterator[tuple]:
    k = p.queries
    T = Fraction(str(p.exact(p.threshold)))
    tops: list[Any] = [1] if p.release == "bit" else [("<=", T + v) for v in (-1, 0, 1)]
    cutoff = k + 1 if p.cutoff is None else p.cutoff
    patterns = list(itertools.islice(_answer_patterns(k, cutoff), MAX_PATTERNS + 1))
    if len(patterns) > MAX_PATTERNS:
        follow = tuple(1 if x > y else 0 for x, y in zip(a, b))
        patterns = [follow, tuple(1 - v for v in follow)]
        patterns += [(0,) * m + (1,) * (k - m) for m in range(k + 1)] + [(1,) * m + (0,) * (k - m) for m in range(k + 1)]
        patterns = [_cut(pattern, cutoff) for pattern in patterns]
    for shaped_t in dict.fromkeys(patterns):
        positions = [i for i, v in enumerate(shaped_t) if v == 1]
        for choice in itertools.product(tops, repeat=len(positions)) if p.release == "value" else [()]:
            out = list(shaped_t)
            for i, top in zip(positions, choice):
                out[i] = top
            yield tuple(out)


def _outputs(program: Any, a: tuple, b: tuple) -> Iterator[Any]:
    if isinstance(program, ThresholdProgram):
        yield from _threshold_outputs(program, a, b)
    elif isinstance(program, NoisyMaxProgram):
        if program.release == "index":
            yield from range(program.queries)
        else:
            low, high = int(min(a + b)) - 1, int(max(a + b)) + 1
            for v in range(low, high + 1):
                yield ("<=", Fraction(v))
                yield ("<=", Fraction(2 * v + 1, 2))


def search_counterexample(program: Any, epsilon: Any, hints: tuple = ()) -> ProgramWitness | None:
    """Of the candidate pairs and outputs (module docstring) whose log ratio exceeds ``epsilon``, the one an
    audit sees soonest (:func:`samples_to_see`), or None.  The search goes on for ``MORE_OUTPUTS``
    outputs after the first witness (finishing the pair it is in), so it stays deterministic."""
    eps = mpmath.mpf(str(epsilon)) if not isinstance(epsilon, Fraction) else mpmath.mpf(epsilon.numerator) / epsilon.denominator
    pairs_tried = outputs_tried = 0
    memo: dict[tuple, Any] = {}

    def probability(q: tuple, output: Any) -> Any:
        key = (q, output)
        if key not in memo:
            memo[key] = output_probability(program, q, output)
        return memo[key]

    best = None
    for a, b in _pairs(program, hints):
        if best is not None and outputs_tried >= best.outputs_tried + MORE_OUTPUTS:
            break
        pairs_tried += 1
        for output in _outputs(program, a, b):
            checkpoint("counterexample search")
            outputs_tried += 1
            try:
                pa, pb = probability(a, output), probability(b, output)
            except ArithmeticError:  # the instance is beyond the precision bound: not a witness
                continue
            for first, second, p1, p2 in ((a, b, pa, pb), (b, a, pb, pa)):
                with mpmath.workdps(CHECK_DIGITS):
                    ratio = _log_ratio(p1, p2)
                    exceeds = ratio > eps
                if exceeds:
                    cost = samples_to_see(p1, p2, ratio, eps)
                    if best is None or cost < best.samples_to_see:
                        best = ProgramWitness(first, second, output, ratio, p1, p2, pairs_tried, outputs_tried, cost)
    if best is not None:
        return dataclasses.replace(best, pairs_tried=pairs_tried, outputs_tried=outputs_tried)
    return None
