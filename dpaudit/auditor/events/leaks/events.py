"""The implementation-leak events of the default audit, and the findings they yield.

Each leak check of :mod:`.lattice`, :mod:`.float_support` and :mod:`.correlation` ends in an event S
of outputs; :mod:`.families` searches those events on the search samples, where they join the
search stage like every other family, so their bound comes from the same fresh verification
samples, with the same confidence and multiplicity correction (no second test of the same data, no
extra alpha).  The events:

* :class:`LatticeEvent` -- a :mod:`.lattice` event (off-grid outputs, significand low bits,
  exponents, outputs that fl(q_b + n) reaches for no double n) on the output or, for vector outputs,
  on one coordinate.  When q_b is known and the event is ``NotReachableFrom(q_b)`` or
  ``NotMultipleOf(p)`` with p at most the ulp-lattice grid of q_b, P_b(S) = 0 is *proved* (lemma of
  :mod:`.lattice`; Mironov 2012), so a support mismatch there is a certificate of infinite loss and
  the reported bound is only capped by the sample size.
* :class:`OutsideSupport` -- outputs (or one coordinate of them) that an exact replay of the
  exposed noise reproduces from no uniform index under q (:func:`.float_support.support_match`); for
  a black box, of a known sampler's noise identified on the search outputs
  (:func:`.float_support.identify_noise`; then nothing is proved).
* :class:`CoordinateDifference` -- {lo <= y_i - y_j <= hi}, the difference range of two coordinates
  seen under one input (:mod:`.correlation`): correlated noise cancels in the difference, which
  then reveals the difference of the true answers.

``"sensitivity"`` (mechanisms declaring ``query`` and ``sensitivity`` on datasets) is no event: it
evaluates the statistic on adversarial neighbours (:func:`.sensitivity.falsify_sensitivity`) and a
counterexample is deterministic.  It takes seconds per mechanism (hypothesis search over large
datasets), so it runs only when asked for.

``"draw-count"`` and ``"wall-time"`` are side channels of one-run functions, observed as extra output
coordinates (:mod:`dpaudit.auditor.run.observed`); the draw count is on by default, the wall time only when asked for.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from ...._codec import to_json
from ....errors import InvalidArgument
from ....neighbours import AddRemove, Replace
from ...records import LeakEventFinding, SensitivityFinding
from ...sensitivity import falsify_sensitivity
from . import lattice
from .float_support import KNOWN_NOISES, support_match
from .lattice import NotMultipleOf, NotReachableFrom, lemma_grid_power

__all__ = [
    "ALL_CHECKS",
    "CHECK_SWITCHES",
    "DEFAULT_CHECKS",
    "CoordinateDifference",
    "LatticeEvent",
    "OutsideSupport",
    "certifies",
    "check_names",
    "leak_event_from_dict",
    "leak_findings",
    "sensitivity_finding",
]

LEAK_FAMILIES = ("lattice", "float-support", "correlated-noise")
DEFAULT_CHECKS = (*LEAK_FAMILIES, "draw-count")
ALL_CHECKS = (*DEFAULT_CHECKS, "sensitivity", "wall-time")
CHECK_SWITCHES = {
    "float-checks": ("lattice", "float-support"),
    "correlation-check": ("correlated-noise",),
    "sensitivity-check": ("sensitivity",),
    "draw-count": ("draw-count",),
    "wall-time": ("wall-time",),
}
"""The switch that decides each check, as a command line names it: ``no-<switch>`` leaves out default
checks, ``<switch>`` adds the others (``dpaudit audit`` builds its table of flags from this, in this order,
which is the order of the checks it asks for)."""


def check_names(checks: Any) -> tuple[str, ...]:
    """Normalise ``checks``: ``"default"``, ``"all"``, None / () (none), or names from ``ALL_CHECKS``."""
    if checks is None:
        return ()
    if isinstance(checks, str):
        if checks == "default":
            return DEFAULT_CHECKS
        if checks == "all":
            return ALL_CHECKS
        checks = (checks,)
    try:
        names = tuple(dict.fromkeys(checks))
    except TypeError:  # not iterable, or holding unhashable values
        raise InvalidArgument(f"checks={checks!r} must be 'default', 'all', None or names among {', '.join(ALL_CHECKS)}") from None
    for name in names:
        if name not in ALL_CHECKS:
            raise InvalidArgument(f"checks={checks!r} must name checks among {', '.join(ALL_CHECKS)}")
    return names


@dataclass(frozen=True)
class LatticeEvent:
    """A :mod:`.lattice` event on scalar outputs (the first and only coordinate of each row).

    ``witness`` is one search output in the event, drawn from the side where it has mass: together
    with a proof that the other side never outputs it, it certifies an infinite privacy loss.
    """

    inner: Any
    witness: float | None = field(default=None, compare=False)
    coordinate: int | None = None  # None: scalar outputs; else the coordinate of vector outputs
    queries: tuple[float, float] | None = field(default=None, compare=False)
    key: str | None = field(default=None, compare=False)  # the dict key of the coordinate, for reading

    def contains(self, rows: np.ndarray) -> np.ndarray:
        return self.inner.contains(rows[:, self.coordinate or 0])

    def describe(self) -> str:
        text = self.inner.describe()
        return text if self.coordinate is None else f"output[{_where(self)}]: {text}"

    def as_dict(self) -> dict[str, Any]:
        where = {} if self.coordinate is None else {"coordinate": self.coordinate}
        return {"type": "lattice", "kind": type(self.inner).__name__, **asdict(self.inner), **where, **_evidence_spec(self)}


@dataclass(frozen=True)
class OutsideSupport:
    """Outputs no (sign, uniform index) of the float noise reproduces under query value ``query``.

    The noise is the mechanism's own, or -- ``model`` = (name, scale) -- the model of
    :data:`.float_support.KNOWN_NOISES` identified on the search outputs of a black box.
    """

    query: float
    noise: Any = field(compare=False, repr=False)
    witness: float | None = field(default=None, compare=False)
    coordinate: int | None = None  # None: scalar outputs; else the coordinate of vector outputs
    queries: tuple[float, float] | None = field(default=None, compare=False)
    key: str | None = field(default=None, compare=False)  # the dict key of the coordinate, for reading
    model: tuple[str, float] | None = None

    def contains(self, rows: np.ndarray) -> np.ndarray:
        if self.noise is None:
            raise InvalidArgument("the float-support event needs the mechanism's noise: event_from_dict(spec, noise=...)")
        return ~support_match(self.noise, rows[:, self.coordinate or 0].astype(np.float64), self.query).consistent

    def describe(self) -> str:
        noise = "the noise" if self.model is None else f"the identified noise ({self.model[0]}, scale {self.model[1]!r})"
        text = f"output is reproduced by no sign and uniform index of {noise} under q = {self.query!r}"
        return text if self.coordinate is None else f"output[{_where(self)}]: {text}"

    def as_dict(self) -> dict[str, Any]:
        where = {} if self.coordinate is None else {"coordinate": self.coordinate}
        model = {} if self.model is None else {"model": [self.model[0], float(self.model[1]).hex()]}
        return {"type": "float-support", "query": self.query, **where, **model, **_evidence_spec(self)}


def _where(event: Any) -> str:
    return event.key if event.key is not None else str(event.coordinate)


def _evidence_spec(event: Any) -> dict[str, Any]:
    """The witness as an exact hexadecimal double (``float.hex``) and the pair's query values at the
    event's coordinate (a, b in the searched pair's order), when the event carries them; the
    coordinate's dict key when it has one."""
    spec: dict[str, Any] = {} if event.witness is None else {"witness": float(event.witness).hex()}
    if event.queries is not None:
        spec["queries"] = [float(q).hex() for q in event.queries]
    if event.key is not None:
        spec["key"] = event.key
    return spec


