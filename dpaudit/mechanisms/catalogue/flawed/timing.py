"""Timing side channels: samplers whose output is exact and whose running time gives the input away.

Jin, McMurtry, Rubinstein & Ohrimenko (IEEE S&P 2022), "Are we there yet? Timing and floating-point
attacks on differential privacy systems", Sect. V: a discrete Laplace (two-sided geometric) noise
drawn by repeated Bernoulli trials runs one trial per unit of |noise|, so the time of a run -- or,
exactly, the number of random values it draws -- reveals |o - q| for the released o, and with it q.
Differential privacy bounds what the *output* tells; an observer who also sees how long the run took
(a web service's response time, a shared machine's load) learns more.

* ``geometric-by-trials`` -- the two-sided geometric mechanism on a count with a = 1/2
  (P[Z = z] = (1 - a)/(1 + a) a^|z| = (1/3) 2^-|z|, epsilon = ln 2 / Delta, Delta = 1; Ghosh,
  Roughgarden & Sundararajan 2009), drawn as CKS20 draw it (Canonne, Kamath & Steinke 2020,
  Alg. 2, the geometric by Bernoulli trials): a sign s from one uniform, then k = the number of
  Bernoulli(a) successes before the first failure (``while rng.random() < a: k += 1``), the pair
  (s = -1, k = 0) rejected and redrawn, output q + s k.  With a = 1/2 every trial is exact
  (U on 2^-53 Z has P[U < 1/2] = 1/2 exactly), so the *output* has exactly the declared pmf:
  P[(+, k)] = P[(-, k)] = (1 - a) a^k / 2 before rejection, and the accepted outputs are
  (1 - a)/(1 + a) a^|z|.  Its output is therefore exactly ln 2-DP: a symbolic prover PROVES the
  declared density, and an audit of the output alone passes.  The flaw is the **draw count**: a run
  draws d = 2 + k + 2r values (r rejections), so d - 2 - |o - q| is even.  For neighbouring counts
  q and q + 1, |o - q| and |o - q - 1| differ by one, so every (output, draw count) pair is possible
  under exactly one of them: the side channel identifies the input, **true epsilon inf** (for the
  output with its draw count; ln 2 for the output alone).  The auditor's ``draw-count`` check
  (:mod:`dpaudit.auditor.run.observed`) records the count beside the output of this one-run
  function and finds the whole-row patterns (output, draws) seen under one input only.  The same
  function is the entry's ``one_run``: it calls only ``rng.random()``, which a ``random.Random`` draws
  on the same 2^-53 grid, so given one it has the same law (and the same draw counts).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from ....claims import PureDP
from ....neighbours import AddRemove
from ...base import Mechanism
from ...registry import register
from ..geometric import geometric_density, integer_count

__all__ = ["geometric_by_trials"]

_A = 0.5  # the geometric ratio a = e^-epsilon; 1/2 makes every Bernoulli(a) trial exact on 2^-53 Z


def _half_geometric_density():
    """p(y | q) = (1/3) 2^-|y - q| on the integers: the two-sided geometric with a = 1/2 = e^-epsilon."""
    import sympy

    return geometric_density(
        sympy.log(2), Fraction(1),
        note=("exact pmf of the output; the implementation leaks the input through its side channel (the number of "
              "random draws a run takes), which the density does not model"),
    )


def _by_trials(data: Any, rng: np.random.Generator) -> int:
    """One run: q + s k with k Bernoulli(1/2) successes before a failure, (s, k) = (-1, 0) redrawn."""
    q = integer_count(data)
    while True:
        negative = rng.random() < 0.5
        k = 0
        while rng.random() < _A:
            k += 1
        if not (negative and k == 0):
            return q - k if negative else q + k


def _sample(data: Any, n: int, rng: np.random.Generator) -> list[int]:
    """n runs of the one-run function (``one_run``: the auditor can observe each run's draws)."""
    return [_by_trials(data, rng) for _ in range(n)]


_sample.one_run = _by_trials  # type: ignore[attr-defined]


@register("geometric-by-trials")
def geometric_by_trials() -> Mechanism:
    """Two-sided geometric (a = 1/2, epsilon = ln 2) drawn by Bernoulli trials: exact output, leaky draw count."""
    return Mechanism(
        name="geometric-by-trials",
        claim=PureDP(math.log(2)),
        neighbours=AddRemove(),
        sampler=_sample,
        one_run=_by_trials,
        family="geometric",
        description="two-sided geometric (a = 1/2, epsilon = ln 2) on a count, drawn by repeated Bernoulli trials",
        query=integer_count,
        sensitivity=1.0,
        density=_half_geometric_density,
        domain=(0, 1),
        pairs=(((1, 0, 1), (1, 0, 1, 1)),),
        flaw=("the number of random draws a run takes (2 + |noise| + 2 x rejections) is observable with the output: "
              "d - 2 - |o - q| is even, so every (output, draw count) is possible under one of two neighbouring counts "
              "only; the output alone is exactly ln 2-DP"),
        true_epsilon=math.inf,
        source=("Jin, McMurtry, Rubinstein & Ohrimenko (2022) IEEE S&P, 'Are we there yet? Timing and floating-point "
                "attacks on differential privacy systems'; sampler: Canonne, Kamath & Steinke (2020) Alg. 2 with "
                "a = 1/2"),
    )
