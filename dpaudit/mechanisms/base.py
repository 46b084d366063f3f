"""The Mechanism: a frozen description of one randomised algorithm and the promise it makes.

A mechanism is runnable (``sample(data, n, rng)`` returns n independent outputs, samples on the first
axis) and, optionally, declared (``density()`` returns a :class:`~dpaudit.mechanisms.density.SymbolicDensity`
for the prover; ``query`` and ``sensitivity`` for sensitivity checks).  Users never subclass: a plain
function ``f(data, rng)`` (one run) or ``f(data, n, rng)`` (n runs) becomes a Mechanism with
:meth:`Mechanism.from_callable`, which also accepts functions that take a ``numpy.random.RandomState``
or a ``random.Random`` instead of a Generator, or no randomness argument at all (see ``RANDOMNESS``).
Its fields come in typed parts, each validating itself: :class:`Runtime` (what runs), :class:`Declaration`
(what is declared), :class:`AuditHints` and :class:`EntryInfo` (catalogue metadata); a Mechanism is still
built, replaced and read by the flat field names.

Every output passes through :meth:`Mechanism.sample`, which encodes it as numbers
(:mod:`dpaudit.mechanisms.outputs`: labels, booleans, tuples and dicts included) and checks it: a
sampler that raises, returns NaN, the wrong number of rows, varying shapes or values with no code
gets a :class:`MechanismError` naming the mechanism and what was wrong.
"""

from __future__ import annotations

import functools
import inspect
import math
import random
import typing
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from .._codec import to_json
from .._validation import check_nonnegative_int, check_one_of, check_positive_finite, check_positive_int, short_repr
from ..claims import Claim, check_claim
from ..errors import InvalidArgument, MechanismError
from ..neighbours import NeighbourRelation, QueryDistance, check_relation
from .outputs import OutputCoding, encode_outputs

if TYPE_CHECKING:
    from .density import SymbolicDensity
    from .float_noise import FloatNoise

__all__ = [
    "RANDOMNESS", "AuditHints", "Declaration", "EntryInfo", "Mechanism", "Outputs", "Runtime", "Sampler",
    "StepwiseRelease",
]

Sampler = Callable[[Any, int, np.random.Generator], Any]

TRUE_EPSILON_DELTA = 1e-5
"""The delta at which ``true_epsilon`` is stated for an entry with a curve claim."""

RANDOMNESS = ("generator", "random-state", "python-random", "own")
"""What a wrapped function draws its randomness from: a ``numpy.random.Generator`` (passed as is),
a ``numpy.random.RandomState`` or a ``random.Random`` (each seeded from the audit's Generator), or
its own source (nothing passed; OpenDP, ``secrets``, global generators): then no seed reproduces it."""


@dataclass(frozen=True)
class StepwiseRelease:
    """An output row that is one column per step of an iterative mechanism (e.g. DP-SGD's T noisy updates).

    ``steps`` is T; ``claimed_epsilon(t, delta)`` is the epsilon(delta) the mechanism's own accountant
    (or closed form) gives for the first t steps alone, so that ``claimed_epsilon(T, claim.delta)`` is
    the claim.  The report draws the claim and the audited bound after each step
    (:func:`dpaudit.reports.plots.privacy_over_steps`).
    """

    steps: int
    claimed_epsilon: Callable[[int, float], float] = field(repr=False)
    how: str = ""

    def __post_init__(self) -> None:
        check_positive_int("steps", self.steps)
        if not callable(self.claimed_epsilon):
            raise InvalidArgument(f"claimed_epsilon={self.claimed_epsilon!r} must be a function (t, delta) -> epsilon")