@dataclass(frozen=True)
class CoordinateDifference:
    """``lo <= y_i - y_j <= hi``."""

    i: int
    j: int
    lo: float
    hi: float
    keys: tuple[str, str] | None = field(default=None, compare=False)  # dict keys of i and j, for reading

    def contains(self, rows: np.ndarray) -> np.ndarray:
        d = rows[:, self.i] - rows[:, self.j]
        return (d >= self.lo) & (d <= self.hi)

    def describe(self) -> str:
        i, j = self.keys or (self.i, self.j)
        return f"{self.lo:.6g} <= output[{i}] - output[{j}] <= {self.hi:.6g}"

    def as_dict(self) -> dict[str, Any]:
        keys = {} if self.keys is None else {"keys": list(self.keys)}
        return {"type": "difference", "i": self.i, "j": self.j, "lo": self.lo, "hi": self.hi, **keys}


def leak_event_from_dict(spec: dict[str, Any], noise: Any = None) -> Any:
    """Inverse of ``as_dict()`` for the events above (``noise``: the mechanism's, for float-support)."""
    kind = spec.get("type")
    witness = float.fromhex(spec["witness"]) if "witness" in spec else None
    coordinate = int(spec["coordinate"]) if "coordinate" in spec else None
    queries = tuple(float.fromhex(q) for q in spec["queries"]) if "queries" in spec else None
    if kind == "lattice":
        fields = {k: v for k, v in spec.items() if k not in ("type", "kind", "witness", "coordinate", "queries", "key")}
        return LatticeEvent(getattr(lattice, spec["kind"])(**fields), witness, coordinate, queries, spec.get("key"))
    if kind == "float-support":
        if "model" in spec:  # a noise model identified on a black box's search outputs
            name, scale = spec["model"][0], float.fromhex(spec["model"][1])
            return OutsideSupport(float(spec["query"]), KNOWN_NOISES[name](scale), witness, coordinate, queries,
                                  spec.get("key"), (name, scale))
        return OutsideSupport(float(spec["query"]), noise, witness, coordinate, queries, spec.get("key"))
    if kind == "difference":
        keys = tuple(spec["keys"]) if "keys" in spec else None
        return CoordinateDifference(int(spec["i"]), int(spec["j"]), float(spec["lo"]), float(spec["hi"]), keys)
    raise ValueError(f"event type={kind!r} is not a leak event")


