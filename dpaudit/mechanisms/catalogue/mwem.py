"""MWEM: private multiplicative weights with the exponential mechanism.

Hardt, Ligett & McSherry, "A simple and practical algorithm for differentially private data release",
NeurIPS 2012, Alg. 1 (names from the paper).  Data: N records from the universe {0..U-1}, held as the
histogram B (counts); Q: counting queries q: X -> {0, 1}, q(B) = sum_x q(x) B(x).  Start from the
uniform A_0 = N/U on every x; for t = 1..T:

1. *select* q_i with the exponential mechanism at eps/(2T) on the score s_i = |q_i(A_{t-1}) - q_i(B)|
   (sensitivity 1): P[i] proportional to exp(eps s_i / (4T));
2. *measure* m_i = q_i(B) + Lap(2T/eps);
3. *update* A_t(x) proportional to A_{t-1}(x) exp(q_i(x) (m_i - q_i(A_{t-1})) / (2N)), rescaled to sum N.

Output: the synthetic distribution avg_t A_t / N (a length-U vector summing to 1).

Privacy: each round is an eps/(2T)-DP selection plus an eps/(2T)-DP Laplace measurement; the update
is post-processing; T rounds compose to pure eps-DP (Dwork & Roth 2014, Thm. 3.16).  N is public:
bounded neighbours (``Replace``), under which every q(B) moves by at most 1.

Sampling runs in floats: the selection is the Gumbel-max form of the exponential mechanism
(argmax_i eps s_i/(4T) + G_i, G_i standard Gumbel, which has exactly the exponential mechanism's law in
real arithmetic) and each measurement is released on the power-of-two grid of
:mod:`dpaudit.mechanisms._grid` (post-processing, no float lattice leak).  No closed-form output
density is declared; the entry declares its structure instead (T selections and T measurements in
sequence, the catalogue's exponential and Laplace mechanisms at eps/(2T), then the update), from which
the prover composes the claim.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..._validation import check_positive_int
from ...claims import PureDP
from ...errors import InvalidDataset
from ...neighbours import Replace
from .._grid import snap_to_grid
from ..base import Mechanism
from ..registry import register
from ..structure import Part, SequentialComposition
from .exponential import exponential_mechanism
from .geometric import positive_fraction
from .laplace import laplace_count
from .net_mechanism import DEFAULT_QUERIES, records_histogram

__all__ = ["MWEMTranscript", "multiplicative_weights_update", "mwem", "mwem_transcript"]


class MWEMTranscript(NamedTuple):
    """Everything MWEM drew for n runs: selected query indices and measurements (n, T), output (n, U)."""

    selected: np.ndarray
    measured: np.ndarray
    synthetic: np.ndarray


def multiplicative_weights_update(a: np.ndarray, query: np.ndarray, measured: np.ndarray, total: float) -> np.ndarray:
    """A_t(x) = A_{t-1}(x) exp(q(x)(m - q(A_{t-1}))/(2N)) rescaled to sum N; rows of ``a`` are runs."""
    answer = np.sum(a * query, axis=1)
    a = a * np.exp(query * ((measured - answer) / (2 * total))[:, None])
    return total * a / a.sum(axis=1, keepdims=True)


def mwem_transcript(
    counts: Any, queries: np.ndarray, rounds: int, epsilon: float, n: int, rng: np.random.Generator
) -> MWEMTranscript:
    """Run MWEM n times at once (loop over the T rounds only)."""
    b = np.asarray(counts, dtype=float)
    total = float(b.sum())
    universe = b.size
    true_answers = queries @ b
    scale = 2 * rounds / epsilon  # Laplace scale of each measurement
    a = np.full((n, universe), total / universe)
    running = np.zeros((n, universe))
    selected = np.zeros((n, rounds), dtype=np.int64)
    measured = np.zeros((n, rounds))
    for t in range(rounds):
        scores = np.abs(a @ queries.T - true_answers)  # s_i = |q_i(A_{t-1}) - q_i(B)|
        i = np.argmax(epsilon * scores / (4 * rounds) + rng.gumbel(size=scores.shape), axis=1)
        m = snap_to_grid(true_answers[i] + rng.laplace(0.0, scale, size=n), scale)
        a = multiplicative_weights_update(a, queries[i], m, total)
        running += a
        selected[:, t], measured[:, t] = i, m
    return MWEMTranscript(selected, measured, running / (rounds * total))


@register("mwem")
def mwem(epsilon: float = 1.0, rounds: int = 2, queries: Any = DEFAULT_QUERIES) -> Mechanism:
    """MWEM on the universe {0, 1, 2} with T rounds and counting queries; outputs the synthetic distribution."""
    eps = float(positive_fraction("epsilon", epsilon))
    rounds = check_positive_int("rounds", rounds)
    q = np.asarray(queries, dtype=float)
    if q.ndim != 2 or q.shape[1] < 2 or not np.isin(q, (0.0, 1.0)).all():
        raise InvalidDataset(f"queries={queries!r} must be a matrix of 0/1 rows of one length >= 2")
    universe = q.shape[1]

    def sample(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        return mwem_transcript(records_histogram(data, universe), q, rounds, eps, n, rng).synthetic

    per_round = eps / (2 * rounds)  # the budget of each selection and of each measurement
    query_range = float(np.max(q.max(axis=1) - q.min(axis=1)))  # max over q of max_x q(x) - min_x q(x)
    moved = "replacing one record moves q(B) by at most max_x q(x) - min_x q(x), computed from the query rows"
    structure = SequentialComposition(
        parts=(
            Part(
                label="each round: select a query (exponential mechanism, Gumbel-max form)",
                mechanism=exponential_mechanism(epsilon=per_round, k=q.shape[0], sensitivity=1.0),
                input="the scores s_i = |q_i(A_{t-1}) - q_i(B)|, A_{t-1} fixed by the earlier rounds",
                input_sensitivity=query_range,
                sensitivity_reason=moved + ", and s_i by no more (reverse triangle inequality)",
                repeat=rounds,
            ),
            Part(
                label="each round: measure the selected query, m_i = q_i(B) + Lap(2T/eps)",
                mechanism=laplace_count(epsilon=per_round),
                input="the selected query's answer q_i(B), i fixed by the selection",
                input_sensitivity=query_range,
                sensitivity_reason=moved,
                repeat=rounds,
            ),
        ),
        output=(
            "the average of the multiplicative-weights iterates A_1..A_T over N, computed from the selected "
            "indices and the measurements (on the release grid)"
        ),
    )

    return Mechanism(
        name="mwem",
        claim=PureDP(eps),
        neighbours=Replace(),
        sampler=sample,
        family="mwem",
        structure=structure,
        description=(
            f"MWEM, {rounds} rounds over {q.shape[0]} counting queries on {universe} values, "
            f"outputs the synthetic distribution, epsilon={eps:g}"
        ),
        domain=tuple(range(universe)),
        pairs=(((0, 0, 0, 0), (0, 0, 0, 2)), ((0, 1, 2, 2), (0, 1, 2, 0))),
        source="Hardt, Ligett & McSherry (2012) NeurIPS, Alg. 1; Dwork & Roth (2014) Thm. 3.16",
    )
