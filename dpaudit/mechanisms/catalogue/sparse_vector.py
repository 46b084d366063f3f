"""The sparse vector technique: which of many queries exceed a threshold, paying only for the "above"s.

Input: a vector of query answers q = (q_1, ..., q_k) of sensitivity Delta each, under the "ALL"
neighbourhood ``QueryDistance(Delta, "linf")`` (every answer may move by Delta at once); a public
threshold T.  Outputs are numeric vectors of length k: 1 for "above" (top), 0 for "below" (bottom),
-1 for a query left unanswered after the mechanism stopped.

* ``above-threshold`` -- Dwork & Roth (2014) Alg. 1 (AboveThreshold): rho ~ Lap(2 Delta/epsilon),
  nu_i ~ Lap(4 Delta/epsilon); answer bottom until q_i + nu_i >= T + rho, answer top and halt
  (Dwork & Roth Thm. 3.23).
* ``svt-lyu-1`` -- Lyu, Su & Li (2017, VLDB, "Understanding the sparse vector technique for
  differential privacy") Alg. 1: epsilon_1 = epsilon/2, rho ~ Lap(Delta/epsilon_1),
  epsilon_2 = epsilon - epsilon_1, nu_i ~ Lap(2 c Delta/epsilon_2); stop after c tops (their Thm. 2).
* ``svt-lyu-2`` -- their Alg. 2 (the Dwork & Roth 2014 version): rho ~ Lap(c Delta/epsilon_1) is drawn
  afresh after every top, nu_i ~ Lap(2 c Delta/epsilon_2); stop after c tops.

Privacy (Lyu et al. Thm. 2, proof idea): fix the noise of the queries answered bottom; moving the
threshold noise by Delta pays epsilon_1 (or epsilon_1/c per threshold in Alg. 2) and covers every
bottom answer at once, and each of the at most c top answers pays epsilon_2/c through its own noise
nu_i, which must absorb a shift of 2 Delta (query and threshold side).  Outputs are discrete, so no
floating-point lattice can leak through them.

Each sampler loops over the k queries (vectorised over the n runs); the catalogue instances use
k = 10 queries.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..._validation import check_positive_finite, check_positive_int, check_real
from ...claims import PureDP
from ...errors import InvalidDataset
from ...neighbours import QueryDistance
from ..base import Mechanism
from ..registry import register

__all__ = ["sparse_vector"]

TOP, BOTTOM, UNANSWERED = 1, 0, -1
Scale = Callable[[Any, Any], Any]  # a noise scale as a function of (epsilon, Delta)
QUERIES = 10


def _answers(data: Any) -> np.ndarray:
    q = np.asarray(data, dtype=float).reshape(-1)
    if q.size == 0 or not np.all(np.isfinite(q)):
        raise InvalidDataset(f"data={data!r} must be a non-empty vector of finite query answers")
    return q


def sparse_vector(
    q: np.ndarray,
    n: int,
    rng: np.random.Generator,
    *,
    threshold: float,
    threshold_scale: float,
    query_scale: float,
    cutoff: int,
    resample_threshold: bool,
) -> np.ndarray:
    """n runs of SVT on answers q: an (n, k) int8 array of TOP / BOTTOM / UNANSWERED.

    The threshold noise is Lap(threshold_scale), redrawn after each top when ``resample_threshold``
    (Lyu et al. Alg. 2); query noise is Lap(query_scale); a run stops after ``cutoff`` tops.
    """
    k = q.size
    draws = cutoff if resample_threshold else 1
    rho = rng.laplace(0.0, threshold_scale, size=(n, draws))
    nu = rng.laplace(0.0, query_scale, size=(n, k))
    out = np.full((n, k), UNANSWERED, dtype=np.int8)
    tops = np.zeros(n, dtype=np.int64)
    rows = np.arange(n)
    for i in range(k):
        active = tops < cutoff
        current = rho[rows, np.minimum(tops, draws - 1)]
        above = q[i] + nu[:, i] >= threshold + current
        out[:, i] = np.where(active, np.where(above, TOP, BOTTOM), UNANSWERED)
        tops += active & above
    return out


def _svt_entry(
    name: str,
    *,
    epsilon: float,
    threshold: float,
    cutoff: int,
    resample_threshold: bool,
    description: str,
    source: str,
    scales: tuple[Scale, Scale],
) -> Mechanism:
    """The entry; ``scales`` are the threshold and query noise scales as functions of (epsilon, Delta),
    evaluated for the sampler and kept symbolic in its program."""
    threshold_scale, query_scale = (scale(epsilon, 1.0) for scale in scales)

    def sample(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        return sparse_vector(
            _answers(data),
            n,
            rng,
            threshold=threshold,
            threshold_scale=threshold_scale,
            query_scale=query_scale,
            cutoff=cutoff,
            resample_threshold=resample_threshold,
        )

    def program():
        from ..programs import threshold_program

        return threshold_program(
            name,
            epsilon=epsilon,
            queries=QUERIES,
            threshold=threshold,
            threshold_scale=scales[0],
            query_scale=scales[1],
            cutoff=cutoff,
            resample_threshold=resample_threshold,
        )

    relation = QueryDistance(1.0, "linf")
    base = np.full(QUERIES, threshold)
    pairs = relation.candidate_pairs(tuple(base.tolist()))
    return Mechanism(
        name=name,
        claim=PureDP(epsilon),
        neighbours=relation,
        sampler=sample,
        family="sparse-vector",
        description=description,
        domain=tuple(base.tolist()),
        pairs=tuple(pairs),
        source=source,
        program=program,
    )


def _common(epsilon: float, threshold: float, cutoff: int) -> tuple[float, float, int]:
    return (
        check_positive_finite("epsilon", epsilon),
        check_real("threshold", threshold),
        check_positive_int("cutoff", cutoff),
    )


@register("above-threshold")
def above_threshold(epsilon: float = 1.0, threshold: float = 0.0) -> Mechanism:
    """AboveThreshold (Dwork & Roth 2014, Alg. 1): rho ~ Lap(2/epsilon), nu_i ~ Lap(4/epsilon), halt at a top."""
    epsilon, threshold, _ = _common(epsilon, threshold, 1)
    return _svt_entry(
        "above-threshold",
        epsilon=epsilon,
        threshold=threshold,
        cutoff=1,
        resample_threshold=False,
        description=f"AboveThreshold over {QUERIES} queries, T={threshold:g}, epsilon={epsilon:g}",
        source="Dwork & Roth (2014) Alg. 1, Thm. 3.23",
        scales=(lambda eps, sens: 2 * sens / eps, lambda eps, sens: 4 * sens / eps),
    )


@register("svt-lyu-1")
def svt_lyu_1(epsilon: float = 1.0, threshold: float = 0.0, cutoff: int = 2) -> Mechanism:
    """Lyu, Su & Li (2017) Alg. 1: rho ~ Lap(2/epsilon) once, nu_i ~ Lap(4c/epsilon), stop after c tops."""
    epsilon, threshold, cutoff = _common(epsilon, threshold, cutoff)
    return _svt_entry(
        "svt-lyu-1",
        epsilon=epsilon,
        threshold=threshold,
        cutoff=cutoff,
        resample_threshold=False,
        description=f"SVT (Lyu et al. Alg. 1) over {QUERIES} queries, c={cutoff}, T={threshold:g}, epsilon={epsilon:g}",
        source="Lyu, Su & Li (2017, VLDB) Alg. 1, Thm. 2",
        # Delta / eps1 and 2 c Delta / eps2 with eps1 = eps2 = eps / 2
        scales=(lambda eps, sens: 2 * sens / eps, lambda eps, sens: 4 * cutoff * sens / eps),
    )


@register("svt-lyu-2")
def svt_lyu_2(epsilon: float = 1.0, threshold: float = 0.0, cutoff: int = 2) -> Mechanism:
    """Lyu, Su & Li (2017) Alg. 2: rho ~ Lap(2c/epsilon) redrawn after each top, nu_i ~ Lap(4c/epsilon)."""
    epsilon, threshold, cutoff = _common(epsilon, threshold, cutoff)
    return _svt_entry(
        "svt-lyu-2",
        epsilon=epsilon,
        threshold=threshold,
        cutoff=cutoff,
        resample_threshold=True,
        description=(
            f"SVT (Lyu et al. Alg. 2, Dwork-Roth) over {QUERIES} queries, c={cutoff}, T={threshold:g}, "
            f"epsilon={epsilon:g}"
        ),
        source="Lyu, Su & Li (2017, VLDB) Alg. 2; Dwork & Roth (2014) Alg. 2",
        # c Delta / eps1 and 2 c Delta / eps2 with eps1 = eps2 = eps / 2
        scales=(lambda eps, sens: 2 * cutoff * sens / eps, lambda eps, sens: 4 * cutoff * sens / eps),
    )
