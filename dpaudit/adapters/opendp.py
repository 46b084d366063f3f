"""An OpenDP ``Measurement`` audited as it is: ``dpaudit.audit(measurement, d_in=1)``.

**Claim.**  Read from the measurement's privacy map at ``d_in`` (the input distance of the pair):

* ``MaxDivergence`` -- pure DP: ``PureDP(map(d_in))``;
* ``Approximate<MaxDivergence>`` -- ``ApproxDP(*map(d_in))``;
* ``ZeroConcentratedDivergence`` -- ``ZeroConcentratedDP(map(d_in))``: the audit decides rho-zCDP on
  the whole empirical privacy curve (:mod:`dpaudit.auditor.curve_claims`).  With ``delta=`` it is
  audited instead at the one (epsilon, delta) it implies there, through OpenDP's own
  ``make_zCDP_to_approxDP`` (the conversion of Canonne, Kamath & Steinke 2020, Prop. 12: delta =
  inf_{alpha > 1} exp((alpha - 1)(alpha rho - epsilon)) / (alpha - 1) (1 - 1/alpha)^alpha, never
  looser than Bun & Steinke 2016, Prop. 1.3: epsilon = rho + 2 sqrt(rho ln(1/delta))));
* ``SmoothedMaxDivergence`` -- its privacy profile at ``delta=`` if given, else ``ZCDP_DELTA``.

**Neighbours.**  From the input metric at ``d_in``: ``AbsoluteDistance``, ``L1Distance``,
``L2Distance``, ``LInfDistance`` -> ``QueryDistance(d_in, norm)``; ``SymmetricDistance`` /
``InsertDeleteDistance`` at d_in = 1 -> ``AddRemove()``; ``ChangeOneDistance`` /
``HammingDistance`` at d_in = 1 -> ``Replace()``; ``DiscreteDistance`` -> ``Local()``.  Default pair
for a scalar input: (0, d_in) (moved inside the domain's bounds when 0 is not); a bounded dataset
domain gives the pair search its record bounds; otherwise give ``pair=``.

**Batching.**  OpenDP costs tens of microseconds per call from Python (75-105 us measured for the
integer Laplace on a shared 2-core machine), so n draws of M(x) are made by calls of
``make_composition([measurement] * k)`` -- OpenDP's own sequential composition applies every copy to
the same input, each drawing fresh noise -- with k the powers of two that sum to n: 40-60 us per
draw there, most of it OpenDP's conversion of the outputs to Python (the sampling takes 7 us).  Measures that do not
compose fall back to one call per draw.  The audit result's ``run["batching"]`` says which, and
``AuditResult.seconds_per_draw`` gives the time per draw.

**Randomness.**  OpenDP samples from the operating system's CSPRNG and cannot be seeded: the audit's
seed fixes dpaudit's own choices (search/verification split, Poisson sample sizes) but not OpenDP's
draws, so the mechanism says ``randomness="own"`` and the audit result ``reproducible=False``.
Measurements do not pickle: audits run in process, or in a process pool when the measurement is
named by a ``file.py:attr`` target (each worker imports it anew).
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from ..claims import ApproxDP, Claim, PureDP, ZeroConcentratedDP
from ..errors import InvalidArgument, InvalidDataset
from ..mechanisms.base import Mechanism
from ..neighbours import AddRemove, Local, NeighbourRelation, QueryDistance, Replace

__all__ = ["ZCDP_DELTA", "OpenDPSampler", "claim_at", "from_measurement", "relation_at"]

ZCDP_DELTA = 1e-5
"""The delta at which a privacy profile (SmoothedMaxDivergence) is audited when the caller gives none."""

_FLOATS = {"f32", "f64"}
_INTS = {"i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize"}
_NORMS = {"AbsoluteDistance": "l1", "L1Distance": "l1", "L2Distance": "l2", "LInfDistance": "linf"}
_ADD_REMOVE = {"SymmetricDistance", "InsertDeleteDistance"}
_REPLACE = {"ChangeOneDistance", "HammingDistance"}


def _prelude():
    import opendp.prelude as dp

    # Combinators (composition, the zCDP conversion) sit behind the "contrib" flag; a caller holding
    # a measurement built by opendp.measurements has switched it on already.
    dp.enable_features("contrib")
    return dp


def _type_name(runtime_type: Any) -> str:
    """``"AbsoluteDistance"`` for ``AbsoluteDistance<f64>``: the origin of an OpenDP runtime type."""
    return getattr(runtime_type, "origin", None) or str(runtime_type).partition("<")[0]


def _to_int(value: Any) -> int:
    if isinstance(value, (float, np.floating)):
        if not float(value).is_integer():
            raise InvalidDataset(f"{value!r} must be an integer: the measurement's input is integer-valued")
        return int(value)
    try:
        return operator.index(value)
    except TypeError:
        raise InvalidDataset(f"{value!r} must be an integer: the measurement's input is integer-valued") from None


def _caster(carrier: Any):
    """A function turning dpaudit's inputs (numpy scalars, tuples) into the measurement's carrier type."""
    name = _type_name(carrier)
    if name in _FLOATS:
        return float
    if name in _INTS:
        return _to_int
    if name == "bool":
        return bool
    if name == "String":
        return str
    if name == "Vec":
        element = _caster(getattr(carrier, "args", ["?"])[0])
        return lambda data: [element(v) for v in np.asarray(data).tolist()] if np.ndim(data) else [element(data)]
    return lambda data: data


def _distance(measurement: Any, d_in: Any) -> Any:
    """``d_in`` in the measurement's input distance type (integers for counts, floats for f64)."""
    name = _type_name(measurement.input_distance_type)
    try:
        if name in _INTS:
            value = _to_int(d_in)
            if value < 0:
                raise InvalidDataset("negative")
            return value
        value = float(d_in)
    except (TypeError, ValueError, InvalidDataset):
        raise InvalidArgument(
            f"d_in={d_in!r} must be a non-negative {'integer' if name in _INTS else 'number'}: the input distance "
            f"of the measurement's metric {measurement.input_metric} ({name})"
        ) from None
    if not math.isfinite(value) or value < 0:
        raise InvalidArgument(f"d_in={d_in!r} must be a non-negative finite number")
    return value


