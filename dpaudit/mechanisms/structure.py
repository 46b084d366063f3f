"""What a mechanism is built from, for mechanisms whose output density nobody writes by hand.

A :class:`~dpaudit.mechanisms.base.Mechanism` without a closed-form ``density`` may declare its
``structure`` instead; :mod:`dpaudit.proofs.structures.procedure` proves the claim from it by chaining theorem
rules, each a checked step of the certificate.  Three forms:

* :class:`SequentialComposition` -- parts run one after another on the same data (each may read the
  outputs of the parts before it), and the release is a map of their outputs.  Each :class:`Part` is a
  mechanism with a declared density (proved on its own, over query values within its sensitivity),
  applied to an input whose largest change between neighbouring datasets is computed from the
  mechanism's own parameters (``input_sensitivity``).  Examples: MWEM, top-k by peeling, the net
  mechanism (one part).
* :class:`AdmissibleNoise` -- f(x) + (S(x) / alpha) Z with Z of density h and S a beta-smooth upper
  bound on the local sensitivity (Nissim, Raskhodnikova & Smith 2007, Def. 2.5, Lemma 2.6).
* :class:`WishartNoise` -- A(x) + W with W ~ Wishart_d(dof, c I) (Jiang, Xie & Zhang 2016, Alg. 1).
* :class:`GaussianSteps` -- T noisy gradient sums of DP-SGD: each step a (subsampled) sum of clipped
  vectors plus Gaussian noise (Abadi et al. 2016, Alg. 1), described by what the training loop does.

A declaration must describe what the sampler does: the catalogue entries build their samplers from
the same values (the parts' parameters, the functions S and LS, the Wishart dof and scale), and their
tests run the parts' samplers against the entry's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from .._validation import (
    check_nonnegative_finite,
    check_one_of,
    check_positive_finite,
    check_positive_int,
    check_unit_interval,
)
from ..errors import InvalidArgument
from .base import Mechanism

__all__ = ["AdmissibleNoise", "GaussianSteps", "Part", "SequentialComposition", "Structure", "WishartNoise"]


@dataclass(frozen=True)
class Part:
    """One step of a sequential composition.

    Attributes
    ----------
    label : str
        What the step does, in words ("round t: select a query").
    mechanism : Mechanism
        A mechanism with a declared density whose neighbours are query values within its
        ``sensitivity`` (proved on its own by :func:`dpaudit.prove`).
    input : str
        The part's input in terms of the data (and of earlier outputs), in words.
    input_sensitivity : float
        The largest change of that input between neighbouring datasets of the composed mechanism, in
        the part's norm, computed from the mechanism's parameters for every fixed value of the earlier
        outputs; the proof needs it <= the part's sensitivity.
    sensitivity_reason : str
        Why ``input_sensitivity`` bounds the change (the computation, in words).
    repeat : int
        How many times the part runs (T rounds of the same step).
    """

    label: str
    mechanism: Mechanism
    input: str
    input_sensitivity: float
    sensitivity_reason: str
    repeat: int = 1

    def __post_init__(self) -> None:
        if not isinstance(self.mechanism, Mechanism):
            raise InvalidArgument(f"mechanism={self.mechanism!r} of part {self.label!r} must be a Mechanism")
        object.__setattr__(
            self, "input_sensitivity", check_nonnegative_finite("input_sensitivity", self.input_sensitivity)
        )
        object.__setattr__(self, "repeat", check_positive_int("repeat", self.repeat))


@dataclass(frozen=True)
class SequentialComposition:
    """Parts run in sequence on the same data; the release is ``output``, a map of their outputs."""

    parts: tuple[Part, ...]
    output: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "parts", tuple(self.parts))
        if not self.parts or not all(isinstance(p, Part) for p in self.parts):
            raise InvalidArgument(f"parts={self.parts!r} must be a non-empty sequence of Part")


@dataclass(frozen=True)
class AdmissibleNoise:
    """A(x) = f(x) + (S(x) / alpha) Z, Z with density h (NRS 2007, Lemma 2.6).

    Attributes
    ----------
    noise_density : callable
        ``() -> (h, z)``: the density h of Z as a sympy expression in the symbol z (built lazily).
    alpha, beta : float
        The noise scale divisor and the smoothness parameter of S, as the sampler uses them; ``beta``
        None when S is not meant to be smooth (the prover then looks for a dataset where S(x) = 0).
    smooth_bound : callable
        ``S(x)``, the code the sampler calls.
    local_sensitivity : callable
        ``LS(x) = max over neighbours x' of |f(x) - f(x')|``, exactly.
    datasets : tuple
        The instance's datasets, on which S is checked to be a beta-smooth upper bound on LS.
    neighbours : callable
        ``x -> iterable of x'``: the neighbours of a dataset among ``datasets``'s domain.
    statistic : str
        f in words.
    output : str
        The map applied to f(x) + (S(x)/alpha) Z before release, in words ("" for none).
    grid : (float, float) or None
        When that map is the rounding y = clamp(g round(v / g), -B, B) of
        :func:`dpaudit.mechanisms._grid.snap_to_grid`, its (g, B) (``grid_for``'s pair), so a prover can
        state events on the released values; None otherwise.
    """

    noise_density: Callable[[], tuple[Any, Any]]
    alpha: float
    beta: float | None
    smooth_bound: Callable[[Any], float]
    local_sensitivity: Callable[[Any], float]
    datasets: tuple[Any, ...]
    neighbours: Callable[[Any], Iterable[Any]]
    statistic: str
    output: str = ""
    grid: tuple[float, float] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "alpha", check_positive_finite("alpha", self.alpha))
        if self.grid is not None:
            step, bound = self.grid
            object.__setattr__(self, "grid", (check_positive_finite("grid step", step), check_positive_finite("grid bound", bound)))
            if not self.output:
                raise InvalidArgument(f"grid={self.grid!r} needs output to say in words that the release is rounded to it")
        if self.beta is not None:
            object.__setattr__(self, "beta", check_positive_finite("beta", self.beta))
        object.__setattr__(self, "datasets", tuple(self.datasets))
        if not self.datasets:
            raise InvalidArgument("datasets=() must hold at least one dataset to check the smooth bound on")


@dataclass(frozen=True)
class WishartNoise:
    """A(x) + W, W ~ Wishart_d(dof, scale I), A(x) = (1/size) sum_i x_i x_i^T over records with ||x_i||_2 <= 1.

    ``output`` is the map applied to A(x) + W before release, in words ("" for none).
    """

    dimension: int
    dof: int
    scale: float
    size: int
    output: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "dimension", check_positive_int("dimension", self.dimension))
        object.__setattr__(self, "dof", check_positive_int("dof", self.dof))
        object.__setattr__(self, "scale", check_positive_finite("scale", self.scale))
        object.__setattr__(self, "size", check_positive_int("size", self.size))
        if self.dof < self.dimension:
            raise InvalidArgument(f"dof={self.dof!r} must be >= dimension={self.dimension!r} (else W is singular)")


Mixture = tuple[tuple[float, float], ...]
"""A law on the line as (probability, mean) pairs of Gaussian components sharing one variance."""


@dataclass(frozen=True)
class GaussianSteps:
    """T steps of DP-SGD: step t releases S_t + N(0, (sigma_t C / divisor)^2 I), S_t a sum of clipped vectors.

    Every quantity is in units of the clip norm C and says what the training loop *does*, which may
    differ from what its privacy accountant assumed (that difference is an implementation flaw).

    Attributes
    ----------
    noise_multipliers : tuple of float
        sigma_t for each step, as the loop uses them.
    noise_divisor : float
        The loop's noise has standard deviation sigma_t C / noise_divisor (1 in DP-SGD).
    sampling : str
        ``"poisson"`` (each record enters a step's batch independently with probability ``q``) or
        ``"fixed"`` (``batch_size`` records drawn uniformly without replacement).
    q : float
        The probability that the canary is in a step's batch: the Poisson rate, or
        batch_size / (records + 1) for a fixed-size batch of the dataset that holds the canary.
    sensitivity : float
        The largest change of S_t's norm between the two datasets of an add/remove pair, for every
        batch in which the canary takes part (1 for per-example clipping, 2 when the sum is clipped
        or the canary displaces another record), with ``sensitivity_reason`` in words.
    pair : tuple
        The canary pair (D, D + canary) the witness is stated on.
    projections : tuple of two Mixture, or None
        The law of one step's noiseless canary projection <S_t, u> under D and under D + canary
        (over the batch draw), when it is the same at every step whatever the earlier outputs
        (computed from the loop's own gradient code); None when it is not, or when the release is not
        the projections (black-box threat).
    projection_reason : str
        Why the projections are (or are not) known exactly.
    grid : float
        The release rounds each projection to a multiple of ``grid`` (0 for none).
    clamp : float
        The release clamps each projection to [-clamp, clamp] (``inf`` for none).
    clip : float
        C, to convert the projections (absolute units) to clip units.
    """

    noise_multipliers: tuple[float, ...]
    noise_divisor: float
    sampling: str
    q: float
    sensitivity: float
    sensitivity_reason: str
    pair: tuple[Any, Any]
    projections: tuple[Mixture, Mixture] | None
    projection_reason: str
    grid: float = 0.0
    clamp: float = float("inf")
    clip: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "noise_multipliers", tuple(self.noise_multipliers))
        if not self.noise_multipliers:
            raise InvalidArgument("noise_multipliers=() must hold one noise multiplier per step")
        for sigma in self.noise_multipliers:
            check_positive_finite("noise_multipliers", sigma)
        check_positive_finite("noise_divisor", self.noise_divisor)
        check_one_of("sampling", self.sampling, ("poisson", "fixed"))
        check_unit_interval("q", self.q, low_open=True, high_open=False)
        check_positive_finite("sensitivity", self.sensitivity)
        check_nonnegative_finite("grid", self.grid)
        check_positive_finite("clip", self.clip)

    @property
    def steps(self) -> int:
        return len(self.noise_multipliers)

    @property
    def noise_scales(self) -> tuple[float, ...]:
        """The noise's standard deviation at each step in clip units: sigma_t / divisor."""
        return tuple(s / self.noise_divisor for s in self.noise_multipliers)


Structure = SequentialComposition | AdmissibleNoise | WishartNoise | GaussianSteps
