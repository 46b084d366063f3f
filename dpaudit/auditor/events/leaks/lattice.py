"""Black-box lattice events on the binary representation of float outputs.

**Lemma (ulp lattice; proof in parentheses).**  If x' is a double with |x'| >= 2^k and n is any double, then
fl(x' + n) is a multiple of 2^(k-53).  (If |n| >= 2^(k-1) both terms are multiples of 2^(k-53), so
the exact sum is, and rounding keeps an ulp >= 2^(k-53); otherwise |x' + n| > 2^(k-1) and the
result's ulp is >= 2^(k-53).)  So a mechanism releasing fl(q + noise) with q = 1 never outputs a
double off the grid 2^-53 Z, while with q = 0 it outputs the noise itself, which often is off that
grid: the event "not a multiple of 2^-53" has probability 0 under q = 1 and a positive probability
under q = 0, whatever the noise distribution (Mironov 2012; Jin et al. 2022 for Gaussians).

Event families (each a frozen value with ``contains(outputs) -> bool array`` and ``describe()``,
membership vectorised with ``np.frexp`` and ``uint64`` views, exact for every finite double):

* :class:`NotMultipleOf` -- y is not a multiple of 2^power;
* :class:`MantissaLowBits` -- the low ``width`` bits of the stored 52-bit significand equal ``pattern``;
* :class:`ExponentIs` -- the binary exponent of y (``np.frexp``) equals ``exponent``;
* :class:`NotReachableFrom` -- no double n at all gives fl(q + n) = y.  This sharpens the lemma to
  an exact, distribution-free test: fl(q + .) is monotone over doubles and n0 = fl(y - q) is within
  half a spacing of y - q, so if neither n0 nor its neighbours map to y, no double does.  Besides
  the off-grid outputs of the lemma it catches, for q = 1, negative outputs in [-2^j, -2^j + 1)
  that are odd multiples of their own ulp (there y - 1 lies one binade higher, where doubles are
  twice as far apart, and fl(1 + n) = 1 + n is exact).

:func:`find_lattice_event` picks, from search-stage samples under a and b, the event with hits under
one input and none under the other; :func:`lattice_check` verifies it on fresh samples.

**Unknown query value** (a dataset function without ``query``, an opaque library):
:func:`candidate_centres` proposes, from one side's search outputs, the doubles fl(j / d) near their
median (integer counts and sums, means of integer records), and :class:`NotReachableFrom` each of them
joins the search.  An estimated centre proves nothing -- the true q_b may differ from it, and then
fl(q_b + n) may reach the event -- so such an event is only *verified* on fresh samples, like every
other event, and never reported as proven empty.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ...._validation import check_positive_int, check_probability_open
from ....errors import InvalidArgument
from .finding import LeakFinding, finding_from_counts

__all__ = [
    "ExponentIs",
    "LatticeChoice",
    "MantissaLowBits",
    "NotMultipleOf",
    "NotReachableFrom",
    "candidate_centres",
    "default_events",
    "find_lattice_event",
    "hit_counts",
    "lattice_check",
    "lemma_grid_power",
    "lowest_set_power",
]

_MANTISSA_MASK = np.uint64((1 << 52) - 1)
MAX_DENOMINATOR = 16
MAX_CENTRES = 4
CENTRE_CHECK_ROWS = 2_000


def _as_doubles(outputs: Any) -> np.ndarray:
    y = np.asarray(outputs)
    if y.dtype.kind not in "biuf":
        raise InvalidArgument(f"outputs of dtype {y.dtype} must be numeric")
    return y.astype(np.float64).reshape(-1) if y.ndim else y.astype(np.float64).reshape(1)


def lowest_set_power(outputs: Any) -> np.ndarray:
    """The largest p with y in 2^p Z, per output (+huge for y = 0 or non-finite values).

    With y = m 2^e (``np.frexp``, 0.5 <= |m| < 1) the integer M = m 2^53 is exact and
    y = M 2^(e-53); the lowest set bit of M is M & -M, whose exponent adds to e - 53.
    """
    y = _as_doubles(outputs)
    finite = np.isfinite(y) & (y != 0)
    m, e = np.frexp(np.where(finite, y, 1.0))
    significand = np.ldexp(m, 53).astype(np.int64)
    low_bit = significand & -significand
    power = e.astype(np.int64) - 53 + (np.frexp(low_bit.astype(np.float64))[1].astype(np.int64) - 1)
    return np.where(finite, power, np.iinfo(np.int64).max)


def lemma_grid_power(query: float) -> int | None:
    """k - 53 for 2^k <= |q| < 2^(k+1): every fl(q + n) is a multiple of 2^(k-53) (None for q = 0)."""
    q = float(query)
    if q == 0.0 or not math.isfinite(q):
        return None
    return math.frexp(q)[1] - 1 - 53


@dataclass(frozen=True)
class NotMultipleOf:
    """Outputs y that are not a multiple of 2^power (y = 0 is a multiple of everything)."""

    power: int

    def contains(self, outputs: Any) -> np.ndarray:
        return lowest_set_power(outputs) < self.power

    def describe(self) -> str:
        return f"output is not a multiple of 2^{self.power}"

    def as_dict(self) -> dict[str, Any]:
        return {"kind": "NotMultipleOf", **asdict(self), "description": self.describe()}


@dataclass(frozen=True)
class MantissaLowBits:
    """Outputs whose stored significand (52 bits of the IEEE double) ends in ``pattern`` (``width`` bits)."""

    width: int
    pattern: int

    def __post_init__(self) -> None:
        if not 1 <= check_positive_int("width", self.width) <= 52:
            raise InvalidArgument(f"width={self.width!r} must lie in 1..52")
        if not 0 <= int(self.pattern) < (1 << self.width):
            raise InvalidArgument(f"pattern={self.pattern!r} must lie in 0..2^{self.width}-1")

    def contains(self, outputs: Any) -> np.ndarray:
        bits = np.ascontiguousarray(_as_doubles(outputs)).view(np.uint64) & _MANTISSA_MASK
        return (bits & np.uint64((1 << self.width) - 1)) == np.uint64(self.pattern)

    def describe(self) -> str:
        return f"the last {self.width} significand bits of the output are {self.pattern:0{self.width}b}"

    def as_dict(self) -> dict[str, Any]:
        return {"kind": "MantissaLowBits", **asdict(self), "description": self.describe()}


@dataclass(frozen=True)
class ExponentIs:
    """Outputs y with 2^(exponent-1) <= |y| < 2^exponent (``np.frexp`` exponent; 0 has exponent 0)."""

    exponent: int

    def contains(self, outputs: Any) -> np.ndarray:
        return np.frexp(_as_doubles(outputs))[1] == self.exponent

    def describe(self) -> str:
        return f"2^{self.exponent - 1} <= |output| < 2^{self.exponent}"

    def as_dict(self) -> dict[str, Any]:
        return {"kind": "ExponentIs", **asdict(self), "description": self.describe()}


@dataclass(frozen=True)
class NotReachableFrom:
    """Outputs y such that fl(query + n) != y for every double n (exact; see the module docstring)."""

    query: float

    def contains(self, outputs: Any) -> np.ndarray:
        y = _as_doubles(outputs)
        q = np.float64(self.query)
        with np.errstate(over="ignore", invalid="ignore"):
            nearest = y - q
            reachable = (q + nearest) == y
            reachable |= ~np.isfinite(y)
            # The rest (few, unless the outputs leak): n0's two neighbours on either side.
            rest = np.flatnonzero(~reachable)
            if rest.size:
                y_rest, found = y[rest], np.zeros(rest.size, dtype=bool)
                for direction in (np.inf, -np.inf):
                    candidate = nearest[rest]
                    for _ in range(2):
                        candidate = np.nextafter(candidate, direction)
                        found |= (q + candidate) == y_rest
                reachable[rest] = found
        return ~reachable

    def describe(self) -> str:
        return f"output is fl({self.query!r} + n) for no double n"

    def as_dict(self) -> dict[str, Any]:
        return {"kind": "NotReachableFrom", **asdict(self), "description": self.describe()}


LatticeEvent = NotMultipleOf | MantissaLowBits | ExponentIs | NotReachableFrom


def default_events(
    outputs: Any = (),
    *,
    queries: tuple[float, ...] = (),
    powers: range = range(-80, 21),
    max_width: int = 4,
) -> list[LatticeEvent]:
    """The standard families: reachability from each of ``queries``, grids 2^p for p in ``powers``,
    low-bit patterns up to ``max_width`` bits, and the exponents seen in ``outputs``."""
    events: list[LatticeEvent] = [NotReachableFrom(q) for q in dict.fromkeys(float(q) for q in queries)]
    events += [NotMultipleOf(p) for p in powers]
    events += [MantissaLowBits(w, pat) for w in range(1, max_width + 1) for pat in range(1 << w)]
    seen = np.unique(np.frexp(_as_doubles(outputs))[1]) if len(np.atleast_1d(outputs)) else []
    events += [ExponentIs(int(e)) for e in seen]
    return events


def candidate_centres(outputs: Any, max_denominator: int = MAX_DENOMINATOR) -> tuple[float, ...]:
    """Candidate query values q of outputs y = fl(q + noise), for when q is not known.

    With m the median of the finite outputs (the centre of a symmetric noise) and s = IQR / sqrt(n)
    a robust standard error of it, the candidates are the doubles fl(j / d) for d = 1..``max_denominator``
    and the integers j within max(1, 4 s d) of d m (at most 8 either side): the query values of
    dataset functions are mostly integers (counts, sums, histogram bins) or means of integer records,
    j / len(D) rounded once (what ``np.mean`` returns for them).  Kept are the candidates c from which
    every one of the first ``CENTRE_CHECK_ROWS`` outputs is reachable (:class:`NotReachableFrom` ``(c)``
    has no hit there): the others cannot be the outputs' centre.  Order: those within 4 s of m with the
    smallest denominator first (the simplest explanation), then the rest by distance to m; at most
    ``MAX_CENTRES``.  The search samples choose them; nothing about them is proved.
    """
    y = _as_doubles(outputs)
    y = y[np.isfinite(y)]
    if y.size == 0:
        return ()
    median = float(np.median(y))
    q25, q75 = np.percentile(y, [25, 75])
    spread = 4.0 * float(q75 - q25) / math.sqrt(y.size)
    values: dict[float, int] = {}
    for d in range(1, check_positive_int("max_denominator", max_denominator) + 1):
        if not math.isfinite(median * d) or not math.isfinite(spread * d):
            break
        middle, half = round(median * d), min(8, max(1, math.ceil(spread * d)))
        for j in range(middle - half, middle + half + 1):
            values.setdefault(float(j) / d, d)
    head = y[:CENTRE_CHECK_ROWS]

    def order(c: float) -> tuple[bool, int, float]:
        close = abs(c - median) <= max(spread, 0.0)
        return (not close, values[c] if close else 0, abs(c - median))

    ranked = sorted((c for c in values if math.isfinite(c)), key=order)
    return tuple(c for c in ranked if not NotReachableFrom(c).contains(head).any())[:MAX_CENTRES]


def hit_counts(outputs: Any, events: list[LatticeEvent]) -> list[int]:
    """``count_nonzero(event.contains(outputs))`` for every event, each family computed in one pass.

    Grids: the lowest set powers, sorted once, answer every ``NotMultipleOf`` (one binary search for them all);
    significand patterns up to 4 bits: one histogram of the last 4 bits; exponents: one histogram.
    Other events fall back to ``contains`` (``tests/auditor/events/leaks/test_lattice.py`` checks the equality).
    """
    y = _as_doubles(outputs)
    powers = np.sort(lowest_set_power(y))
    last_bits = np.bincount((np.ascontiguousarray(y).view(np.uint64) & np.uint64(15)).astype(np.int64), minlength=16)
    exponents, exponent_counts = np.unique(np.frexp(y)[1], return_counts=True)
    by_exponent = dict(zip(exponents.tolist(), exponent_counts.tolist()))
    grids = [event.power for event in events if isinstance(event, NotMultipleOf)]
    below = iter(np.searchsorted(powers, grids, side="left").tolist())  # the grids' counts, in their order
    # The hits of every pattern of the last w bits, w = 1..4: the 4-bit histogram summed over the bits above w.
    patterns = {width: np.bincount(np.arange(16) & ((1 << width) - 1), weights=last_bits, minlength=1 << width)
                for width in range(1, 5)}
    counts = []
    for event in events:
        if isinstance(event, NotMultipleOf):
            counts.append(int(next(below)))
        elif isinstance(event, MantissaLowBits) and event.width <= 4:
            counts.append(int(patterns[event.width][event.pattern]))
        elif isinstance(event, ExponentIs):
            counts.append(int(by_exponent.get(event.exponent, 0)))
        else:
            counts.append(int(np.count_nonzero(event.contains(y))))
    return counts


@dataclass(frozen=True)
class LatticeChoice:
    """The event chosen by :func:`find_lattice_event` (``swap``: the event has mass under b, none under a)."""

    event: LatticeEvent
    hits: int
    n: int
    swap: bool

    def describe(self) -> str:
        side = "b" if self.swap else "a"
        return f"{self.event.describe()} ({self.hits}/{self.n} search outputs under {side}, none under the other)"


def find_lattice_event(
    outputs_a: Any,
    outputs_b: Any,
    events: list[LatticeEvent] | None = None,
    queries: tuple[float, ...] | None = None,
) -> LatticeChoice | None:
    """Among ``events`` (default: :func:`default_events`, with reachability from each of ``queries``),
    the one with the most hits under one input and none under the other.

    Returns None when no event has that shape.  Use on search-stage samples only; bound the chosen
    event on fresh samples (selection on the same samples would bias the bound).
    """
    ya, yb = _as_doubles(outputs_a), _as_doubles(outputs_b)
    if events is None:
        events = default_events(np.concatenate([ya, yb]), queries=tuple(queries or ()))
    best: LatticeChoice | None = None
    for event, ha, hb in zip(events, hit_counts(ya, events), hit_counts(yb, events)):
        for hits, other, n, swap in ((ha, hb, ya.size, False), (hb, ha, yb.size, True)):
            if hits > 0 and other == 0 and (best is None or hits > best.hits):
                best = LatticeChoice(event=event, hits=hits, n=n, swap=swap)
    return best


def lattice_check(
    mechanism: Any,
    a: Any,
    b: Any,
    *,
    n_search: int = 5_000,
    n_verify: int = 95_000,
    seed: int = 0,
    confidence: float = 0.95,
    queries: tuple[float, float] | None = None,
) -> LeakFinding:
    """Black-box lattice audit of the pair (a, b): search an event, then bound it on fresh samples.

    Draws ``n_search`` outputs per side to pick the event (:func:`find_lattice_event`), then
    ``n_verify`` fresh outputs per side to count hits and bound them (Clopper-Pearson union bound
    at ``confidence``).  If ``queries`` = (q_a, q_b) is given and the chosen event is
    ``NotMultipleOf(p)`` with p <= k - 53 for 2^k <= |q| of the empty side, the lemma proves that
    side's probability is 0 for any mechanism releasing fl(q + noise) (the finding says so); the
    search then also tries :class:`NotReachableFrom` each query value, proved empty the same way.
    Without ``queries`` it tries :class:`NotReachableFrom` each of :func:`candidate_centres` of the
    search outputs instead, and proves nothing.
    """
    n_search, n_verify = check_positive_int("n_search", n_search), check_positive_int("n_verify", n_verify)
    check_probability_open("confidence", confidence)
    rng = np.random.default_rng(seed)
    search_a, search_b = _scalar_outputs(mechanism, a, n_search, rng), _scalar_outputs(mechanism, b, n_search, rng)
    centres = queries if queries is not None else candidate_centres(search_a) + candidate_centres(search_b)
    method = (
        f"search: {n_search} outputs per side, lattice event families (grids 2^p, significand low bits, "
        f"exponents, reachability from {'the query values' if queries is not None else 'centres estimated on them'}), "
        f"pick the event with most hits on one side and none on the other; verify: {n_verify} "
        f"fresh outputs per side, Clopper-Pearson union bound at confidence {confidence:g}"
    )
    choice = find_lattice_event(search_a, search_b, queries=tuple(centres))
    if choice is None:
        return finding_from_counts(
            check="lattice", claim=mechanism.claim, pair=(a, b), event="no lattice event separates the search samples",
            counts=(0, n_verify, 0, n_verify), confidence=confidence, proven_empty=False, method=method,
            why="", seed=seed,
        )
    verify_a, verify_b = _scalar_outputs(mechanism, a, n_verify, rng), _scalar_outputs(mechanism, b, n_verify, rng)
    if choice.swap:
        a, b, verify_a, verify_b = b, a, verify_b, verify_a
        queries = queries[::-1] if queries is not None else None
    inside_a, inside_b = choice.event.contains(verify_a), choice.event.contains(verify_b)
    proven = False
    if queries is not None and isinstance(choice.event, NotMultipleOf):
        grid = lemma_grid_power(queries[1])
        proven = grid is not None and choice.event.power <= grid
    if queries is not None and isinstance(choice.event, NotReachableFrom):
        proven = choice.event.query == float(queries[1])
    first = float(verify_a[np.argmax(inside_a)])
    witness = {"output": first, "output_hex": first.hex()} if inside_a.any() else {}
    if proven and isinstance(choice.event, NotReachableFrom):
        why = f"No double n gives fl({queries[1]!r} + n) in this set, so M(b) = fl(q_b + noise) never outputs it."
    elif proven:
        why = (
            f"By the ulp-lattice lemma every fl(q + n) with |q| >= 2^{math.frexp(queries[1])[1] - 1} is a multiple "
            f"of 2^{lemma_grid_power(queries[1])}, so outputs of M(b) never fall in it."
        )
    elif isinstance(choice.event, NotReachableFrom):
        why = (f"No double n gives fl({choice.event.query!r} + n) in this set, and {choice.event.query!r} was "
               "estimated from the search outputs as the centre of M(b) (not proved to be q_b).")
    else:
        why = "The binary representation of the output depends on the input."
    return finding_from_counts(
        check="lattice",
        claim=mechanism.claim,
        pair=(a, b),
        event=choice.event.describe(),
        counts=(int(inside_a.sum()), inside_a.size, int(inside_b.sum()), inside_b.size),
        confidence=confidence,
        proven_empty=proven,
        method=method,
        why=why,
        witness=witness,
        figures={"search": choice.describe()},
        seed=seed,
    )


def _scalar_outputs(mechanism: Any, data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
    out = np.asarray(mechanism.sample(data, n, rng))
    if out.shape != (n,):
        raise InvalidArgument(
            f"mechanism {getattr(mechanism, 'name', mechanism)!r} returned outputs of shape {out.shape[1:]}; "
            "the lattice check takes scalar outputs (use dpaudit.auditor.events.leaks.correlation for vectors)"
        )
    return out.astype(np.float64)
