"""Exact floating-point support check: can output y come from query value q?

For a mechanism exposing its noise as :class:`~dpaudit.mechanisms.float_noise.FloatNoise`, every
output is y = fl(q + s * noise(k * 2^-bits)) for some index k in {1, ..., 2^bits} and sign s.  For
fixed q and s the map k -> g(k) = fl(q + s * noise(k * 2^-bits)) is monotone (noise is monotone and
IEEE rounding is monotone), so

    y in supp M(q)  <=>  there are s, k with g(k) = y,

which a binary search over k decides exactly in bits + 1 vectorised steps over the whole array of
outputs (the porous float support is Mironov 2012, "On significance of the least significant bits for
differential privacy", CCS; the search here finds the boundary index k*, then tests equality at k* and
k* +- 1 as a guard against a libm that is not exactly monotone).

**Black boxes.**  A mechanism that does not expose its noise may still draw it with one of the
common samplers of :data:`KNOWN_NOISES` (numpy's ``Generator.laplace``, the textbook
``-b log(u)`` with a random sign).  :func:`identify_noise` tries them with scales near the mean
absolute deviation of the outputs and centres near their median (:func:`.lattice.candidate_centres`),
and keeps the first model that reproduces *every* search output of both inputs, each from its own
centre.  Everything identified is chosen on the search samples: an event built on it is bounded on
fresh samples like every other, and proves nothing (the model or the centre could be wrong, and
then M(b) could reach the event).

Soundness rests on the replay repeating the sampler's float operations, so before any "impossible"
verdict the check confirms that *every* output is consistent with its own true query value
(self-consistency); if one is not, it refuses to decide (verdict ``inconclusive``).

An output of M(a) that no (s, k) reproduces under q_b lies in S = supp M(a) \\ supp M(b), an event
with P_b(S) = 0 exactly: a certificate of infinite privacy loss.  The share of such outputs is the
measured leak (about 60-67 % for the textbook Laplace at epsilon in [0.01, 1]); its Clopper-Pearson
lower bound bounds delta at every epsilon (see :mod:`dpaudit.auditor.events.leaks.finding`).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...._validation import check_positive_int, check_probability_open
from ....errors import InvalidArgument
from ....mechanisms.float_noise import (
    FloatNoise,
    numpy_laplace_noise,
    textbook_laplace_noise,
)
from ....neighbours import QueryDistance
from .finding import LeakFinding, LeakVerdict, finding_from_counts
from .lattice import candidate_centres

__all__ = [
    "KNOWN_NOISES",
    "IdentifiedNoise",
    "SupportMatch",
    "candidate_scales",
    "float_support_check",
    "identify_noise",
    "query_array",
    "query_value",
    "replayed_centre",
    "support_match",
]

REPLAY_CHECK_ROWS = 200
QUICK_CHECK_ROWS = 16
MAX_SCALES = 12
SCALE_TOLERANCE = 0.05
KNOWN_NOISES = {"numpy-laplace": numpy_laplace_noise, "textbook-laplace": textbook_laplace_noise}


@dataclass(frozen=True)
class SupportMatch:
    """Per-output answer of :func:`support_match`.

    Attributes
    ----------
    consistent : ndarray of bool
        True where some (s, k) gives exactly the output.
    index : ndarray of int64
        The uniform index k* reproducing the output (0 where none does).
    sign : ndarray of float
        The sign s used (0 where none).
    """

    consistent: np.ndarray
    index: np.ndarray
    sign: np.ndarray


def _first_reaching(noise: FloatNoise, outputs: np.ndarray, query: float, sign: float) -> np.ndarray:
    """Smallest k with g(k) >= y (g non-decreasing) or g(k) <= y (non-increasing); bits+1 steps."""
    rising = noise.increasing == (sign > 0)
    lo = np.ones(outputs.shape, dtype=np.int64)
    hi = np.full(outputs.shape, noise.grid_size, dtype=np.int64)
    for _ in range(noise.bits + 1):
        mid = (lo + hi) >> 1
        value = noise.output(query, mid, sign)
        go_up = value < outputs if rising else value > outputs
        lo = np.where(go_up, mid + 1, lo)
        hi = np.where(go_up, hi, mid)
    return lo


def support_match(noise: FloatNoise, outputs: Any, query: float) -> SupportMatch:
    """Decide exactly, for each output y, whether y = fl(q + s * noise(k * 2^-bits)) for some s, k.

    Vectorised binary search (``noise.bits + 1`` numpy steps per sign over the whole array), then an
    equality test at k* - 1, k*, k* + 1.  Outputs already matched with s = +1 are not searched again.
    """
    if not isinstance(noise, FloatNoise):
        raise InvalidArgument(f"noise={noise!r} must be a FloatNoise")
    y = np.asarray(outputs, dtype=np.float64)
    if y.ndim != 1:
        raise InvalidArgument(f"outputs of shape {y.shape} must be a 1-D array of scalar outputs")
    query = float(query)
    consistent = np.zeros(y.shape, dtype=bool)
    index = np.zeros(y.shape, dtype=np.int64)
    sign_used = np.zeros(y.shape, dtype=np.float64)
    for sign in noise.signs:
        todo = np.flatnonzero(~consistent)
        if todo.size == 0:
            break
        start = _first_reaching(noise, y[todo], query, sign)
        for offset in (0, -1, 1):  # the guard offsets are tried only where k* itself failed
            open_ = ~consistent[todo]
            rows, k = todo[open_], np.clip(start[open_] + offset, 1, noise.grid_size)
            hit = noise.output(query, k, sign, exact=True) == y[rows]
            consistent[rows[hit]] = True
            index[rows[hit]] = k[hit]
            sign_used[rows[hit]] = sign
    return SupportMatch(consistent=consistent, index=index, sign=sign_used)


def _reproduces(noise: FloatNoise, outputs: np.ndarray, centre: float) -> bool:
    """Every output is fl(centre + s * noise(k 2^-bits)) for some (s, k): tried on the first
    ``QUICK_CHECK_ROWS``, then ``REPLAY_CHECK_ROWS`` outputs before all of them (most candidates fail at once)."""
    return all(support_match(noise, outputs[:rows], centre).consistent.all()
               for rows in (QUICK_CHECK_ROWS, REPLAY_CHECK_ROWS, outputs.size))


def replayed_centre(noise: FloatNoise, outputs: Any) -> float | None:
    """For an unknown query value: the first of :func:`.lattice.candidate_centres` (the simplest
    near the median first) from which the replay reproduces *every* output (self-consistency), else None.

    The centre is chosen on these outputs, so an event built on it is only as good as its
    verification on fresh samples: it proves nothing.
    """
    y = np.asarray(outputs, dtype=np.float64).reshape(-1)
    return next((c for c in candidate_centres(y) if _reproduces(noise, y, c)), None)


def candidate_scales(outputs: Any, centre: float, max_denominator: int = 16) -> tuple[float, ...]:
    """Candidate noise scales b for Laplace outputs around ``centre``, at most ``MAX_SCALES``.

    The estimate is b^ = mean |y - centre| (the Laplace maximum-likelihood scale; relative standard
    error 1 / sqrt(n)).  Scales in code are mostly Delta / epsilon or 1 / (epsilon n) written as one
    division, so the candidates are the doubles j / d and d / j (d = 1..``max_denominator``, j an
    integer) within ``SCALE_TOLERANCE`` of b^ in relative terms: those within three standard errors
    of b^ with the smallest d first (the simplest explanation), then the rest by distance to b^.
    """
    y = np.asarray(outputs, dtype=np.float64).reshape(-1)
    y = y[np.isfinite(y)]
    if y.size == 0:
        return ()
    estimate = float(np.mean(np.abs(y - centre)))
    if not (math.isfinite(estimate) and estimate > 0):
        return ()
    low, high = estimate * (1 - SCALE_TOLERANCE), estimate * (1 + SCALE_TOLERANCE)
    close = 3.0 * estimate / math.sqrt(y.size)
    found: dict[float, int] = {}
    for d in range(1, max_denominator + 1):
        for j in range(max(1, math.ceil(low * d)), math.floor(high * d) + 1):  # j / d
            found.setdefault(float(j) / d, d)
        for j in range(max(1, math.ceil(d / high)), math.floor(d / low) + 1):  # d / j
            found.setdefault(float(d) / j, d)

    def order(b: float) -> tuple[bool, int, float]:
        near = abs(b - estimate) <= close
        return (not near, found[b] if near else 0, abs(b - estimate))

    return tuple(sorted((b for b in found if low <= b <= high), key=order))[:MAX_SCALES]


@dataclass(frozen=True)
class IdentifiedNoise:
    """A known noise model (``KNOWN_NOISES[model]`` at ``scale``) that reproduces every search output
    of both inputs, from the centres ``centres`` = (c_a, c_b); all of it estimated, nothing proved."""

    model: str
    scale: float
    centres: tuple[float, float]

    @property
    def noise(self) -> FloatNoise:
        return KNOWN_NOISES[self.model](self.scale)

    def describe(self) -> str:
        return f"{self.model}, scale {self.scale!r}"


def identify_noise(outputs_a: Any, outputs_b: Any) -> IdentifiedNoise | None:
    """The first centre of :func:`.lattice.candidate_centres`, scale of :func:`candidate_scales` and
    model of ``KNOWN_NOISES`` (in that nesting) whose replay reproduces every output of ``outputs_a``,
    provided it also reproduces every output of ``outputs_b`` from one of that side's candidate
    centres; None when none does.  Use on search samples only.
    """
    ya = np.asarray(outputs_a, dtype=np.float64).reshape(-1)
    yb = np.asarray(outputs_b, dtype=np.float64).reshape(-1)
    if ya.size == 0 or yb.size == 0 or not (np.isfinite(ya).all() and np.isfinite(yb).all()):
        return None
    for centre in candidate_centres(ya):
        for scale in candidate_scales(ya, centre):
            for model, make in KNOWN_NOISES.items():
                noise = make(scale)
                if _reproduces(noise, ya, centre):
                    other = replayed_centre(noise, yb)
                    if other is not None:
                        return IdentifiedNoise(model, scale, (centre, other))
    return None


def query_array(mechanism: Any, data: Any) -> np.ndarray:
    """The query value(s) the noise is added to: ``data`` itself for query-value mechanisms, else f(data).

    A dataset mechanism that declares no ``query`` has no known query value (its data are records,
    not the value the noise is added to): InvalidArgument then.
    """
    if isinstance(mechanism.neighbours, QueryDistance):
        return np.asarray(data, dtype=np.float64)
    if mechanism.query is None:
        raise InvalidArgument(
            f"mechanism {getattr(mechanism, 'name', mechanism)!r} takes datasets and declares no query: "
            "its query values are unknown (declare query=... on the Mechanism)"
        )
    return np.asarray(mechanism.query(data), dtype=np.float64)


def query_value(mechanism: Any, data: Any) -> float:
    """The scalar query value q the noise is added to (:func:`query_array`, which must be 0-dimensional)."""
    value = query_array(mechanism, data)
    if value.ndim != 0:
        raise InvalidArgument(f"data={data!r} must give a scalar query value for the float-support check")
    return float(value)


def float_support_check(
    mechanism: Any,
    a: Any,
    b: Any,
    *,
    n: int = 100_000,
    seed: int = 0,
    confidence: float = 0.95,
) -> LeakFinding:
    """Audit the ordered pair (a, b) of a mechanism exposing ``noise`` by exact support replay.

    Draws n outputs of M(a) and n of M(b) with ``np.random.default_rng(seed)``, checks that each
    output is consistent with its own query value (else ``inconclusive``), and counts the outputs
    of M(a) impossible under q_b (the event S = supp M(a) \\ supp M(b)) and those of M(b) in S
    (zero whenever self-consistency holds).  The finding's bound is the Clopper-Pearson union bound
    of :mod:`dpaudit.auditor.events.leaks.finding` at ``confidence``.

    Returns
    -------
    LeakFinding
        ``check="float-support"``; ``figures`` holds the share of outputs consistent only with
        their own input in both directions and the run time; ``witness`` the first output of M(a)
        impossible under q_b with its uniform index k* and sign.
    """
    noise = getattr(mechanism, "noise", None)
    if not isinstance(noise, FloatNoise):
        raise InvalidArgument(
            f"mechanism {getattr(mechanism, 'name', mechanism)!r} must expose noise=FloatNoise(...) "
            "for the exact-support check"
        )
    n = check_positive_int("n", n)
    check_probability_open("confidence", confidence)
    started = time.perf_counter()
    q_a, q_b = query_value(mechanism, a), query_value(mechanism, b)
    rng = np.random.default_rng(seed)
    out_a = np.asarray(mechanism.sample(a, n, rng), dtype=np.float64).reshape(n)
    out_b = np.asarray(mechanism.sample(b, n, rng), dtype=np.float64).reshape(n)
    own_a, own_b = support_match(noise, out_a, q_a), support_match(noise, out_b, q_b)
    method = (
        f"exact replay of fl(q + s*noise(k*2^-{noise.bits})) by vectorised binary search over k "
        f"({noise.bits + 1} steps per sign, equality checked at k*, k*+-1); event S = outputs of M(a) "
        f"that no (s, k) reproduces under q_b = {q_b!r}; Clopper-Pearson union bound at confidence {confidence:g}"
    )
    if not (own_a.consistent.all() and own_b.consistent.all()):
        bad = np.concatenate([out_a[~own_a.consistent], out_b[~own_b.consistent]])
        return LeakFinding(
            check="float-support",
            verdict=LeakVerdict.INCONCLUSIVE,
            reason=(
                f"self-consistency failed: {bad.size} of {2 * n} outputs (first {bad[0]!r}) are not reproduced "
                "from their own query value, so the replay does not match the sampler's float operations "
                "(different operation order, libm or noise function); refusing to call any output impossible"
            ),
            method=method,
            claim=mechanism.claim.as_dict(),
            pair=(repr(a), repr(b)),
            seed=seed,
        )
    cross_a = support_match(noise, out_a, q_b).consistent
    cross_b = support_match(noise, out_b, q_a).consistent
    only_a = ~cross_a
    figures = {
        "query_a": q_a,
        "query_b": q_b,
        "unique_share_a": float(np.mean(only_a)),
        "unique_share_b": float(np.mean(~cross_b)),
        "self_consistency": 1.0,
        "seconds": round(time.perf_counter() - started, 3),
    }
    witness: dict[str, Any] = {}
    if only_a.any():
        i = int(np.argmax(only_a))
        witness = {
            "output": float(out_a[i]),
            "output_hex": float(out_a[i]).hex(),
            "u_index": int(own_a.index[i]),
            "u": float(noise.uniform(own_a.index[i : i + 1])[0]),
            "sign": float(own_a.sign[i]),
            "statement": f"y = {out_a[i]!r} = fl({q_a!r} + ({own_a.sign[i]:+g})*noise({int(own_a.index[i])}*2^-{noise.bits})) "
            f"is produced by no index k and sign s under q = {q_b!r}",
        }
    return finding_from_counts(
        check="float-support",
        claim=mechanism.claim,
        pair=(a, b),
        event=f"outputs reachable from q = {q_a!r} but from no (s, k) under q = {q_b!r}",
        counts=(int(only_a.sum()), n, 0, n),  # no output of M(b) is in S: each is consistent with q_b
        confidence=confidence,
        proven_empty=True,
        method=method,
        why=(
            "The exact replay shows which doubles each input can produce; the two sets differ, so the "
            "output itself tells the inputs apart (Mironov 2012)."
        ),
        witness=witness,
        figures=figures,
        seed=seed,
    )