def _query_b(measured: Any) -> float | None:
    """The query value of the verified pair's second input (the side without mass) at the event's
    coordinate, as the search recorded it; None when it was not known there (then nothing is proved)."""
    queries = getattr(measured.scored.event, "queries", None)
    if queries is None:
        return None
    return float(queries[1] if measured.scored.forward else queries[0])


def _why(family: str, event: Any, q_b: float | None) -> tuple[str, bool]:
    """Why an event of this family witnesses a privacy violation, and whether P_b(S) = 0 is proved."""
    if family == "lattice":
        inner = event.inner
        if isinstance(inner, NotReachableFrom) and q_b is not None and inner.query == q_b:
            return (f"no double n gives fl({q_b!r} + n) in S, so M(b) = fl(q_b + noise) never outputs it, while M(a) "
                    "does: the output itself tells the inputs apart, an infinite privacy loss (Mironov 2012)"), True
        grid = lemma_grid_power(q_b) if q_b is not None else None
        if isinstance(inner, NotMultipleOf) and grid is not None and inner.power <= grid:
            return (f"by the ulp-lattice lemma every fl(q_b + n) with q_b = {q_b!r} is a multiple of 2^{grid}, so M(b) "
                    "never outputs an element of S, while M(a) does: an infinite privacy loss (Mironov 2012)"), True
        if isinstance(inner, NotReachableFrom) and q_b is None:
            return (f"the query value is unknown; {inner.query!r}, estimated from the search outputs as a centre of "
                    f"the outputs, reaches no element of S by fl({inner.query!r} + n) for any double n, and the fresh "
                    "outputs of M(b) avoided S while those of M(a) did not: the binary representation of the output "
                    "depends on the input (float lattice; Mironov 2012), which DP forbids (observed, not proved: "
                    "the centre is an estimate)"), False
        return "the binary representation of the output depends on the input (float lattice), which DP forbids", False
    if family == "float-support":
        proved = q_b is not None and event.query == q_b
        if event.model is not None:
            return (f"the mechanism hides its noise; {event.model[0]} noise of scale {event.model[1]!r}, identified on "
                    f"the search outputs, reproduces every one of them, those of M(b) from the centre {event.query!r}, "
                    "but no element of S from it, while M(a) outputs elements of S: the output's doubles reveal the "
                    "input (Mironov 2012; observed, not proved: the noise model and the centre are estimates)"), False
        if q_b is None:
            return (f"the query value is unknown; an exact replay of the float noise reproduces every search output "
                    f"of M(b) from the centre {event.query!r} estimated on them, and none of S from it, while M(a) "
                    "outputs elements of S: the output's doubles reveal the input (Mironov 2012; observed, not "
                    "proved: the centre is an estimate)"), False
        return ("an exact replay of the float noise reproduces these outputs from q_a but from no sign and uniform "
                "index under q_b: P_b(S) = 0, an infinite privacy loss (Mironov 2012)"), proved
    return ("the difference of two coordinates carries (almost) no noise, so it reveals the difference of the true "
            "answers, which the neighbouring input changes"), False


