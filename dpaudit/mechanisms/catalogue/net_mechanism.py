"""The net mechanism: the exponential mechanism over a net of small synthetic databases.

Blum, Ligett & Roth, "A learning theory approach to non-interactive database privacy", STOC 2008
(JACM 2013); Dwork & Roth (2014) Sect. 4.1 ("SmallDB").  On the universe X = {0..U-1} the net N_m is
the set of histograms with denominator m: count vectors h in N^U with sum m (every multiset of m
records).  For a class Q of counting queries q: X -> {0, 1} the utility of h on a dataset D of N records is

    u(D, h) = -max_{q in Q} |q(D)/N - q(h)/m|,   q(D) = #{x in D : q(x) = 1},

which moves by at most Delta_u = 1/N when one record of D is replaced (N fixed, bounded DP).  The
exponential mechanism P[h] proportional to exp(eps u(D, h)/(2 Delta_u)) = exp(-eps N err(D, h)/2) is
pure eps-DP (McSherry & Talwar 2007; Dwork & Roth Thm. 3.10).  Output: the counts h of the chosen
net point (a length-U integer vector summing to m).

Default query class on U = 3: the point queries [x = 0], [x = 1], [x = 2] and the threshold query
[x <= 1].  Errors are rationals with denominator N m, so the scaled utilities N u have denominator m and the
sampler -- the catalogue's exact exponential mechanism on them, with sensitivity 1 -- is exact
(epsilon read as a rational).  The entry declares that structure (one part), so the prover decides it.
``one_run`` is the selection's ``one_run`` on the same utilities (a ``random.Random``, exact).
"""

from __future__ import annotations

import functools
import itertools
import random
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from ..._validation import check_positive_int
from ...claims import PureDP
from ...errors import InvalidDataset
from ...neighbours import Replace
from ..base import Mechanism
from ..registry import register
from ..structure import Part, SequentialComposition
from .exponential import exponential_mechanism
from .geometric import positive_fraction

__all__ = ["DEFAULT_QUERIES", "histogram_net", "net_errors", "net_mechanism", "records_histogram"]

DEFAULT_QUERIES = ((1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 0))  # rows: q(x) for x = 0, 1, 2


def histogram_net(universe: int, m: int) -> tuple[tuple[int, ...], ...]:
    """Every count vector of length ``universe`` with sum ``m``, in lexicographic order."""
    return tuple(h for h in itertools.product(range(m + 1), repeat=universe) if sum(h) == m)


def records_histogram(data: Any, universe: int) -> tuple[int, ...]:
    """Counts of the records 0..universe-1 in ``data`` (at least one record)."""
    if isinstance(data, (str, bytes)) or not isinstance(data, (Sequence, np.ndarray)) or len(data) == 0:
        raise InvalidDataset(f"data={data!r} must be a non-empty sequence of records in {{0, ..., {universe - 1}}}")
    records = np.asarray(data, dtype=float).reshape(-1)
    if np.any((records != np.round(records)) | (records < 0) | (records >= universe)):
        raise InvalidDataset(f"data={data!r} must hold records in {{0, ..., {universe - 1}}} only")
    return tuple(np.bincount(records.astype(np.int64), minlength=universe).tolist())


def net_errors(
    counts: Sequence[int], net: Sequence[Sequence[int]], queries: Sequence[Sequence[int]]
) -> list[Fraction]:
    """err(D, h) = max_q |q(D)/N - q(h)/m| for every h in the net, as exact fractions."""
    total = sum(counts)
    answers = [Fraction(sum(w * c for w, c in zip(q, counts)), total) for q in queries]
    errors = []
    for h in net:
        m = sum(h)
        errors.append(max(abs(a - Fraction(sum(w * c for w, c in zip(q, h)), m)) for a, q in zip(answers, queries)))
    return errors


@functools.lru_cache(maxsize=64)  # a one-run sampler is called once per output: compute the utilities once
def _scaled_utilities(
    counts: tuple[int, ...], net: tuple[tuple[int, ...], ...], queries: tuple[tuple[int, ...], ...]
) -> tuple[float, ...]:
    """N u(D, h) = -N err(D, h) for every net point h, as floats (the selection's utilities)."""
    total = sum(counts)
    return tuple(float(-total * err) for err in net_errors(counts, net, queries))


@register("net-mechanism")
def net_mechanism(epsilon: float = 1.0, m: int = 3, queries: Sequence[Sequence[int]] = DEFAULT_QUERIES) -> Mechanism:
    """Exponential mechanism over the histograms of denominator m on {0, 1, 2}; utility = -max query error."""
    eps = positive_fraction("epsilon", epsilon)
    m = check_positive_int("m", m)
    queries = tuple(tuple(int(w) for w in q) for q in queries)
    universe = len(queries[0]) if queries else 0
    if universe < 2 or any(len(q) != universe or set(q) - {0, 1} for q in queries):
        raise InvalidDataset(f"queries={queries!r} must be rows of 0/1 of one length >= 2 (the universe size)")
    net = histogram_net(universe, m)
    net_array = np.asarray(net, dtype=np.int64)
    # The exponential mechanism on the scaled utilities N u(D, h) = -N err(D, h), sensitivity 1: its
    # log-weights eps N u / 2 are those of eps u / (2 Delta_u) with Delta_u = 1/N.
    selection = exponential_mechanism(epsilon=float(eps), k=len(net), sensitivity=1.0)
    query_range = max(max(q) - min(q) for q in queries)  # max over q of max_x q(x) - min_x q(x)

    def scaled_utilities(data: Any) -> tuple[float, ...]:
        return _scaled_utilities(records_histogram(data, universe), net, queries)

    def sample(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        return net_array[selection.sample(scaled_utilities(data), n, rng)]

    def one_run(data: Any, rng: random.Random) -> tuple[int, ...]:
        index = selection.one_run(scaled_utilities(data), rng)
        return net[index]

    structure = SequentialComposition(
        parts=(
            Part(
                label=f"choose a histogram of the net (all {len(net)} count vectors of sum {m})",
                mechanism=selection,
                input="the scaled utilities N u(D, h) = -max_q |q(D) - N q(h)/m|, one per net point h",
                input_sensitivity=float(query_range),
                sensitivity_reason=(
                    "replacing one record moves each q(D) by at most max_x q(x) - min_x q(x), computed from the "
                    "query rows, and each N u(D, h) by no more (reverse triangle inequality, N public)"
                ),
            ),
        ),
        output="the chosen net point's counts h (a map of its index)",
    )

    return Mechanism(
        name="net-mechanism",
        claim=PureDP(float(eps)),
        neighbours=Replace(),
        sampler=sample,
        one_run=one_run,
        family="net-mechanism",
        structure=structure,
        description=(
            f"net mechanism: exponential mechanism over the {len(net)} histograms of denominator {m} "
            f"on {universe} values, {len(queries)} counting queries, epsilon={float(eps):g}"
        ),
        domain=tuple(range(universe)),
        pairs=(((0, 0, 0, 0), (0, 0, 0, 2)), ((0, 1, 2, 2), (0, 1, 2, 0))),
        source="Blum, Ligett & Roth (2008) STOC; Dwork & Roth (2014) Sect. 4.1",
    )