def relation_at(measurement: Any, d_in: Any) -> NeighbourRelation:
    """The neighbour relation of inputs at distance ``d_in`` under the measurement's input metric."""
    metric = _type_name(measurement.input_metric.type)
    if metric in _NORMS:
        if float(d_in) <= 0:
            raise InvalidArgument(f"d_in={d_in!r} must be positive: inputs at distance 0 are identical")
        return QueryDistance(float(d_in), _NORMS[metric])
    if metric in _ADD_REMOVE | _REPLACE:
        if d_in != 1:
            raise InvalidArgument(
                f"d_in={d_in!r}: dpaudit audits {metric} at d_in=1 (one record added or removed, or changed); "
                "audit d_in=1, or wrap the measurement as a plain function with pair=(a, b)"
            )
        return AddRemove() if metric in _ADD_REMOVE else Replace()
    if metric == "DiscreteDistance":
        return Local()
    raise InvalidArgument(
        f"the measurement's input metric {measurement.input_metric} is not one dpaudit maps to a neighbour relation "
        "(absolute, l1, l2, linf, symmetric, insert-delete, change-one, hamming, discrete)"
    )


def claim_at(measurement: Any, d_in: Any, delta: float | None = None) -> tuple[Claim, str]:
    """The claim the privacy map makes at ``d_in``, and one line saying how it was read.

    A zCDP measurement's claim is ``ZeroConcentratedDP(rho)``, or with ``delta`` the (epsilon, delta)
    OpenDP's ``make_zCDP_to_approxDP`` gives there (Canonne, Kamath & Steinke 2020, Prop. 12).
    """
    dp = _prelude()
    measure = _type_name(measurement.output_measure.type)
    inner = str(measurement.output_measure.type)
    if measure == "MaxDivergence":
        epsilon = float(measurement.map(d_in))
        return PureDP(epsilon), f"pure DP: map(d_in={d_in!r}) = epsilon {epsilon:.6g}"
    if inner == "Approximate<MaxDivergence>":
        epsilon, map_delta = (float(v) for v in measurement.map(d_in))
        claim = ApproxDP(epsilon, map_delta) if map_delta else PureDP(epsilon)
        return claim, f"approximate DP: map(d_in={d_in!r}) = (epsilon {epsilon:.6g}, delta {map_delta:g})"
    if _type_name(measurement.output_measure.type) == "ZeroConcentratedDivergence" and delta is None:
        rho = float(measurement.map(d_in))
        return ZeroConcentratedDP(rho), f"zCDP: map(d_in={d_in!r}) = rho {rho:.6g}, audited on its whole privacy curve"
    at = ZCDP_DELTA if delta is None else float(delta)
    if not 0 < at < 1:
        raise InvalidArgument(f"delta={delta!r} must lie in (0, 1) to convert the measurement's {measure} to (epsilon, delta)")
    source = "delta=" if delta is not None else f"the default ZCDP_DELTA = {ZCDP_DELTA:g}"
    if measure == "ZeroConcentratedDivergence":
        rho = float(measurement.map(d_in))
        epsilon, _ = dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(measurement), at).map(d_in)
        return ApproxDP(float(epsilon), at), (
            f"zCDP: map(d_in={d_in!r}) = rho {rho:.6g}, audited at (epsilon {float(epsilon):.6g}, delta {at:g}) by "
            f"OpenDP's make_zCDP_to_approxDP (Canonne, Kamath & Steinke 2020, Prop. 12); delta from {source}"
        )
    if measure == "SmoothedMaxDivergence":
        epsilon = float(measurement.map(d_in).epsilon(at))
        return ApproxDP(epsilon, at), (
            f"privacy profile at d_in={d_in!r}: epsilon({at:g}) = {epsilon:.6g}; delta from {source}"
        )
    raise InvalidArgument(
        f"the measurement's output measure {measurement.output_measure} is not one dpaudit audits "
        "(MaxDivergence, Approximate<MaxDivergence>, ZeroConcentratedDivergence, SmoothedMaxDivergence)"
    )


