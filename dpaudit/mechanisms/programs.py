"""Mechanisms declared as small programs: noise draws, comparisons and outputs over a loop of k queries.

A program is the one description from which both the sampler (numpy) and the prover's model
(:mod:`dpaudit.proofs.programs.alignment`, :mod:`dpaudit.proofs.programs.counterexamples`) are built, so the audited
code and the proved model cannot drift apart.  Two shapes cover the sparse-vector and noisy-max
families of the literature (Lyu, Su & Li 2017; Dwork & Roth 2014; the LightDP / ShadowDP / CheckDP
benchmarks of Zhang & Kifer POPL 2017, Wang et al. PLDI 2019 and CCS 2020):

* :class:`ThresholdProgram` (sparse vector)::

      rho ~ threshold_noise                      # redrawn after every top when resample_threshold
      for i in 1..k:
          nu_i ~ query_noise                     # absent: compare the exact answer
          if q_i + nu_i >= T + rho: output top (1, or the noisy value q_i + nu_i); count it
          else:                     output bottom (0)
          stop after `cutoff` tops (the rest: -1, unanswered)

* :class:`NoisyMaxProgram` (report noisy max)::

      Z_i ~ noise for i in 1..k
      output argmax_i (q_i + Z_i)   (release="index")  or  max_i (q_i + Z_i)  (release="value")

``monotone=True`` declares that neighbours move every query the same way (counting queries under
add/remove; Lyu et al. 2017 Sect. 4.2): the prover then aligns each direction on its own, and its
certificate says that it holds for such neighbours only.

Noise scales, the threshold and the claimed epsilon are sympy expressions in the parameters
``epsilon`` and ``Delta`` (symbols of :func:`dpaudit.mechanisms.density.symbol`); ``instance`` gives
their catalogue values.  The generated sampler draws its noise in the same order as the catalogue's
hand-written samplers (threshold noise of shape (n, draws), then query noise of shape (n, k)), so for
one seed both give identical outputs (``tests/mechanisms/test_programs.py``).  Noisy values are
released on the grid of :mod:`dpaudit.mechanisms._grid` (post-processing of the exact value).

This module imports sympy: build programs inside a function (``Mechanism.program`` is a zero-argument
callable), as densities are.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy

from .._validation import check_one_of
from ..claims import PureDP
from ..errors import InvalidArgument
from ..neighbours import QueryDistance
from ._grid import snap_to_grid
from ._queries import query_vector
from .base import Mechanism
from .density import symbol

__all__ = ["NOISE_DISTRIBUTIONS", "Noise", "NoisyMaxProgram", "Program", "ThresholdProgram", "noisy_max_program", "threshold_program"]

NOISE_DISTRIBUTIONS = ("laplace", "exponential")
TOP, BOTTOM, UNANSWERED = 1.0, 0.0, -1.0


@dataclass(frozen=True)
class Noise:
    """One kind of draw: ``laplace`` (density e^(-|z|/b) / (2b)) or ``exponential`` (e^(-z/b)/b, z >= 0)."""

    distribution: str
    scale: Any

    def __post_init__(self) -> None:
        check_one_of("distribution", self.distribution, NOISE_DISTRIBUTIONS)
        scale = sympy.sympify(self.scale)
        if scale.is_positive is False or scale.is_zero:
            raise InvalidArgument(f"scale={self.scale!r} must be a positive expression")
        object.__setattr__(self, "scale", scale)

    def draw(self, rng: np.random.Generator, scale: float, size: tuple[int, int]) -> np.ndarray:
        if self.distribution == "laplace":
            return rng.laplace(0.0, scale, size=size)
        return rng.exponential(scale, size=size)

    def __str__(self) -> str:
        name = "Lap" if self.distribution == "laplace" else "Exp"
        return f"{name}({sympy.sstr(self.scale)})"


def _default_instance() -> dict[Any, Any]:
    return {symbol("epsilon"): sympy.Rational(1), symbol("Delta"): sympy.Integer(1)}


@dataclass(frozen=True)
class _ProgramBase:
    name: str
    queries: int
    epsilon: Any = field(default_factory=lambda: symbol("epsilon"))
    sensitivity: Any = field(default_factory=lambda: symbol("Delta"))
    instance: Mapping[Any, Any] = field(default_factory=_default_instance)
    monotone: bool = False

    def _check_base(self) -> None:
        if not isinstance(self.monotone, bool):
            raise InvalidArgument(f"monotone={self.monotone!r} must be True (neighbours move every query the same way) or False")
        if not isinstance(self.name, str) or not self.name:
            raise InvalidArgument(f"name={self.name!r} must be a non-empty string")
        if isinstance(self.queries, bool) or not isinstance(self.queries, int) or self.queries < 1:
            raise InvalidArgument(f"queries={self.queries!r} must be a positive int (the number k of queries)")
        object.__setattr__(self, "epsilon", sympy.sympify(self.epsilon))
        object.__setattr__(self, "sensitivity", sympy.sympify(self.sensitivity))
        instance = {sympy.sympify(k): sympy.nsimplify(v, rational=True) for k, v in dict(self.instance).items()}
        object.__setattr__(self, "instance", instance)
        for expr in self.expressions():
            free = expr.free_symbols - set(instance)
            if free:
                raise InvalidArgument(f"{self.name}: {sympy.sstr(expr)} has symbols {sorted(map(str, free))} without a value in instance=")

    def expressions(self) -> tuple[Any, ...]:
        return (self.epsilon, self.sensitivity)

    def value(self, expr: Any) -> float:
        """``expr`` at the instance, as a float."""
        return float(sympy.sympify(expr).subs(self.instance))

    def exact(self, expr: Any) -> Any:
        """``expr`` at the instance, as an exact sympy number."""
        return sympy.nsimplify(sympy.sympify(expr).subs(self.instance), rational=True)

    def sample(self, data: Any, n: int, rng: np.random.Generator) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def mechanism(self, **fields: Any) -> Mechanism:
        """The Mechanism whose sampler is generated from this program and whose ``program`` is this one.

        Unless ``fields`` say otherwise, its inputs start from every query at the threshold (0 for noisy
        max) and its candidate pairs are the relation's patterns there (Ding et al. 2018), so an audit
        with no pair searches k-query vectors, as for the catalogue's sparse-vector entries.
        """
        relation = QueryDistance(self.value(self.sensitivity), "linf")
        base = tuple([self.value(getattr(self, "threshold", 0))] * self.queries)
        defaults = {"domain": base, "pairs": tuple(relation.candidate_pairs(base))}
        return Mechanism(
            name=self.name,
            claim=PureDP(self.value(self.epsilon)),
            neighbours=relation,
            sampler=self.sample,
            query=lambda data: np.asarray(data, dtype=float),
            sensitivity=self.value(self.sensitivity),
            program=lambda: self,
            **{**defaults, **fields},
        )


@dataclass(frozen=True)
class ThresholdProgram(_ProgramBase):
    """The sparse vector technique as a program (see the module docstring).

    Attributes
    ----------
    threshold : sympy expression
        The public threshold T.
    threshold_noise : Noise or None
        The draw of rho (None: compare with T itself).
    query_noise : Noise or None
        The draw of each nu_i (None: compare the exact answers, Lyu et al. Alg. 5).
    cutoff : int or None
        Stop after this many tops (None: answer every query, Lyu et al. Alg. 6).
    resample_threshold : bool
        Redraw rho after every top (Lyu et al. Alg. 2, Dwork & Roth Alg. 2).
    release : ``"bit"`` or ``"value"``
        What a top outputs: 1, or the noisy answer q_i + nu_i (Lyu et al. Alg. 3).
    """

    threshold: Any = 0
    threshold_noise: Noise | None = None
    query_noise: Noise | None = None
    cutoff: int | None = 1
    resample_threshold: bool = False
    release: str = "bit"

    def __post_init__(self) -> None:
        check_one_of("release", self.release, ("bit", "value"))
        if self.cutoff is not None and (isinstance(self.cutoff, bool) or not isinstance(self.cutoff, int) or self.cutoff < 1):
            raise InvalidArgument(f"cutoff={self.cutoff!r} must be a positive int or None (no cutoff)")
        if self.resample_threshold and self.cutoff is None:
            raise InvalidArgument("resample_threshold=True needs a cutoff (one threshold per top)")
        if self.release == "value" and self.query_noise is None:
            raise InvalidArgument("release='value' needs query_noise (the value released is q_i + nu_i)")
        object.__setattr__(self, "threshold", sympy.sympify(self.threshold))
        self._check_base()

    def expressions(self) -> tuple[Any, ...]:
        noises = [n.scale for n in (self.threshold_noise, self.query_noise) if n is not None]
        return (self.epsilon, self.sensitivity, self.threshold, *noises)

    @property
    def threshold_draws(self) -> int:
        """How many rho are drawn per run: one per top when resampled, else one."""
        if self.threshold_noise is None:
            return 0
        return self.cutoff if self.resample_threshold else 1

    def sample(self, data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        """n runs: an (n, k) float array of 1 / 0 / -1 (or the noisy value of each top)."""
        q = query_vector(data, self.queries)
        k, draws = self.queries, max(self.threshold_draws, 1)
        if self.threshold_noise is not None:
            rho = self.threshold_noise.draw(rng, self.value(self.threshold_noise.scale), (n, draws))
        else:
            rho = np.zeros((n, draws))
        noisy = q + (self.query_noise.draw(rng, self.value(self.query_noise.scale), (n, k)) if self.query_noise else 0.0)
        noisy = np.broadcast_to(noisy, (n, k))
        threshold = self.value(self.threshold)
        out = np.full((n, k), UNANSWERED)
        tops = np.zeros(n, dtype=np.int64)
        rows = np.arange(n)
        cutoff = k + 1 if self.cutoff is None else self.cutoff
        for i in range(k):
            active = tops < cutoff
            above = noisy[:, i] >= threshold + rho[rows, np.minimum(tops, draws - 1)]
            top = snap_to_grid(noisy[:, i], self.value(self.query_noise.scale)) if self.release == "value" else TOP
            out[:, i] = np.where(active, np.where(above, top, BOTTOM), UNANSWERED)
            tops += active & above
        return out

    def __str__(self) -> str:
        lines = [
            f"rho ~ {self.threshold_noise or 0}" + (" (redrawn after each top)" if self.resample_threshold else ""),
            f"for i in 1..{self.queries}:",
            f"    nu_i ~ {self.query_noise or 0}",
            f"    if q_i + nu_i >= {sympy.sstr(self.threshold)} + rho: output "
            + ("q_i + nu_i" if self.release == "value" else "top") + (f"; halt after {self.cutoff} tops" if self.cutoff else ""),
            "    else: output bottom",
        ]
        return "\n".join(lines)


@dataclass(frozen=True)
class NoisyMaxProgram(_ProgramBase):
    """Report noisy max as a program: Z_i ~ noise, output argmax_i (q_i + Z_i) or the maximum itself."""

    noise: Noise = field(default_factory=lambda: Noise("laplace", 2 * symbol("Delta") / symbol("epsilon")))
    release: str = "index"

    def __post_init__(self) -> None:
        check_one_of("release", self.release, ("index", "value"))
        if not isinstance(self.noise, Noise):
            raise InvalidArgument(f"noise={self.noise!r} must be a Noise")
        self._check_base()

    def expressions(self) -> tuple[Any, ...]:
        return (self.epsilon, self.sensitivity, self.noise.scale)

    def sample(self, data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        """n runs: the argmax index (int64) or the maximum noisy value on the grid."""
        q = query_vector(data, self.queries)
        scale = self.value(self.noise.scale)
        noisy = q + self.noise.draw(rng, scale, (n, self.queries))
        if self.release == "index":
            return np.argmax(noisy, axis=1).astype(np.int64)
        return snap_to_grid(np.max(noisy, axis=1), scale)

    def __str__(self) -> str:
        out = "argmax_i" if self.release == "index" else "max_i"
        return f"Z_i ~ {self.noise} for i in 1..{self.queries}; output {out} (q_i + Z_i)"


Program = ThresholdProgram | NoisyMaxProgram


Scale = Callable[[Any, Any], Any]
"""A noise scale as a function of (epsilon, Delta): the same lambda gives the float the sampler uses
and the sympy expression the prover uses, e.g. ``lambda eps, sens: 2 * sens / eps``."""


def _instance(epsilon: float, sensitivity: float) -> dict[Any, Any]:
    return {symbol("epsilon"): epsilon, symbol("Delta"): sensitivity}


def threshold_program(
    name: str,
    *,
    epsilon: float,
    queries: int,
    threshold: float,
    threshold_scale: Scale | None,
    query_scale: Scale | None,
    cutoff: int | None,
    resample_threshold: bool = False,
    release: str = "bit",
    sensitivity: float = 1.0,
) -> ThresholdProgram:
    """A :class:`ThresholdProgram` whose scales are given as functions of (epsilon, Delta), symbolic in both."""
    eps, sens = symbol("epsilon"), symbol("Delta")
    return ThresholdProgram(
        name,
        queries,
        instance=_instance(epsilon, sensitivity),
        threshold=sympy.nsimplify(threshold, rational=True),
        threshold_noise=None if threshold_scale is None else Noise("laplace", threshold_scale(eps, sens)),
        query_noise=None if query_scale is None else Noise("laplace", query_scale(eps, sens)),
        cutoff=cutoff,
        resample_threshold=resample_threshold,
        release=release,
    )


def noisy_max_program(
    name: str, *, epsilon: float, queries: int, scale: Scale, distribution: str = "laplace", release: str = "index",
    sensitivity: float = 1.0,
) -> NoisyMaxProgram:
    """A :class:`NoisyMaxProgram` whose noise scale is given as a function of (epsilon, Delta)."""
    eps, sens = symbol("epsilon"), symbol("Delta")
    return NoisyMaxProgram(
        name, queries, instance=_instance(epsilon, sensitivity), noise=Noise(distribution, scale(eps, sens)), release=release
    )
