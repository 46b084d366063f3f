"""The outcome of an audit: a frozen, JSON round-trippable :class:`AuditResult` with a :class:`Verdict`."""

from __future__ import annotations

import enum
from dataclasses import asdict, dataclass, fields
from typing import Any

from .._codec import from_json, to_json
from ..claims import Claim, claim_from_dict
from .curve import EmpiricalCurve
from .presenter import summary
from .records import CurveCheck, Finding, Neighbours, RunInfo, ScopeBounds, Stopping, finding_from_dict

__all__ = ["TIMINGS", "AuditResult", "Verdict", "VerifiedEvent", "not_reproducible_suffix", "without_timings"]

TIMINGS = ("elapsed_s", "mechanism_s")
"""The wall-clock fields of a result's JSON, beside ``run["times"]``: what differs between two runs of one audit."""


def without_timings(document: dict[str, Any]) -> dict[str, Any]:
    """A result's ``as_dict()`` without its wall-clock times (``TIMINGS`` and ``run["times"]``): what two
    runs of the same audit (same seed, any executor, resumed or not) have in common."""
    kept = {key: value for key, value in document.items() if key not in TIMINGS}
    if isinstance(kept.get("run"), dict):
        kept["run"] = {key: value for key, value in kept["run"].items() if key != "times"}
    return kept


def not_reproducible_suffix(result: Any) -> str:
    """What a reproduce command adds when the result (an AuditResult or its ``as_dict()``) cannot be
    reproduced; empty otherwise."""
    reproducible = result.get("reproducible", True) if isinstance(result, dict) else getattr(result, "reproducible", True)
    if reproducible:
        return ""
    return "  # not reproducible: the mechanism draws its own randomness, which the seed does not fix"


class Verdict(str, enum.Enum):
    """What the verification stage established.

    * ``VIOLATION`` -- the verified lower bound on epsilon (at the claimed delta) at the verdict's
      level ``verdict_confidence`` exceeds the claimed epsilon, or a check proved the claim false
      (``decided_by`` says which): the claim is refuted at that confidence.
    * ``PASS`` -- no violation found, and the budget was large enough to see one near the claim.  The
      estimate (at the looser ``confidence``) may lie above the claim: the reason then says the
      excess is within the interval's width and not significant at the verdict's level.
    * ``UNDERPOWERED`` -- no violation found, but even a perfect witness of a mechanism exactly at
      its claim would have certified less than ``REACH_FRACTION`` of the claimed epsilon with this
      many samples at the verdict's level (see :func:`dpaudit.auditor.bounds.reach`): a pass would say little.
    """

    PASS = "pass"
    VIOLATION = "violation"
    UNDERPOWERED = "underpowered"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class VerifiedEvent:
    """One candidate (pair, direction, event) as measured on the verification samples."""

    pair: tuple[Any, Any]
    event: str
    event_spec: dict[str, Any]
    family: str
    search_bound: float
    hits: tuple[int, int]
    sample_sizes: tuple[int, int]
    epsilon_lower_bound: float
    p_value: float
    holm_p_value: float
    verdict_epsilon_lower_bound: float | None = None  # at the verdict's level; None in older results

    def as_dict(self) -> dict[str, Any]:
        return to_json(asdict(self))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "VerifiedEvent":
        values = {f.name: data[f.name] for f in fields(cls) if f.name in data}
        for name in ("pair", "hits", "sample_sizes", "search_bound", "epsilon_lower_bound", "verdict_epsilon_lower_bound"):
            if name in values:
                values[name] = from_json(values[name])
        return cls(**values)