class OpenDPSampler:
    """n draws of an OpenDP measurement on one input, through ``make_composition([m] * k)``.

    n is split into powers of two, k = 2^j for each set bit of n, so at most log2(n) + 1 calls are
    made and the compositions kept are bounded (one per power, built on first use) however many
    distinct chunk sizes an audit asks for (its verification batches are Poisson-sized).
    """

    # Not marked thread_safe: most of a batched call is OpenDP's conversion of the outputs to Python,
    # under the GIL, so threads measured no faster than one thread (and doubled the time per draw).

    def __init__(self, measurement: Any) -> None:
        self.measurement = measurement
        self.cast = _caster(measurement.input_carrier_type)
        self._compositions: dict[int, Any] = {}
        try:
            self._compose(2)
            self.batching = (
                "n draws in at most log2(n) + 1 OpenDP calls (make_composition of 2^j copies of the measurement)"
            )
        except Exception as exc:  # a measure without composition: one call per draw
            self._compositions = {}
            self.batching = f"one OpenDP call per draw (make_composition refused: {type(exc).__name__})"

    @property
    def batched(self) -> bool:
        return bool(self._compositions)

    def _compose(self, n: int) -> Any:
        composition = self._compositions.get(n)
        if composition is None:
            composition = _prelude().c.make_composition([self.measurement] * n)
            self._compositions[n] = composition
        return composition

    def __call__(self, data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        value = self.cast(data)
        if n == 0:
            return np.empty((0,))
        if not self._compositions:
            return np.asarray([self.measurement(value) for _ in range(n)])
        outputs: list[Any] = []
        for j in range(int(n).bit_length()):
            if n >> j & 1:
                outputs += [self.measurement(value)] if j == 0 else self._compose(1 << j)(value)
        return np.asarray(outputs)


def _default_domain(measurement: Any, relation: NeighbourRelation, d_in: Any) -> tuple[Any, tuple]:
    """(domain, pairs) for the pair search: (0, d_in) on a scalar input, record bounds on datasets."""
    domain = measurement.input_domain
    kind = _type_name(domain.type)
    if kind == "AtomDomain" and isinstance(relation, QueryDistance):
        # Floats (the sampler casts them to the carrier type): the pair search's own candidates
        # (q, q +- d_in) are floats, and one pair should not be screened twice.
        lo, hi = getattr(domain, "bounds", None) or (-math.inf, math.inf)
        base = 0.0 if lo <= 0 and d_in <= hi else float(lo)
        if base + d_in > hi:
            return None, ()
        return base, ((base, base + float(d_in)),)
    if kind == "AtomDomain" and isinstance(relation, Local) and _type_name(measurement.input_carrier_type) == "bool":
        return (False, True), ((True, False),)
    if kind == "VectorDomain" and isinstance(relation, (AddRemove, Replace)):
        bounds = getattr(domain.element_domain, "bounds", None)
        return (tuple(bounds) if bounds else None), ()
    if kind == "VectorDomain" and isinstance(relation, QueryDistance) and getattr(domain, "size", None):
        return tuple([0.0] * int(domain.size)), ()
    return None, ()


def from_measurement(
    measurement: Any,
    *,
    d_in: Any = None,
    epsilon: float | None = None,
    delta: float | None = None,
) -> Mechanism:
    """An OpenDP ``Measurement`` as a :class:`Mechanism` whose claim is its privacy map at ``d_in``.

    ``epsilon`` / ``delta`` given together override the map's claim (then ``d_in`` defaults to 1);
    for a zCDP measurement ``delta`` alone chooses the delta of the conversion.
    """
    from opendp.mod import Measurement

    if not isinstance(measurement, Measurement):
        hint = " (chain it with a measurement, e.g. >> dp.m.then_laplace(scale))" if "Transformation" in type(
            measurement).__name__ else ""
        raise InvalidArgument(
            f"the OpenDP object is a {type(measurement).__name__}, not a Measurement{hint}: "
            "dpaudit audits OpenDP measurements"
        )
    if d_in is None and epsilon is None:
        raise InvalidArgument(
            "d_in is required to audit an OpenDP Measurement: its privacy map gives the claim at the input distance "
            "of the pair: give d_in=1 (command line: --d-in 1)"
        )
    distance = _distance(measurement, 1 if d_in is None else d_in)
    relation = relation_at(measurement, distance)
    if epsilon is not None:
        claim: Claim = ApproxDP(epsilon, delta) if delta else PureDP(epsilon)
        how = "claim given by epsilon=/delta= (the privacy map was not read)"
    else:
        claim, how = claim_at(measurement, distance, delta)
        measure = str(measurement.output_measure.type)
        if delta is not None and measure in ("MaxDivergence", "Approximate<MaxDivergence>"):
            # delta= overrides the map's delta here; for zCDP and profiles it chose the conversion point.
            claim = ApproxDP(claim.epsilon, delta) if delta else PureDP(claim.epsilon)
    domain, pairs = _default_domain(measurement, relation, distance)
    sampler = OpenDPSampler(measurement)
    return Mechanism(
        name="opendp-measurement",
        claim=claim,
        neighbours=relation,
        sampler=sampler,
        family="opendp",
        description=f"OpenDP {measurement.input_domain} -> {measurement.output_measure}; {how}; {sampler.batching}",
        domain=domain,
        pairs=pairs,
        source=f"opendp {_version()}",
        randomness="own",
        # OpenDP rounds the exact real sum q + noise once to a double: outputs are not fl(q + n) for a
        # double n, so the ulp-lattice lemma proves nothing about them (leak events are only observed).
        float_sum=False,
    )


def _version() -> str:
    from importlib.metadata import version

    return version("opendp")
