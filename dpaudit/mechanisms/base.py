"""The Mechanism: a frozen description of one randomised algorithm and the promise it makes.

A mechanism is runnable (``sample(data, n, rng)`` returns n independent outputs, samples on the first
axis) and, optionally, declared (``density()`` returns a :class:`~dpaudit.mechanisms.density.SymbolicDensity`
for the prover; ``query`` and ``sensitivity`` for sensitivity checks).  Users never subclass: a plain
function ``f(data, rng)`` (one run) or ``f(data, n, rng)`` (n runs) becomes a Mechanism with
:meth:`Mechanism.from_callable`.

Every output passes through :meth:`Mechanism.sample`, which checks it: a sampler that raises, returns
NaN, the wrong number of rows, varying shapes or non-numeric values gets a :class:`MechanismError`
naming the mechanism and what was wrong.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from .._validation import check_nonnegative_int, check_positive_finite
from ..claims import ApproxDP, Claim, PureDP
from ..errors import InvalidArgument, MechanismError
from ..neighbours import AddRemove, Local, NeighbourRelation, QueryDistance, Replace

if TYPE_CHECKING:
    from .density import SymbolicDensity
    from .float_noise import FloatNoise

__all__ = ["Mechanism", "Sampler"]

Sampler = Callable[[Any, int, np.random.Generator], Any]


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


@dataclass(frozen=True)
class Mechanism:
    """A randomised algorithm with its privacy claim.

    Attributes
    ----------
    name : str
        Short kebab-case name (the catalogue key).
    claim : PureDP | ApproxDP | ProbabilisticDP
        What the mechanism promises.
    neighbours : AddRemove | Replace | QueryDistance | Local
        The unit of privacy the claim is stated for.
    sampler : callable
        ``sampler(data, n, rng) -> array`` with n outputs on the first axis; ``rng`` is a
        ``numpy.random.Generator``.  Call :meth:`sample`, which validates the result.
    family : str
        Catalogue family (``"laplace"``, ``"randomized-response"``, ...).
    description : str
        One line for listings.
    query, sensitivity : callable, float
        The deterministic statistic f(D) the noise is added to and its declared sensitivity.
    density : callable or None
        Zero-argument function returning the :class:`SymbolicDensity` of the output given the
        query value (built lazily: sympy is imported only then).
    domain : tuple or None
        Representative inputs for pair search: record values for dataset relations, the base
        query value for :class:`QueryDistance`, the input alphabet for :class:`Local`.
    pairs : tuple of (a, b)
        Neighbouring pairs the mechanism's author recommends auditing first.
    flaw, true_epsilon : str, float
        For known-broken entries: what is wrong and the epsilon it really achieves (``inf`` when
        unbounded); ``true_epsilon`` may also be set for correct entries whose exact epsilon is known.
    source : str
        Where the mechanism (or the flaw) comes from.
    noise : FloatNoise or None
        Grey-box exposure of the float noise for the exact-support check: the output is
        ``fl(query(data) + s * noise(u))`` with u a grid-uniform double (see
        :mod:`dpaudit.mechanisms.float_noise`); for vector outputs, coordinate by coordinate.
    """

    name: str
    claim: Claim
    neighbours: NeighbourRelation
    sampler: Sampler = field(repr=False)
    family: str = "custom"
    description: str = ""
    query: Callable[[Any], Any] | None = field(default=None, repr=False)
    sensitivity: float | None = None
    density: Callable[[], "SymbolicDensity"] | None = field(default=None, repr=False)
    domain: Any = None
    pairs: tuple[tuple[Any, Any], ...] = ()
    flaw: str | None = None
    true_epsilon: float | None = None
    source: str = ""
    noise: "FloatNoise | None" = field(default=None, repr=False)

    @property
    def thread_safe(self) -> bool:
        """The sampler keeps no state between calls (it draws only from the ``rng`` it is given).

        Then the auditor may run sampling chunks side by side in threads of one process: numpy
        releases the GIL while it draws, and each chunk has its own generator, so the results do not
        change.  A sampler says so with the attribute ``sampler.thread_safe = True`` (every catalogue
        entry's does); replacing the sampler drops the mark with it.
        """
        return bool(getattr(self.sampler, "thread_safe", False))

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise InvalidArgument(f"name={self.name!r} must be a non-empty string")
        if not isinstance(self.claim, (PureDP, ApproxDP)) and getattr(self.claim, "kind", None) != "probabilistic":
            raise InvalidArgument(f"claim={self.claim!r} must be PureDP, ApproxDP or ProbabilisticDP")
        if not isinstance(self.neighbours, (AddRemove, Replace, QueryDistance, Local)):
            raise InvalidArgument(
                f"neighbours={self.neighbours!r} must be AddRemove(), Replace(), QueryDistance(...) or Local()"
            )
        if not callable(self.sampler):
            raise InvalidArgument(f"sampler={self.sampler!r} must be callable as sampler(data, n, rng)")
        if self.sensitivity is not None:
            object.__setattr__(self, "sensitivity", check_positive_finite("sensitivity", self.sensitivity))
        if self.true_epsilon is not None:
            te = float(self.true_epsilon)
            if math.isnan(te) or te < 0:
                raise InvalidArgument(f"true_epsilon={self.true_epsilon!r} must be >= 0 (inf allowed)")
            object.__setattr__(self, "true_epsilon", te)
        object.__setattr__(self, "pairs", tuple(tuple(p) for p in self.pairs))

    @property
    def flawed(self) -> bool:
        """True for entries of the flawed gallery (a known violation of the claim)."""
        return self.flaw is not None

    def sample(self, data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        """Draw n outputs of the mechanism on ``data`` and check them.

        Returns an array of shape ``(n, *output_shape)`` with a numeric (bool, integer or float)
        dtype and no NaN.  Raises :class:`MechanismError` naming the mechanism otherwise.
        """
        n = check_nonnegative_int("n", n)
        if not isinstance(rng, np.random.Generator):
            raise InvalidArgument(f"rng={rng!r} must be a numpy.random.Generator")
        try:
            raw = self.sampler(data, n, rng)
        except MechanismError:
            raise
        except Exception as exc:  # the code under test may raise anything; report it, keep the cause
            raise MechanismError(
                f"mechanism {self.name!r} raised {type(exc).__name__}: {exc} (data={_short(data)}, n={n})"
            ) from exc
        return _check_outputs(self.name, raw, n, data)

    @classmethod
    def from_callable(
        cls,
        function: Callable[..., Any],
        *,
        claim: Claim,
        neighbours: NeighbourRelation | None = None,
        name: str | None = None,
        vectorised: bool | None = None,
        **fields: Any,
    ) -> "Mechanism":
        """Wrap a plain function as a Mechanism.

        ``function(data, rng)`` returns one output; ``function(data, n, rng)`` returns n outputs on
        the first axis.  Which one is read from the number of required positional parameters unless
        ``vectorised`` says so.  One-run functions are called n times and their outputs stacked.
        ``neighbours`` defaults to ``QueryDistance(1.0)`` (inputs are query values).
        """
        if not callable(function):
            raise InvalidArgument(f"function={function!r} must be callable")
        check_run_signature(f"function={function!r}", function)
        if name is not None and not isinstance(name, str):
            raise InvalidArgument(f"name={name!r} must be a str or None (then the function's name)")
        if vectorised is not None and not isinstance(vectorised, bool):
            raise InvalidArgument(f"vectorised={vectorised!r} must be True, False or None (read from the signature)")
        if vectorised is None:
            vectorised = _required_positional(function) >= 3
        sampler = function if vectorised else _batched(function)
        label = name or getattr(function, "__name__", None) or type(function).__name__
        return cls(
            name=label,
            claim=claim,
            neighbours=neighbours if neighbours is not None else QueryDistance(1.0),
            sampler=sampler,
            **fields,
        )

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready description (no live objects)."""
        return {
            "name": self.name,
            "family": self.family,
            "description": self.description,
            "claim": self.claim.as_dict(),
            "neighbours": self.neighbours.as_dict(),
            "sensitivity": self.sensitivity,
            "has_density": self.density is not None,
            "flawed": self.flawed,
            "flaw": self.flaw,
            "true_epsilon": _json_float(self.true_epsilon),
            "source": self.source,
        }


def _json_float(value: float | None) -> float | str | None:
    if value is None or math.isfinite(value):
        return value
    return "inf"


def check_run_signature(named: str, function: Callable[..., Any]) -> None:
    """``function`` can be called as f(data, rng) or f(data, n, rng); else InvalidArgument starting ``named``."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return  # builtins without a signature: their call will tell
    for count in (2, 3):
        try:
            signature.bind(*range(count))
            return
        except TypeError:
            continue
    raise InvalidArgument(
        f"{named} must be called as f(data, rng) (one run) or f(data, n, rng) (n runs); "
        f"its signature is {signature}"
    )


def _required_positional(function: Callable[..., Any]) -> int:
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return 2
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return sum(1 for p in signature.parameters.values() if p.kind in kinds and p.default is p.empty)


def _batched(function: Callable[[Any, np.random.Generator], Any]) -> Sampler:
    """Turn a one-run function into an n-run sampler (outputs stacked on a new first axis)."""

    def sampler(data: Any, n: int, rng: np.random.Generator) -> Any:
        return _stack_runs(getattr(function, "__name__", "mechanism"), [function(data, rng) for _ in range(n)])

    sampler.__name__ = getattr(function, "__name__", "sampler")
    sampler.one_run = function  # type: ignore[attr-defined]
    return sampler


def _stack_runs(name: str, outputs: Sequence[Any]) -> np.ndarray:
    if not outputs:
        return np.empty((0,))
    shapes = {np.shape(o) for o in outputs}
    if len(shapes) > 1:
        raise MechanismError(f"mechanism {name!r} returned outputs of varying shapes {sorted(shapes)[:3]}")
    kinds = {type(o).__name__ for o in outputs if not isinstance(o, (np.ndarray, np.generic))}
    if any(isinstance(o, str) for o in outputs) and len(kinds) > 1:
        raise MechanismError(f"mechanism {name!r} mixes output types: {sorted(kinds)}")
    return np.asarray(outputs)


def _check_outputs(name: str, raw: Any, n: int, data: Any) -> np.ndarray:
    try:
        out = np.asarray(raw)
    except (ValueError, TypeError) as exc:
        raise MechanismError(f"mechanism {name!r} returned outputs numpy cannot stack: {exc}") from exc
    if out.dtype == object or out.ndim == 0:
        raise MechanismError(
            f"mechanism {name!r} must return an array of {n} numeric outputs (samples on the first axis), "
            f"got {type(raw).__name__} with dtype {out.dtype} and shape {out.shape}"
        )
    if out.shape[0] != n:
        raise MechanismError(
            f"mechanism {name!r} returned {out.shape[0]} rows for n={n} (data={_short(data)}); "
            "the first axis must hold exactly n samples"
        )
    if out.dtype.kind not in "biuf":
        raise MechanismError(
            f"mechanism {name!r} returned non-numeric outputs of dtype {out.dtype} (mixed or string types?)"
        )
    if out.dtype.kind == "f":
        bad = ~np.isfinite(out)
        if np.any(np.isnan(out)):
            where = int(np.argwhere(np.isnan(out))[0][0])
            raise MechanismError(f"mechanism {name!r} returned NaN (first at sample {where}, data={_short(data)})")
        if np.any(bad):
            where = int(np.argwhere(bad)[0][0])
            raise MechanismError(
                f"mechanism {name!r} returned an infinite output (first at sample {where}, data={_short(data)})"
            )
    return out