@dataclass(frozen=True)
class AuditResult:
    """The verified lower bound on the epsilon a mechanism realises, with its verdict.

    Attributes
    ----------
    target : str
        The mechanism's name.
    claim : Claim
        The claim audited: the mechanism's own, or the one ``claim=`` / ``epsilon=`` / ``delta=`` stated
        (any kind; for a curve claim the claim itself, its working point in ``curve_check``).
    verdict : Verdict
        ``violation`` / ``pass`` / ``underpowered``; ``reason`` says why in one sentence.
    epsilon_lower_bound : float
        The estimate: the largest Bonferroni-corrected verification bound at ``confidence`` over the
        verified candidates and the looks of the sequential verification (``hits`` and
        ``sample_sizes`` are the counts at the look it stopped at), floored at 0 (epsilon >= 0
        always); ``inf`` never occurs: with no hits under M(b) the bound is finite and capped by the
        sample size (``support_mismatch`` is then set).
    delta_lower_bound : float or None
        For approximate/probabilistic claims: a lower confidence bound on
        P[M(a) in S] - e^epsilon P[M(b) in S] at the claimed epsilon, on the reported event.
    confidence : float
        Joint confidence of every estimate (``epsilon_lower_bound``, ``delta_lower_bound``, the
        candidates' ``epsilon_lower_bound``).
    samples : int
        Planned verification samples per side (the Poisson mean; ``sample_sizes`` has the drawn sizes,
        ``stopping["samples_used"]`` what was used: up to 4x ``samples`` when the audit extended).
    search_samples : int
        Search-stage samples per side, in total over pair screening and event selection.
    event, event_spec : str, dict
        The reported event, readable and as data.
    pair : (a, b)
        The neighbouring inputs, ordered so that P[M(a) in S] > P[M(b) in S].
    seed : int
        ``SeedSequence`` entropy that reproduces this result.
    method : str
        ``"joint"`` (exact conditional test on the ratio) or ``"union"`` (Clopper-Pearson union).
    epsilon_reach : float
        The bound a perfect witness would give at this budget (see :class:`Verdict`).
    candidates : tuple of VerifiedEvent
        Every verified candidate (the multiplicity correction covers them all).
    stopping : Stopping
        The sequential procedure of the verification stage (:mod:`dpaudit.auditor.sequential`): its
        description, the look sizes and alphas, the look it stopped at (``stopped_at``, 1-based),
        ``samples_used`` per side, the look where a violation was first certified (``decided_at``)
        and why it stopped (``reason``: violation, futility or budget).
    run : RunInfo
        How the audit ran, which does not change its outcome: the executor and its workers, the
        checkpoint file, how many chunks were resumed from it, a note when the mechanism could
        not be shipped to other processes, the outputs drawn in all (``draws``: both sides, search and
        verification), how the sampler batches its draws (``batching``, set by the library
        adapters; :attr:`seconds_per_draw` is the time per output) and where the wall-clock time went
        (``times``: sampling, pair screening, event search, verification, checks; a
        :class:`~.records.StageTimes`, left out of ``==`` and of :func:`without_timings`).
    findings : tuple of Finding
        Findings of the checks (:mod:`dpaudit.auditor.records`: a leak event, a side channel, the
        probabilistic-DP bad-set test, the sensitivity check), each naming the ``check`` that
        produced it and, in ``reason``, why it implies a privacy violation.
    checks : tuple of str
        The leak checks that ran.
    reproducible : bool
        Whether rerunning with ``seed`` gives this result again: False when the mechanism draws its
        own randomness (``Mechanism.randomness == "own"``), which no seed fixes.
    reproducibility : str
        Why, in one sentence.
    neighbours : Neighbours
        The neighbour relation the audit used and where it came from
        (:class:`dpaudit.auditor.relation.RelationChoice`): ``relation`` (its ``as_dict()``, or None
        when a plain function's pair was audited as given, unchecked), ``source`` (``given``,
        ``mechanism``, ``inferred``, ``unchecked`` or ``default``) and a readable ``statement``.
    verdict_confidence : float
        The level the verdict is taken at: max(``confidence``, the ``verdict_confidence`` asked for).
        A mechanism that keeps its claim comes back ``violation`` with probability at most
        1 - ``verdict_confidence`` (0.001 by default).
    verdict_epsilon_lower_bound : float
        The bound the verdict compares with the claim: the same candidates, looks and counts as
        ``epsilon_lower_bound``, at ``verdict_confidence`` (so never above it), floored at 0.
    decided_by : str
        For a violation, what decided it: ``"bound"`` (``verdict_epsilon_lower_bound`` exceeds the
        claim), ``"certificate"`` (a leak event with P_b(S) = 0 proved, see ``findings``),
        ``"probabilistic-dp"`` (the bad-set test) or ``"sensitivity"``; ``""`` otherwise.
    bounds_by_scope : ScopeBounds or None
        When the search included leak families (:mod:`dpaudit.auditor.scopes`): ``implementation``
        (every family) and ``algorithmic`` (the mechanism's own families only), each with its
        estimate, its bound at the verdict's level, the confidences, the event and its family; the
        ``decided_by`` scope of a violation decided by a verified event (``"algorithmic"`` or
        ``"implementation"``, else None); ``candidates``, the Bonferroni divisor both share.
        None when no leak family ran.
    curve : EmpiricalCurve or None
        With ``audit(..., curve=True)``: lower confidence bounds on the whole privacy curve
        delta(epsilon) of the pair, simultaneous over the curve, with the lower bounds on mu
        (Gaussian DP) and rho (zero-concentrated DP) derived from it (:mod:`dpaudit.auditor.curve.empirical`).
    curve_check : CurveCheck or None
        For a curve claim (zCDP, RDP, GDP, a privacy curve; :mod:`dpaudit.auditor.curve.claims`): whether
        the curve's bounds refute it at the verdict's level (``refuted``) and at the estimate's
        (``estimate_refutes``), and the ``witness``: the event, the test, and the point of the curve
        (epsilon, the claimed delta, the lower bound on delta) or the Rényi order where it fails.
        None for point claims.
    """

    target: str
    claim: Claim
    verdict: Verdict
    reason: str
    epsilon_lower_bound: float
    delta_lower_bound: float | None
    confidence: float
    samples: int
    search_samples: int
    sample_sizes: tuple[int, int]
    hits: tuple[int, int]
    event: str
    event_spec: dict[str, Any]
    pair: tuple[Any, Any]
    seed: int
    method: str
    support_mismatch: bool
    epsilon_reach: float
    pairs_screened: int
    candidates: tuple[VerifiedEvent, ...]
    elapsed_s: float
    mechanism_s: float
    vectorised: bool
    notes: tuple[str, ...] = ()
    stopping: Stopping | None = None
    run: RunInfo | None = None
    findings: tuple[Finding, ...] = ()
    checks: tuple[str, ...] = ()
    reproducible: bool = True
    reproducibility: str = ""
    neighbours: Neighbours | None = None
    verdict_confidence: float | None = None  # None only in results recorded before the two levels
    verdict_epsilon_lower_bound: float | None = None
    decided_by: str = ""
    bounds_by_scope: ScopeBounds | None = None
    curve: EmpiricalCurve | None = None
    curve_check: CurveCheck | None = None

    @property
    def violation(self) -> bool:
        return self.verdict is Verdict.VIOLATION

    @property
    def seconds_per_draw(self) -> float | None:
        """Time inside the mechanism per output drawn (``mechanism_s / run["draws"]``; summed over workers)."""
        draws = self.run.draws if self.run is not None else None
        return self.mechanism_s / draws if draws else None

    def reproduce(self) -> str:
        """What reruns this audit (saying so when the mechanism's own randomness defeats the seed): for a
        catalogue mechanism the command line; for a mechanism of the user's own (a function, a Mechanism
        object), which the result names but cannot load, the same call with the seed and sizes it ran at."""
        from ..mechanisms.registry import names

        verdict = (f" --verdict-confidence {self.verdict_confidence:g}"
                   if self.verdict_confidence is not None and self.verdict_confidence != self.confidence else "")
        options = f"--seed {self.seed} --samples {self.samples} --confidence {self.confidence:g}{verdict}"
        if self.target in names():
            return f"dpaudit audit {self.target} {options}" + not_reproducible_suffix(self)
        keywords = f"seed={self.seed}, samples={self.samples}, confidence={self.confidence:g}" + (
            f", verdict_confidence={self.verdict_confidence:g}" if verdict else "")
        return (f"dpaudit.audit({self.target}, ...) with the same arguments and {keywords} (on the command line: "
                f"dpaudit audit FILE.py:{self.target} with the same options and {options})"
                + not_reproducible_suffix(self))

    def point_claim(self) -> Claim:
        """The (epsilon, delta) claim the verification stage worked at: ``claim`` itself, or for a curve
        claim the point recorded in ``curve_check["working_point"]`` (:mod:`dpaudit.auditor.curve.claims`)."""
        return claim_from_dict(self.curve_check.working_point) if self.curve_check is not None else self.claim

    def bounds_line(self) -> str:
        """The estimate and the verdict's bound in one line, e.g. ``epsilon >= 1.0025 with confidence 0.95
        (estimate); at the verdict's confidence 0.999 epsilon >= 0.9910 <= claimed 1``."""
        text = f"epsilon >= {self.epsilon_lower_bound:.4f} with confidence {self.confidence:g}"
        if self.verdict_epsilon_lower_bound is None or self.verdict_confidence == self.confidence:
            return text + " (estimate and verdict)"
        claimed = self.point_claim().epsilon
        relation = ">" if self.verdict_epsilon_lower_bound > claimed else "<="
        return (f"{text} (estimate); at the verdict's confidence {self.verdict_confidence:g} epsilon >= "
                f"{self.verdict_epsilon_lower_bound:.4f} {relation} claimed {claimed:g}")

    def __str__(self) -> str:
        """The CLI's report in short (:func:`.presenter.summary`); ``repr`` keeps every field."""
        return summary(self)

    def summary(self) -> str:
        return (
            f"{self.verdict.value.upper()}: {self.target} claims {self.claim}; {self.bounds_line()} "
            f"({self.method} bound, {self.samples} samples per side)"
        )

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready dict (``json.dumps`` works on it; non-finite floats are the strings "inf"...)."""
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["claim"] = self.claim.as_dict()
        data["verdict"] = self.verdict.value
        data["candidates"] = [c.as_dict() for c in self.candidates]
        data["findings"] = [f.as_dict() for f in self.findings]
        data["curve"] = self.curve.as_dict() if self.curve is not None else None
        for name in _RECORDS:  # an absent record is written as {}, as results always were
            data[name] = data[name].as_dict() if data[name] is not None else {}
        return to_json(data)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "AuditResult":
        """Inverse of :meth:`as_dict`."""
        values = {f.name: data[f.name] for f in fields(cls) if f.name in data}
        values["claim"] = claim_from_dict(data["claim"])
        values["verdict"] = Verdict(data["verdict"])
        values["candidates"] = tuple(VerifiedEvent.from_dict(c) for c in data["candidates"])
        for name in ("pair", "sample_sizes", "hits", "notes", "epsilon_lower_bound", "epsilon_reach",
                     "verdict_epsilon_lower_bound"):
            if name in values:
                values[name] = from_json(values[name])
        values["findings"] = tuple(finding_from_dict(f) for f in data.get("findings", ()))
        values["checks"] = tuple(data.get("checks", ()))
        if data.get("curve") is not None:
            values["curve"] = EmpiricalCurve.from_dict(data["curve"])
        for name, record in _RECORDS.items():
            values[name] = record.from_dict(data[name]) if data.get(name) else None
        return cls(**values)


_RECORDS = {"stopping": Stopping, "run": RunInfo, "neighbours": Neighbours, "bounds_by_scope": ScopeBounds,
            "curve_check": CurveCheck}
"""The typed parts of a result (:mod:`.records`), by field."""