@dataclass(frozen=True)
class Runtime:
    """What runs: the sampler and how its outputs come about (a part of :class:`Mechanism`).

    The fields are documented on :class:`Mechanism`, whose attributes of the same names read them.
    """

    sampler: Sampler = field(repr=False)
    randomness: str = "generator"
    float_sum: bool = True
    noise: FloatNoise | None = field(default=None, repr=False)
    stepwise: StepwiseRelease | None = field(default=None, repr=False)
    one_run: Callable[[Any, random.Random], Any] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if not callable(self.sampler):
            raise InvalidArgument(f"sampler={self.sampler!r} must be callable as sampler(data, n, rng)")
        if self.one_run is not None and not callable(self.one_run):
            raise InvalidArgument(f"one_run={self.one_run!r} must be callable as one_run(data, rng) or None")
        check_one_of("randomness", self.randomness, RANDOMNESS)
        if self.stepwise is not None and not isinstance(self.stepwise, StepwiseRelease):
            raise InvalidArgument(
                f"stepwise={self.stepwise!r} must be a StepwiseRelease(steps, claimed_epsilon) or None"
            )

    @property
    def reproducible(self) -> bool:
        """True when the audit's seed fixes every output (the code draws only from what it is given)."""
        return self.randomness != "own"

    @property
    def thread_safe(self) -> bool:
        """The sampler keeps no state between calls (it draws only from the ``rng`` it is given).

        Then the auditor may run sampling chunks side by side in threads of one process: numpy
        releases the GIL while it draws, and each chunk has its own generator, so the results do not
        change.  A sampler says so with the attribute ``sampler.thread_safe = True`` (every catalogue
        entry's does, :meth:`marked_thread_safe`); replacing the sampler drops the mark with it.
        """
        return bool(getattr(self.sampler, "thread_safe", False))

    def marked_thread_safe(self) -> Runtime:
        """This runtime with a sampler that says it is :attr:`thread_safe`.

        The mark goes on a wrapper, not on the sampler given: that function may be shared with code
        whose samplers keep state.
        """
        sampler = self.sampler

        @functools.wraps(sampler)
        def marked(data: Any, n: int, rng: np.random.Generator) -> Any:
            return sampler(data, n, rng)

        marked.thread_safe = True  # type: ignore[attr-defined]
        return replace(self, sampler=marked)


@dataclass(frozen=True)
class Declaration:
    """What the mechanism declares about itself for the prover and the sensitivity checks (a part of
    :class:`Mechanism`).  Every field is optional and they combine: an entry may declare both a density
    and a program.  The fields are documented on :class:`Mechanism`.
    """

    density: Callable[[], SymbolicDensity] | None = field(default=None, repr=False)
    program: Callable[[], Any] | None = field(default=None, repr=False)
    # ``structure`` and ``program`` are typed Any: their modules build on Mechanism (a Part holds one, a
    # program makes one), so this module cannot name their classes; Mechanism's docstring does.
    structure: Any = field(default=None, repr=False)
    query: Callable[[Any], Any] | None = field(default=None, repr=False)
    sensitivity: float | None = None

    def __post_init__(self) -> None:
        if self.sensitivity is not None:
            object.__setattr__(self, "sensitivity", check_positive_finite("sensitivity", self.sensitivity))


@dataclass(frozen=True)
class AuditHints:
    """Where the auditor should look first: representative inputs and recommended neighbouring pairs
    (a part of :class:`Mechanism`; the fields are documented there).  ``pairs`` is stored as a tuple of tuples.
    """

    domain: Any = None
    pairs: tuple[tuple[Any, Any], ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "pairs", tuple(tuple(p) for p in self.pairs))


@dataclass(frozen=True)
class EntryInfo:
    """Catalogue metadata: how an entry is listed and, for the flawed gallery, what is wrong with it
    (a part of :class:`Mechanism`; the fields are documented there).  ``true_epsilon`` is stored as a float.
    """

    family: str = "custom"
    description: str = ""
    flaw: str | None = None
    true_epsilon: float | None = None
    source: str = ""

    def __post_init__(self) -> None:
        if self.true_epsilon is not None:
            te = float(self.true_epsilon)
            if math.isnan(te) or te < 0:
                raise InvalidArgument(f"true_epsilon={self.true_epsilon!r} must be >= 0 (inf allowed)")
            object.__setattr__(self, "true_epsilon", te)

    @property
    def flawed(self) -> bool:
        """True for entries of the flawed gallery (a known violation of the claim)."""
        return self.flaw is not None


