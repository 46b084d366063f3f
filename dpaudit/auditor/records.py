"""The typed parts of an :class:`~.result.AuditResult`: how it stopped, how it ran, its neighbours, its
scopes, its curve claim's check.

Each is a frozen dataclass read by attribute (``result.neighbours.statement``); ``as_dict()`` gives the
JSON the result has always written, key for key, and ``from_dict`` reads it back.  Reading one like a
dict (``result.neighbours["statement"]``, the form of earlier versions) still works, with a
``DeprecationWarning`` naming the attribute to use.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, TypeVar

__all__ = ["BadSetFinding", "CurveCheck", "Finding", "LeakEventFinding", "Neighbours", "RunInfo", "Scope", "ScopeBounds",
           "SensitivityFinding", "SideChannelFinding", "StageTimes", "Stopping", "finding_from_dict"]

R = TypeVar("R", bound="Record")


class Record:
    """A frozen dataclass with the JSON of its fields, and dict-style reading kept for earlier code."""

    _where: ClassVar[str] = "result"

    def as_dict(self) -> dict[str, Any]:
        """The fields in order, nested records as their dicts."""
        return {f.name: _plain(getattr(self, f.name)) for f in fields(self)}  # type: ignore[arg-type]

    @classmethod
    def from_dict(cls: type[R], data: dict[str, Any]) -> R:
        """Inverse of :meth:`as_dict` (fields absent from ``data`` take their defaults)."""
        names = {f.name for f in fields(cls)}  # type: ignore[arg-type]
        return cls(**{k: v for k, v in data.items() if k in names})

    def _deprecated(self, key: str) -> None:
        warnings.warn(f"{self._where}[{key!r}] is deprecated: read {self._where}.{key}",
                      DeprecationWarning, stacklevel=3)

    def __getitem__(self, key: str) -> Any:
        self._deprecated(key)
        try:
            return _plain(getattr(self, key))
        except AttributeError:
            raise KeyError(key) from None

    def get(self, key: str, default: Any = None) -> Any:
        """Deprecated dict-style reading: ``getattr(record, key, default)``."""
        self._deprecated(key)
        return _plain(getattr(self, key, default))


def _plain(value: Any) -> Any:
    return value.as_dict() if isinstance(value, Record) else value


@dataclass(frozen=True)
class Stopping(Record):
    """The sequential procedure of the verification stage (:mod:`.sequential`) and where it stopped.

    ``looks`` are the cumulative Poisson means of the looks, ``alphas`` / ``verdict_alphas`` what each
    spent at the two levels, ``planned_looks`` how many make the budget (the rest are extension
    looks); ``stopped_at`` (1-based), ``samples_used`` per side and their ``fraction_used`` of the
    budget; ``decided_at`` the look where a violation was first certified (or None) and ``reason``
    why it stopped (violation, futility or budget).
    """

    _where: ClassVar[str] = "result.stopping"

    procedure: str
    looks: list[int]
    alphas: list[float]
    verdict_alphas: list[float]
    planned_looks: int
    stopped_at: int
    samples_used: int
    fraction_used: float
    decided_at: int | None
    reason: str


@dataclass(frozen=True)
class StageTimes(Record):
    """Where an audit's wall-clock time went, in seconds; the five add up to its ``elapsed_s`` but for
    the set-up before the first draw and the result's assembly.

    ``sampling_s`` is the time spent waiting for the chunks of draws (the verification's chunks count
    its events as they draw, so that counting is in it too); the others are each stage's wall time
    besides its draws: ``screening_s`` the pair screening, ``search_s`` the event search on the chosen
    pair, ``verification_s`` the verification's bounds and looks, ``checks_s`` what follows it (the
    probabilistic-DP bad-set test, the empirical curve, the findings of the leak, side-channel and
    sensitivity checks).
    """

    _where: ClassVar[str] = "result.run.times"

    sampling_s: float = 0.0
    screening_s: float = 0.0
    search_s: float = 0.0
    verification_s: float = 0.0
    checks_s: float = 0.0

    def describe(self) -> str:
        """``sampling 0.41 s, screening 0.10 s, search 0.12 s, verification 0.01 s, checks 0.02 s``."""
        return ", ".join(f"{f.name.removesuffix('_s')} {getattr(self, f.name):.2f} s" for f in fields(self))


@dataclass(frozen=True)
class RunInfo(Record):
    """How the audit ran, which does not change its outcome.

    The ``executor`` and its ``workers``; the ``checkpoint`` file and how many chunks were resumed
    from it (``resumed_chunks``); a ``note`` when chunks did not run where the executor would have
    run them; the outputs drawn in all (``draws``: both sides, search and verification), how the
    sampler batches its draws (``batching``, set by the library adapters) and where the time went
    (``times``, a :class:`StageTimes`).  The times differ between two runs of the same audit, so they
    take no part in comparing two RunInfo (``==``) and :func:`.result.without_timings` drops them
    from a result's JSON.
    """

    _where: ClassVar[str] = "result.run"

    executor: str
    workers: int
    checkpoint: str | None = None
    resumed_chunks: int = 0
    note: str | None = None
    draws: int | None = None
    batching: str | None = None
    times: StageTimes | None = field(default=None, compare=False)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunInfo:
        times = data.get("times")
        return super().from_dict({**data, "times": None if times is None else StageTimes.from_dict(times)})


@dataclass(frozen=True)
class Neighbours(Record):
    """The neighbour relation the audit used and where it came from (:mod:`.relation`).

    ``relation`` is the relation's ``as_dict()``, or None when a plain function's pair was audited as
    given, unchecked; ``source`` is ``given``, ``mechanism``, ``inferred``, ``unchecked`` or
    ``default``; ``statement`` says it in words.
    """

    _where: ClassVar[str] = "result.neighbours"

    relation: dict[str, Any] | None
    source: str
    statement: str


@dataclass(frozen=True)
class Scope(Record):
    """One scope's bounds (:mod:`.scopes`): the estimate and the verdict's bound, their levels, the best
    event and its family."""

    _where: ClassVar[str] = "scope"

    epsilon_lower_bound: float
    confidence: float
    verdict_epsilon_lower_bound: float
    verdict_confidence: float
    event: str
    family: str


@dataclass(frozen=True)
class ScopeBounds(Record):
    """The implementation scope (every verified event) and the algorithmic scope (the mechanism's own
    events only, None when none was verified), the scope that decided a violation (``decided_by``:
    ``"algorithmic"``, ``"implementation"`` or None) and the Bonferroni divisor both share."""

    _where: ClassVar[str] = "result.bounds_by_scope"

    implementation: Scope | None
    algorithmic: Scope | None
    decided_by: str | None
    candidates: int

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ScopeBounds:
        scopes = {name: None if data.get(name) is None else Scope.from_dict(data[name])
                  for name in ("implementation", "algorithmic")}
        return cls(**scopes, decided_by=data.get("decided_by"), candidates=data["candidates"])


@dataclass(frozen=True)
class CurveCheck(Record):
    """A curve claim's check (:mod:`.decision`, rule 5): whether the empirical curve refutes it at the
    verdict's level (``refuted``) and at the estimate's (``estimate_refutes``), the ``witness`` (the
    event, the test, and the point of the curve or the Rényi order where it fails; None when nothing
    refutes) and the ``working_point`` the other stages worked at (its ``as_dict()``)."""

    _where: ClassVar[str] = "result.curve_check"

    refuted: bool
    estimate_refutes: bool
    witness: dict[str, Any] | None
    working_point: dict[str, Any]


@dataclass(frozen=True, kw_only=True)
class Finding(Record):
    """What one of the audit's checks found (``AuditResult.findings``): ``check`` names it, ``verdict``
    says whether it refutes the claim, ``reason`` says why in words.  Fields that are None and listed
    in ``_OPTIONAL`` are left out of :meth:`as_dict`, as they always were."""

    _where: ClassVar[str] = "finding"
    _OPTIONAL: ClassVar[tuple[str, ...]] = ()

    check: str
    verdict: str

    @property
    def is_certificate(self) -> bool:
        """Whether the finding refutes the claim outright, without an estimate: a leak event with
        P_b(S) = 0 proved and a fresh output of M(a) in it (:func:`.events.leaks.events.certifies`)."""
        return False

    def as_dict(self) -> dict[str, Any]:
        return {name: value for name, value in super().as_dict().items()
                if not (name in self._OPTIONAL and value is None)}


@dataclass(frozen=True, kw_only=True)
class LeakEventFinding(Finding):
    """A verified event of a leak family (:mod:`.events.leaks.events`) that refutes the claim on its own:
    its counts and bounds at both levels, what decided it (``"bound"``, or ``"certificate"`` when
    P_b(S) = 0 is proved and a fresh output of M(a) lies in S), and the ``witness`` output when the
    family has one."""

    _OPTIONAL: ClassVar[tuple[str, ...]] = ("witness",)

    event: str
    pair: list[Any]
    hits: list[int]
    sample_sizes: list[int]
    epsilon_lower_bound: Any
    confidence: float
    verdict_epsilon_lower_bound: Any
    verdict_confidence: float
    decided_by: str
    support_mismatch: bool
    proven_empty: bool
    witness: dict[str, Any] | None = None
    reason: str

    @property
    def is_certificate(self) -> bool:
        return self.decided_by == "certificate"


@dataclass(frozen=True, kw_only=True)
class SideChannelFinding(Finding):
    """A verified event that reads a side channel (the draws or the wall time of a run,
    :mod:`.events.side_channels`) and whose bound exceeds the claim, with a run of M(a) in it."""

    _OPTIONAL: ClassVar[tuple[str, ...]] = ("example",)

    side_channel: bool = True
    event: str
    pair: list[Any]
    hits: list[int]
    sample_sizes: list[int]
    epsilon_lower_bound: Any
    confidence: float
    support_mismatch: bool
    example: Any = None
    reason: str


@dataclass(frozen=True, kw_only=True)
class BadSetFinding(Finding):
    """The probabilistic-DP bad-set test (:mod:`.probabilistic`): the certified set of outputs, each
    output's loss bound, the set's mass bound, at both levels."""

    event: str
    event_spec: dict[str, Any]
    pair: list[Any]
    hits: list[int]
    atom_hits: list[list[int]]
    sample_sizes: list[int]
    atom_epsilon_lower_bounds: list[Any]
    epsilon_lower_bound: Any
    mass_lower_bound: float
    confidence: float
    verdict_epsilon_lower_bound: Any
    verdict_mass_lower_bound: float
    verdict_confidence: float
    reason: str


@dataclass(frozen=True, kw_only=True)
class SensitivityFinding(Finding):
    """Neighbours whose query values differ by more than the declared sensitivity (:mod:`.sensitivity`)."""

    pair: list[Any]
    difference: Any
    declared_sensitivity: float
    ratio: Any
    reason: str


def finding_from_dict(data: dict[str, Any]) -> Finding:
    """The finding ``data`` (its ``as_dict()``) describes, by its check."""
    if data["check"] == "sensitivity":
        return SensitivityFinding.from_dict(data)
    if data["check"] == "probabilistic-dp":
        return BadSetFinding.from_dict(data)
    if data.get("side_channel"):
        return SideChannelFinding.from_dict(data)
    return LeakEventFinding.from_dict(data)