def certifies(measured: Any, claim: Any) -> bool:
    """Whether a verified leak event is a *certificate* of infinite loss for a pure-DP claim.

    True when P_b(S) = 0 is proved (:func:`_why`) and some fresh output of M(a) lies in S: then
    P_a(S) > 0 = e^epsilon P_b(S) for every epsilon, with no statistics involved.  Approximate claims
    (delta > 0) also need P_a(S) > delta, which only a bound can show; they are left to the bounds.
    """
    if float(claim.delta) > 0 or measured.scored.family not in LEAK_FAMILIES:
        return False
    _, proved = _why(measured.scored.family, measured.scored.event, _query_b(measured))
    return proved and measured.hits[0] > 0 and measured.hits[1] == 0


def leak_findings(measured: list[Any], claim: Any, confidence: float,
                  verdict_confidence: float | None = None) -> list[LeakEventFinding]:
    """One finding per verified leak-family event that refutes the claim on its own.

    An event refutes when its bound at the verdict's level (``verdict_confidence``, default
    ``confidence``) exceeds the claimed epsilon, or when it is a certificate (:func:`certifies`).  Its
    estimate at ``confidence`` is reported beside; an event above the claim at the estimate's level
    only is no finding (the audit's reason says "not significant").
    """
    verdict_confidence = confidence if verdict_confidence is None else verdict_confidence
    findings = []
    for m in measured:
        family = m.scored.family
        if family not in LEAK_FAMILIES:
            continue
        certificate = certifies(m, claim)
        if not (m.verdict_bound > claim.epsilon or certificate):
            continue
        why, proved = _why(family, m.scored.event, _query_b(m))
        mismatch = m.hits[1] == 0 and m.hits[0] > 0
        witness = getattr(m.scored.event, "witness", None)
        certificate_text = "" if witness is None else (
            f"; certificate: M(a) output {witness!r} (exactly {witness.hex()}) in the search stage, and it lies in S")
        if m.verdict_bound > claim.epsilon:
            decision = (f"verified epsilon >= {m.verdict_bound:.3f} > claimed {claim.epsilon:g} at the verdict's "
                        f"confidence {verdict_confidence:g} (estimate {m.bound:.3f} at {confidence:g})"
                        f"{', capped by the sample size' if mismatch else ''}")
        else:
            decision = (f"{m.hits[0]} fresh output(s) of M(a) in S decide it without a bound (the verified epsilon "
                        f">= {m.bound:.3f} at {confidence:g} is only the sample size's cap)")
        findings.append(LeakEventFinding.from_dict(to_json({
            "check": family,
            "verdict": "violation",
            "event": m.scored.event.describe(),
            "pair": list(m.pair),
            "hits": list(m.hits),
            "sample_sizes": list(m.sizes),
            "epsilon_lower_bound": m.bound,
            "confidence": confidence,
            "verdict_epsilon_lower_bound": m.verdict_bound,
            "verdict_confidence": verdict_confidence,
            "decided_by": "bound" if m.verdict_bound > claim.epsilon else "certificate",
            "support_mismatch": mismatch,
            "proven_empty": proved and mismatch,
            **({} if witness is None else {"witness": {"output": witness, "output_hex": witness.hex(), "under": m.pair[0]}}),
            "reason": f"{'support mismatch: ' if mismatch else ''}{why}{certificate_text}; {decision}",
        })))
    return findings


def sensitivity_finding(mechanism: Any) -> tuple[SensitivityFinding | None, str | None]:
    """The sensitivity check's finding (or None) and a note when it does not apply."""
    if mechanism.query is None or mechanism.sensitivity is None or not isinstance(mechanism.neighbours, (AddRemove, Replace)):
        return None, "sensitivity check skipped: it needs a dataset mechanism declaring query and sensitivity"
    result = falsify_sensitivity(mechanism)
    if not result.flagged:
        return None, None
    return SensitivityFinding.from_dict(to_json({
        "check": "sensitivity",
        "verdict": "violation",
        "pair": list(result.pair),
        "difference": result.difference,
        "declared_sensitivity": result.declared_sensitivity,
        "ratio": result.ratio,
        "reason": (f"neighbours D, D' with |f(D) - f(D')| = {result.difference:.6g} = {result.ratio:.6g} x the declared "
                   f"sensitivity {result.declared_sensitivity:g}: noise calibrated to the declared sensitivity protects "
                   f"this pair only at {result.ratio:.6g} times the claimed epsilon (Dwork & Roth 2014, Thm. 3.6 read "
                   f"backwards); {result.reason}"),
    })), None