_PARTS: dict[str, type] = {"runtime": Runtime, "declaration": Declaration, "hints": AuditHints, "info": EntryInfo}
"""Mechanism's parts by attribute name, in the order they are built (and so validated)."""

_PART_OF: dict[str, str] = {f.name: attribute for attribute, kind in _PARTS.items() for f in fields(kind)}
"""The part that holds each flat field (``"sampler"`` -> ``"runtime"``)."""

_REPR_FIELDS = ("name", "claim", "neighbours", "family", "description", "sensitivity", "domain", "pairs", "flaw",
                "true_epsilon", "source", "randomness", "float_sum")
"""What ``repr(mechanism)`` shows, in order (the functions and live objects are left out)."""


class _InPart:
    """A read-only attribute of :class:`Mechanism` that reads the field of the same name in one of its
    parts (``mechanism.sampler`` is ``mechanism.runtime.sampler``), so flat reads keep working."""

    def __init__(self, part: str) -> None:
        self.part = part
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        if instance is None:
            return self
        return getattr(getattr(instance, self.part), self.name)


@dataclass(frozen=True, init=False, repr=False)
class Mechanism:
    """A randomised algorithm with its privacy claim.

    A mechanism holds its ``name``, ``claim`` and ``neighbours`` and four typed parts: ``runtime``
    (:class:`Runtime`: what runs), ``declaration`` (:class:`Declaration`: what is declared for the
    prover), ``hints`` (:class:`AuditHints`: where the auditor looks first) and ``info``
    (:class:`EntryInfo`: catalogue metadata).  It is built from the parts, from the flat fields below
    (``Mechanism(name=..., claim=..., neighbours=..., sampler=..., flaw=...)``), or both, a flat field
    overriding the same field of the part given; so ``replace(mechanism, sampler=...)``
    works as on a flat record.  Every flat field is also a read-only attribute (``mechanism.sampler``).

    Attributes
    ----------
    name : str
        Short kebab-case name (the catalogue key).
    claim : Claim
        What the mechanism promises: PureDP, ApproxDP, ProbabilisticDP, or a curve claim
        (ZeroConcentratedDP, RenyiDP, GaussianDP, PrivacyCurve; see :mod:`dpaudit.claims`).
    neighbours : NeighbourRelation
        The unit of privacy the claim is stated for: AddRemove, Replace, QueryDistance, Local, Canary, or
        any object with the methods of :class:`~dpaudit.neighbours.NeighbourRelation`.
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
    structure : SequentialComposition, AdmissibleNoise, WishartNoise, GaussianSteps or None
        What the mechanism is built from, when its output density is not written down
        (:mod:`dpaudit.mechanisms.structure`); the prover chains theorem rules over it.
    domain : tuple or None
        Representative inputs for pair search: record values for dataset relations, the base
        query value for :class:`QueryDistance`, the input alphabet for :class:`Local`.
    pairs : tuple of (a, b)
        Neighbouring pairs the mechanism's author recommends auditing first.
    flaw, true_epsilon : str, float
        For known-broken entries: what is wrong and the epsilon it really achieves (``inf`` when
        unbounded); ``true_epsilon`` may also be set for correct entries whose exact epsilon is known.
        For an entry whose claim is a curve (zCDP, RDP, GDP, privacy curve) or whose true guarantee
        is one, ``true_epsilon`` is the epsilon achieved at delta = :data:`TRUE_EPSILON_DELTA`.
    source : str
        Where the mechanism (or the flaw) comes from.
    noise : FloatNoise or None
        Grey-box exposure of the float noise for the exact-support check: the output is
        ``fl(query(data) + s * noise(u))`` with u a grid-uniform double (see
        :mod:`dpaudit.mechanisms.float_noise`); for vector outputs, coordinate by coordinate.
    randomness : str
        Where the wrapped code draws its randomness from (one of ``RANDOMNESS``).  The sampler
        always takes a Generator; for ``"own"`` it cannot pass it on, so the outputs of a seed are
        not reproducible (:attr:`reproducible`).
    float_sum : bool
        Float outputs are fl(q + n), the query value plus a double noise n in double arithmetic, as
        for numpy noise added to a value.  Then the ulp-lattice lemma (Mironov 2012) and the exact
        noise replay may prove a leak event empty under the neighbour.  False for code that rounds
        the exact real sum once (OpenDP) or otherwise computes its outputs: its leak events are only
        observed on fresh samples, never proved.
    program : callable or None
        Zero-argument function returning the mechanism as a small program
        (:mod:`dpaudit.mechanisms.programs`): the prover decides it by randomness alignment when no
        density is declared.
    stepwise : StepwiseRelease or None
        Set when each output row holds one column per step of an iterative mechanism, with the
        claim after t steps (:class:`StepwiseRelease`); the report then plots privacy over the steps.
    one_run : callable or None
        ``one_run(data, rng) -> output``: one draw of the same law as ``sampler`` (one row of it, as a
        scalar or a tuple), written as plain code that draws only through scalar calls on a
        ``random.Random`` ``rng`` (``randrange``, ``getrandbits``, ``random``), so that exact path
        enumeration (``certify``) can follow it: P[one_run(D, rng) = o] = P[sampler(D, 1, g)[0] = o]
        for every output o.  The catalogue's discrete entries build it from
        :mod:`dpaudit.mechanisms.one_run` (Canonne, Kamath & Steinke 2020, Algorithms 1-3), with the
        parameters their vectorised sampler uses.  Not to be confused with a sampler's own attribute
        ``sampler.one_run`` (the function a sampler calls n times, whose draws the auditor observes).
    """

    name: str
    claim: Claim
    neighbours: NeighbourRelation
    runtime: Runtime
    declaration: Declaration
    hints: AuditHints
    info: EntryInfo

    sampler = _InPart("runtime")
    randomness = _InPart("runtime")
    float_sum = _InPart("runtime")
    noise = _InPart("runtime")
    stepwise = _InPart("runtime")
    one_run = _InPart("runtime")
    density = _InPart("declaration")
    program = _InPart("declaration")
    structure = _InPart("declaration")
    query = _InPart("declaration")
    sensitivity = _InPart("declaration")
    domain = _InPart("hints")
    pairs = _InPart("hints")
    family = _InPart("info")
    description = _InPart("info")
    flaw = _InPart("info")
    true_epsilon = _InPart("info")
    source = _InPart("info")

    def __init__(
        self,
        name: str,
        claim: Claim,
        neighbours: NeighbourRelation,
        sampler: Sampler | None = None,
        *,
        runtime: Runtime | None = None,
        declaration: Declaration | None = None,
        hints: AuditHints | None = None,
        info: EntryInfo | None = None,
        **flat: Any,
    ) -> None:
        """Build from the parts and the flat fields (each a keyword naming a field of one part, which it
        overrides there); a part not given is built from its flat fields and defaults.  Without ``runtime``
        the ``sampler`` is required."""
        if not isinstance(name, str) or not name.strip():
            raise InvalidArgument(f"name={name!r} must be a non-empty string")
        check_claim("claim", claim)
        check_relation("neighbours", neighbours)
        unknown = sorted(set(flat) - set(_PART_OF))
        if unknown:
            raise TypeError(f"Mechanism.__init__() got an unexpected keyword argument {unknown[0]!r}")
        if sampler is not None or runtime is None:
            flat["sampler"] = sampler
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "claim", claim)
        object.__setattr__(self, "neighbours", neighbours)
        given = {"runtime": runtime, "declaration": declaration, "hints": hints, "info": info}
        for attribute, kind in _PARTS.items():
            changes = {key: value for key, value in flat.items() if _PART_OF[key] == attribute}
            part = given[attribute]
            if part is None:
                part = kind(**changes)
            elif not isinstance(part, kind):
                raise InvalidArgument(f"{attribute}={part!r} must be of type {kind.__name__} or None")
            elif changes:
                part = replace(part, **changes)
            object.__setattr__(self, attribute, part)

    def __repr__(self) -> str:
        shown = ", ".join(f"{key}={getattr(self, key)!r}" for key in _REPR_FIELDS)
        return f"{type(self).__qualname__}({shown})"

    @property
    def reproducible(self) -> bool:
        """True when the audit's seed fixes every output (:attr:`Runtime.reproducible`)."""
        return self.runtime.reproducible

    @property
    def thread_safe(self) -> bool:
        """The sampler keeps no state between calls (:attr:`Runtime.thread_safe`)."""
        return self.runtime.thread_safe

    @property
    def flawed(self) -> bool:
        """True for entries of the flawed gallery (a known violation of the claim)."""
        return self.info.flawed

    def sample(self, data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        """Draw n outputs of the mechanism on ``data`` and check them.

        Returns an array of shape ``(n, *output_shape)`` with a numeric (bool, integer or float)
        dtype and no NaN: outputs that are not numbers are encoded (:mod:`dpaudit.mechanisms.outputs`;
        :meth:`draw` also returns how).  Raises :class:`MechanismError` naming the mechanism otherwise.
        """
        return self.draw(data, n, rng).values

    def draw(self, data: Any, n: int, rng: np.random.Generator) -> "Outputs":
        """:meth:`sample`, with the :class:`~dpaudit.mechanisms.outputs.OutputCoding` that reads the codes back."""
        n = check_nonnegative_int("n", n)
        if not isinstance(rng, np.random.Generator):
            raise InvalidArgument(f"rng={rng!r} must be a numpy.random.Generator")
        try:
            raw = self.sampler(data, n, rng)
        except MechanismError:
            raise
        except Exception as exc:  # the code under test may raise anything; report it, keep the cause
            raise MechanismError(
                f"mechanism {self.name!r} raised {type(exc).__name__}: {exc} (data={short_repr(data)}, n={n})"
                + _randomness_hint(exc, self.randomness)
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
        randomness: str | None = None,
        **fields: Any,
    ) -> "Mechanism":
        """Wrap a plain function as a Mechanism.

        ``function(data, rng)`` returns one output; ``function(data, n, rng)`` returns n outputs on
        the first axis.  One-run functions are called n times and their outputs stacked.
        ``neighbours`` defaults to ``QueryDistance(1.0)`` (inputs are query values); ``dpaudit.audit``
        given the plain function instead takes the relation its pair states, or ``neighbours=``
        (:mod:`dpaudit.auditor.relation`).  ``domain=`` has the meaning of :attr:`domain`; an example
        dataset ``audit(data=...)`` gives the same (:func:`dpaudit.auditor.pairs.data_domain`).

        ``randomness`` (one of ``RANDOMNESS``) says what ``rng`` is: ``"generator"`` (a
        ``numpy.random.Generator``), ``"random-state"`` (a ``numpy.random.RandomState``),
        ``"python-random"`` (a ``random.Random``) or ``"own"`` (no ``rng`` parameter: the function
        draws its own randomness, ``function(data)`` or ``function(data, n)``).  Unless given it is
        read from the signature: the annotation of a parameter (``Generator``, ``RandomState``,
        ``Random``), else a parameter named ``random_state`` (``"random-state"``) or ``rng``, even
        with a default (``rng=None``), else ``"own"`` for ``f(data)`` and for ``f(data, n)`` with
        the second parameter named ``n``, ``size``, ``samples`` or annotated ``int``, else
        ``"generator"``.  A RandomState or Random is seeded
        per sampling chunk from the chunk's Generator (``rng.integers(2**63)``), so the audit
        stays reproducible; ``"own"`` randomness is not (``Mechanism.reproducible``).

        Whether the function is vectorised is read from the number of required positional
        parameters (data, n and the randomness argument) unless ``vectorised`` says so.
        """
        if not callable(function):
            raise InvalidArgument(f"function={function!r} must be callable")
        check_run_signature(f"function={function!r}", function)
        if name is not None and not isinstance(name, str):
            raise InvalidArgument(f"name={name!r} must be a str or None (then the function's name)")
        if vectorised is not None and not isinstance(vectorised, bool):
            raise InvalidArgument(f"vectorised={vectorised!r} must be True, False or None (read from the signature)")
        if randomness is not None:
            check_one_of("randomness", randomness, RANDOMNESS)
        required, kind = _call_shape(function)
        randomness = randomness or kind
        if vectorised is None:
            vectorised = required - (0 if randomness == "own" else 1) >= 2
        sampler: Sampler = (
            function if vectorised and randomness == "generator"
            else _Vectorised(function, randomness) if vectorised else _OneRun(function, randomness)
        )
        label = name or getattr(function, "__name__", None) or type(function).__name__
        return cls(
            name=label,
            claim=claim,
            neighbours=neighbours if neighbours is not None else QueryDistance(1.0),
            sampler=sampler,
            randomness=randomness,
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
            "true_epsilon": to_json(self.true_epsilon),
            "source": self.source,
            "randomness": self.randomness,
        }


def _randomness_hint(exc: Exception, randomness: str) -> str:
    """What to add when the function called a method its randomness argument does not have: it expected
    another kind of source than the one its signature suggested (e.g. RandomState's ``random_sample``)."""
    if randomness != "generator" or not isinstance(exc, AttributeError) or "Generator' object" not in str(exc):
        return ""
    return ("; it was given a numpy Generator: if it expects a RandomState or a random.Random, annotate that "
            "parameter or pass randomness='random-state' / 'python-random'")


def check_run_signature(named: str, function: Callable[..., Any]) -> None:
    """``function`` can be called with one to three positional arguments -- f(data) or f(data, n)
    (own randomness), f(data, rng), f(data, n, rng) -- else InvalidArgument starting ``named``."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return  # builtins without a signature: their call will tell
    for count in (1, 2, 3):
        try:
            signature.bind(*range(count))
            return
        except TypeError:
            continue
    raise InvalidArgument(
        f"{named} must be called as f(data, rng) (one run), f(data, n, rng) (n runs), or without the rng when it "
        f"draws its own randomness; its signature is {signature}"
    )


_SIZE_NAMES = ("n", "size", "samples", "num_samples", "n_samples")
_RNG_TYPES = (
    ("generator", np.random.Generator, "Generator"),
    ("random-state", np.random.RandomState, "RandomState"),
    ("python-random", random.Random, "Random"),
)


def _annotated_kind(annotation: Any) -> str | None:
    """The randomness kind an annotation names (a class, or its name in a string annotation)."""
    for arg in typing.get_args(annotation):  # Optional[Generator], Generator | None
        if _annotated_kind(arg) is not None:
            return _annotated_kind(arg)
    for kind, cls, cls_name in _RNG_TYPES:
        if annotation is cls:
            return kind
        if isinstance(annotation, str) and annotation.replace(" ", "").strip("'\"").split(".")[-1].split("|")[0] == cls_name:
            return kind
    return None


_RNG_NAMES = {"rng": "generator", "generator": "generator", "random_state": "random-state"}


def _call_shape(function: Callable[..., Any]) -> tuple[int, str]:
    """(number of positional arguments to pass, the randomness kind the signature implies).

    The randomness parameter is the first positional one annotated ``Generator``, ``RandomState``
    or ``Random``, else the first named ``rng``, ``generator`` or ``random_state`` (a default such
    as ``rng=None`` does not hide it: it is passed).  Without one, ``f(data)`` and ``f(data, n)``
    (second parameter named as a size or annotated ``int``) draw their own randomness.
    """
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return 2, "generator"
    try:
        hints = typing.get_type_hints(function)
    except Exception:  # unresolvable string annotations: read them as written
        hints = {}
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    positional = [p for p in signature.parameters.values() if p.kind in kinds]
    required = [p for p in positional if p.default is p.empty]
    for rule in (lambda p: _annotated_kind(hints.get(p.name, p.annotation)), lambda p: _RNG_NAMES.get(p.name)):
        for index, p in enumerate(positional[1:], start=1):
            kind = rule(p)
            if kind is not None:
                return max(len(required), index + 1), kind
    if len(required) == 1:
        return 1, "own"
    if len(required) == 2:
        second = required[1]
        if second.name in _SIZE_NAMES or hints.get(second.name, second.annotation) in (int, "int"):
            return 2, "own"
    return len(required), "generator"


def _randomness_for(kind: str, rng: np.random.Generator) -> Any:
    """What the wrapped function gets: the Generator, or a RandomState / Random seeded from it."""
    if kind == "random-state":
        return np.random.RandomState(np.random.MT19937(int(rng.integers(2**63))))
    if kind == "python-random":
        return random.Random(int(rng.integers(2**63)))
    return rng


class _OneRun:
    """An n-run sampler that calls a one-run function n times (one RandomState / Random per call of the sampler)."""

    def __init__(self, function: Callable[..., Any], randomness: str) -> None:
        self.one_run = self.function = function
        self.randomness = randomness
        self.__name__ = getattr(function, "__name__", "sampler")

    def __call__(self, data: Any, n: int, rng: np.random.Generator) -> list[Any]:
        if self.randomness == "own":
            return [self.function(data) for _ in range(n)]
        source = _randomness_for(self.randomness, rng)
        return [self.function(data, source) for _ in range(n)]


class _Vectorised:
    """An n-run function that takes a RandomState, a Random or no randomness argument."""

    def __init__(self, function: Callable[..., Any], randomness: str) -> None:
        self.function = function
        self.randomness = randomness
        self.__name__ = getattr(function, "__name__", "sampler")

    def __call__(self, data: Any, n: int, rng: np.random.Generator) -> Any:
        if self.randomness == "own":
            return self.function(data, n)
        return self.function(data, n, _randomness_for(self.randomness, rng))


@dataclass(frozen=True)
class Outputs:
    """n outputs as numbers (samples on the first axis) and how they were encoded."""

    values: np.ndarray
    coding: OutputCoding


def _check_outputs(name: str, raw: Any, n: int, data: Any) -> Outputs:
    out, coding = encode_outputs(name, raw, n)
    if out.ndim == 0:
        raise MechanismError(
            f"mechanism {name!r} must return {n} outputs (samples on the first axis), got {type(raw).__name__} "
            f"{short_repr(raw)}"
        )
    if out.shape[0] != n:
        raise MechanismError(
            f"mechanism {name!r} returned {out.shape[0]} rows for n={n} (data={short_repr(data)}); "
            "the first axis must hold exactly n samples"
        )
    if out.dtype.kind == "f" and not np.isfinite(out).all():
        bad = ~np.isfinite(out)
        if np.any(np.isnan(out)):
            where = int(np.argwhere(np.isnan(out))[0][0])
            raise MechanismError(f"mechanism {name!r} returned NaN (first at sample {where}, data={short_repr(data)})")
        if np.any(bad):
            where = int(np.argwhere(bad)[0][0])
            raise MechanismError(
                f"mechanism {name!r} returned an infinite output (first at sample {where}, data={short_repr(data)})"
            )
    return Outputs(out, coding)
