"""Learned events: a classifier's posterior, thresholded, as the event (vector and mixed outputs).

DP-Sniper (Bichsel, Steffen, Bogunovic & Vechev, IEEE S&P 2021, Sect. IV) trains a classifier to
tell outputs of M(a) from outputs of M(b) and takes as event the set of outputs whose posterior
P[a | y] is above a threshold: the posterior is monotone in the likelihood ratio p_a(y) / p_b(y)
when the classifier is well calibrated, so its upper sets approximate the Neyman-Pearson sets that
maximise the privacy loss at a given mass.  Here:

1. **Features** (:class:`OutputFeatures`) turn an output row y of width w into a vector phi(y):

   * *flags and raw values* (DP-Sniper's ``FlagsFeatureTransformer``, ``dpsniper/classifiers/
     feature_transformer.py``): the values that recur as atoms in the search outputs (at most
     ``MAX_CODES``, each at least ``CODE_SHARE`` of all entries, :func:`.standard.code_values`: sparse vector's "below",
     "aborted" codes, 0/1 answers) get one indicator per coordinate, 1{y_i = v}, and the raw values
     keep only the other entries (a special entry reads 0);
   * *counts and first positions* (StatDP's post-processings, Ding, Wang, Wang, Zhang & Kifer, CCS
     2018, Sect. 5: the count of a value in the output): per special value v the number of
     coordinates equal to v and the index of the first one (w if none); for the other entries --
     the released noisy values, "answers" -- their count, the index of the first one and its value;
   * *order statistics* (sorted values, ascending, and the gaps between neighbours): the noisy-max
     and top-k outputs carry their information in the order and the gaps (Ding, Wang, Xiao, Wang,
     Zhang & Kifer, "Free gap information from the differentially private sparse vector and noisy
     max mechanisms", PVLDB 13(3), 2019).

2. **Model**: logistic regression (scikit-learn, imported when the family runs) on the
   standardised features; its log-odds w . z(phi(y)) + b is the score, monotone in the posterior.
   It is trained on every ``TRAIN_EVERY``-th search row (at most ``MAX_TRAIN`` per side); the
   thresholds of its score are scored on the other rows by the strict search bound, both
   directions, with no floor on the event's mass (DP-Sniper's c = 0.01 floor caps its bounds near
   ln 100 = 4.6) -- so the noise that trained the model never scores its events.  The best event of
   each direction joins the search.  A small perceptron (16 ReLU units) and gradient-boosted trees
   (scikit-learn's histogram boosting, 100 trees of 15 leaves) were measured on DP-Sniper's sparse
   vector rows (SVT1, SVT3, SVT4; 2 x 10^5 training rows per side): neither found a better event than
   the logistic regression (held-out strict bound equal or lower, e.g. SVT3: perceptron 0.060, trees
   0.065, logistic 0.092), at 5 to 50 times its training time, so only the logistic regression runs.

3. **Events** (:class:`LearnedThreshold`) hold the model as plain numbers -- the feature recipe
   (width, special values), the standardisation (mean, scale), the weights and the intercept -- so
   ``as_dict()`` is JSON and :func:`learned_event_from_dict` rebuilds the very same set (a
   checkpoint resumes on it; a worker process counts it).  Membership is vectorised numpy.

The event is then verified on fresh samples like every other event: the reported bound never
depends on how the classifier was trained or chosen.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from .family import Scored, Scorer, SearchContext
from .sets import WholeRowThreshold
from .standard import _finite, _Sorted, code_values, cut_events, held_out_blocks

__all__ = [
    "LearnedScore",
    "LearnedThreshold",
    "MAX_TRAIN",
    "MAX_TRAIN_VALUES",
    "TRAIN_EVERY",
    "OutputFeatures",
    "learned_event_from_dict",
    "LearnedFamily",
    "learned_events",
]

MAX_TRAIN = 200_000
MAX_TRAIN_VALUES = 20_000_000
TRAIN_EVERY = 4
SCORE_CHUNK = 65_536
PATTERN_TABLE = 1 << 20
SPECIAL_ROWS = 20_000
MAX_COORDINATE_FEATURES = 64
ORDER_STATISTICS = 16


@dataclass(frozen=True)
class OutputFeatures:
    """The feature map phi of the module docstring for rows of ``width`` coordinates.

    ``specials`` are the atom values with their own flags; per-coordinate features (raw values,
    flags) are kept for widths up to ``MAX_COORDINATE_FEATURES``; every order statistic up to width
    2 x ``ORDER_STATISTICS``, beyond that the ``ORDER_STATISTICS`` smallest and largest.
    """

    width: int
    specials: tuple[float, ...]

    @classmethod
    def fit(cls, rows: np.ndarray) -> "OutputFeatures":
        """The recipe for these rows: their codes (:func:`.standard.code_values`) are the specials."""
        return cls(int(rows.shape[1]), code_values(rows))

    def _order_positions(self) -> np.ndarray:
        if self.width <= 2 * ORDER_STATISTICS:
            return np.arange(self.width)
        return np.r_[np.arange(ORDER_STATISTICS), np.arange(self.width - ORDER_STATISTICS, self.width)]

    def names(self) -> list[str]:
        """One readable name per column of :meth:`matrix`, in order."""
        w = self.width
        per_coordinate = w <= MAX_COORDINATE_FEATURES
        names = [f"y{i}" for i in range(w)] if per_coordinate else []
        for v in self.specials:
            names += [f"[y{i} = {v:g}]" for i in range(w)] if per_coordinate else []
            names += [f"#{{y = {v:g}}}", f"first i: y_i = {v:g}"]
        names += ["#answers", "first answer index", "first answer value"]
        positions = self._order_positions()
        names += [f"sorted[{p}]" for p in positions]
        names += [f"gap sorted[{p + 1}] - sorted[{p}]" for p in positions if p + 1 < w]
        return names

    def matrix(self, rows: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """phi(y) for every row: an (n, len(names())) float array (written into ``out`` when given)."""
        x = _finite(rows).reshape(rows.shape[0], -1)
        n, w = x.shape
        special = np.zeros((n, w), dtype=bool)
        columns: list[np.ndarray] = []
        flags = []
        for v in self.specials:
            at = x == v
            special |= at
            flags.append(at)
        per_coordinate = w <= MAX_COORDINATE_FEATURES
        if per_coordinate:
            columns.append(np.where(special, 0.0, x))
        for at in flags:
            if per_coordinate:
                columns.append(at.astype(float))
            first = np.where(at.any(axis=1), at.argmax(axis=1), w)
            columns.append(np.c_[at.sum(axis=1), first].astype(float))
        answers = ~special
        first_answer = np.where(answers.any(axis=1), answers.argmax(axis=1), w)
        value = np.where(first_answer < w, x[np.arange(n), np.minimum(first_answer, w - 1)], 0.0)
        columns.append(np.c_[answers.sum(axis=1), first_answer, value].astype(float))
        ordered = np.sort(x, axis=1)
        positions = self._order_positions()
        columns.append(ordered[:, positions])
        inner = positions[positions + 1 < w]
        columns.append(ordered[:, inner + 1] - ordered[:, inner])
        if out is None:
            return np.hstack(columns)
        at = 0
        for column in columns:  # the blocks np.hstack would join, each copied once into its place
            block = column.reshape(n, -1)
            out[:, at:at + block.shape[1]] = block
            at += block.shape[1]
        return out

    def as_dict(self) -> dict[str, Any]:
        return {"width": self.width, "specials": list(self.specials)}


@dataclass(frozen=True)
class LearnedScore:
    """The logistic regression's log-odds w . z + b, z = (phi(y) - mean) / scale the standardised features."""

    features: OutputFeatures
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    intercept: float

    @cached_property
    def _folded(self) -> _Folded:
        return _Folded.of(self)

    @cached_property
    def _table(self) -> np.ndarray | None:
        """The score of every row of special values (sorted: s_0 < s_1 < ...), at index sum_i k_i K^i for
        y_i = s_(k_i), K specials; None when there are none or more than ``PATTERN_TABLE`` such rows."""
        specials, width = sorted(self.features.specials), self.features.width
        if not specials or len(specials) ** width > PATTERN_TABLE:
            return None
        digits = np.indices((len(specials),) * width).reshape(width, -1)[::-1].T  # digit i of every index
        return self.values(np.asarray(specials)[digits], table=False)

    def values(self, rows: np.ndarray, table: bool = True) -> np.ndarray:
        """The score of every row, computed ``SCORE_CHUNK`` rows at a time without the feature matrix
        (:class:`_Folded`: the same linear function of phi(y), its terms gathered per coordinate).

        Rows of special values only are looked up in :attr:`_table` (computed by the same function once):
        the sparse vector's and RAPPOR's outputs are all such rows.
        """
        folded, lookup = self._folded, self._table if table else None
        out = np.empty(rows.shape[0])
        for start in range(0, rows.shape[0], SCORE_CHUNK):
            part = rows[start:start + SCORE_CHUNK]
            index = None if lookup is None else self._index(part)
            if index is None:
                out[start:start + SCORE_CHUNK] = folded.score(part)
                continue
            pure = index >= 0
            scores = lookup[np.where(pure, index, 0)]
            if not pure.all():
                scores[~pure] = folded.score(part[~pure])
            out[start:start + SCORE_CHUNK] = scores
        return out

    def _index(self, rows: np.ndarray) -> np.ndarray:
        """Each row's index in :attr:`_table`, -1 for a row with a value that is not special."""
        specials = sorted(self.features.specials)
        columns = np.asarray(rows, dtype=float).reshape(rows.shape[0], -1).T
        index = np.zeros(columns.shape[1], dtype=np.int64)
        pure = np.ones(columns.shape[1], dtype=bool)
        for i, column in enumerate(columns):
            place, seen = len(specials) ** i, np.zeros(column.size, dtype=bool)
            for k, v in enumerate(specials):
                at = column == v
                seen |= at
                if k:
                    index += at * (k * place)
            pure &= seen
        return np.where(pure, index, -1)

    def top_features(self, count: int = 3) -> list[str]:
        """The features with the largest |w_j| (on standardised features: comparable across features)."""
        names = self.features.names()
        return [names[j] for j in np.argsort(-np.abs(np.asarray(self.weights)), kind="stable")[:count]]

    def as_dict(self) -> dict[str, Any]:
        return {
            "model": "logistic",
            "features": self.features.as_dict(),
            "mean": list(self.mean),
            "scale": list(self.scale),
            "weights": list(self.weights),
            "intercept": self.intercept,
        }

    @classmethod
    def from_dict(cls, spec: dict[str, Any]) -> "LearnedScore":
        features = OutputFeatures(int(spec["features"]["width"]), tuple(float(v) for v in spec["features"]["specials"]))
        return cls(features, tuple(float(v) for v in spec["mean"]), tuple(float(v) for v in spec["scale"]),
                   tuple(float(v) for v in spec["weights"]), float(spec["intercept"]))


@dataclass(frozen=True)
class _Folded:
    """A :class:`LearnedScore` as coefficients on the parts of phi(y) that are computed per row.

    The score is sum_j c_j phi_j(y) + c_0 with c_j = w_j / scale_j and c_0 = b - sum_j c_j mean_j.  The
    columns that are sums of per-coordinate terms fold into per-coordinate coefficients: a value's count
    #{y = v} = sum_i [y_i = v] into the flags' coefficients, the number of answers w - sum_v #{y = v} into
    them and the constant, the gap sorted[p + 1] - sorted[p] into the coefficients of the sorted row.  So
    no (rows x features) matrix is built: the special values' indicators, the cleaned row and the sorted
    row each meet one coefficient vector, and the first positions are computed as in
    :meth:`OutputFeatures.matrix`.  Each sum runs along a row (numpy's pairwise sum), so a row's score
    does not depend on the rows beside it.
    """

    specials: tuple[float, ...]
    raw: np.ndarray | None  # (w,) on the cleaned row, None beyond MAX_COORDINATE_FEATURES
    flags: np.ndarray  # (specials, w) on the indicators [y_i = v]
    firsts: np.ndarray  # (specials,) on the first index of each special value
    first_answer: float
    first_value: float
    ordered: np.ndarray  # (w,) on the row sorted ascending
    constant: float

    @classmethod
    def of(cls, learned: LearnedScore) -> _Folded:
        features = learned.features
        w, specials = features.width, features.specials
        c = np.asarray(learned.weights) / np.asarray(learned.scale)
        constant = learned.intercept - float(np.sum(c * np.asarray(learned.mean)))
        at = 0
        per_coordinate = w <= MAX_COORDINATE_FEATURES
        raw = None
        if per_coordinate:
            raw, at = c[:w].copy(), w
        flags, firsts = np.zeros((len(specials), w)), np.zeros(len(specials))
        for k in range(len(specials)):
            if per_coordinate:
                flags[k] += c[at:at + w]
                at += w
            flags[k] += c[at]  # the count
            firsts[k] = c[at + 1]
            at += 2
        answers, first_answer, first_value = c[at:at + 3]
        at += 3
        flags -= answers  # answers = w - sum_v #{y = v}
        constant += answers * w
        ordered = np.zeros(w)
        positions = features._order_positions()
        ordered[positions] += c[at:at + positions.size]
        at += positions.size
        for p in positions[positions + 1 < w]:
            ordered[p + 1] += c[at]
            ordered[p] -= c[at]
            at += 1
        return cls(specials, raw, flags, firsts, float(first_answer), float(first_value), ordered, float(constant))

    def score(self, rows: np.ndarray) -> np.ndarray:
        """The score of each row: phi's parts computed on the transposed rows (one coordinate of every row at
        a time, in coordinate order, so each sum runs in the same order whatever the rows beside it)."""
        x = _finite(rows).reshape(rows.shape[0], -1)
        columns = np.ascontiguousarray(x.T)  # (w, n)
        w, n = columns.shape
        total = np.full(n, self.constant)
        special = np.zeros((w, n), dtype=bool)
        counts = []
        for v, flag, first in zip(self.specials, self.flags, self.firsts):
            at = columns == v
            special |= at
            total += _weighted(at, flag)
            total += first * _first(at)
            counts.append(at.sum(axis=0))
        if self.raw is not None:
            total += _weighted(np.where(special, 0.0, columns), self.raw)
        answers = ~special
        first_answer = _first(answers)
        mixed = first_answer < w
        value = np.where(mixed, columns[np.minimum(first_answer, w - 1), np.arange(n)], 0.0)
        total += self.first_answer * first_answer + self.first_value * value
        if mixed.all():  # sorted along the rows, where each row's values lie together
            total += _weighted(np.sort(x, axis=1).T, self.ordered)
        elif mixed.any():
            total[mixed] += _weighted(np.sort(x[mixed], axis=1).T, self.ordered)
        if not mixed.all():
            # A row of special values only, sorted, is each value repeated its count times, in ascending order:
            # sum_k s_k (D[C_k] - D[C_(k-1)]) with C_k the cumulative counts and D the cumulative coefficients.
            cumulative = np.r_[0.0, np.cumsum(self.ordered)]
            below = np.zeros(n, dtype=np.int64)
            part = np.zeros(n)
            for k in np.argsort(self.specials, kind="stable"):
                upto = below + counts[k]
                part += self.specials[k] * (cumulative[upto] - cumulative[below])
                below = upto
            total += np.where(mixed, 0.0, part)
        return total


def _weighted(columns: np.ndarray, coefficients: np.ndarray) -> np.ndarray:
    """sum_i coefficients[i] columns[i], added in coordinate order (columns: (w, n))."""
    out = np.zeros(columns.shape[1])
    for column, c in zip(columns, coefficients):
        if c:
            out += c * column
    return out


def _first(at: np.ndarray) -> np.ndarray:
    """The first coordinate where ``at`` (w, n) holds, per row; w where it holds nowhere."""
    return np.where(at.any(axis=0), at.argmax(axis=0), at.shape[0])


@dataclass(frozen=True)
class LearnedThreshold(WholeRowThreshold):
    """``score(y) <= t`` (``upper=True``) or ``score(y) > t`` (``upper=False``) for a :class:`LearnedScore`."""

    score: LearnedScore
    t: float
    upper: bool

    def row_scores(self, rows: np.ndarray) -> np.ndarray:
        return self.score.values(rows)

    def describe(self) -> str:
        side = "<=" if self.upper else ">"
        return (f"logistic regression score {side} {self.t:.6g} ({len(self.score.weights)} features, strongest: "
                f"{', '.join(self.score.top_features())})")

    def as_dict(self) -> dict[str, Any]:
        return {"type": "learned", "score": self.score.as_dict(), "t": self.t, "upper": self.upper}


def learned_event_from_dict(spec: dict[str, Any]) -> LearnedThreshold:
    """Inverse of :meth:`LearnedThreshold.as_dict`."""
    return LearnedThreshold(LearnedScore.from_dict(spec["score"]), float(spec["t"]), bool(spec["upper"]))


STD_BLOCK = 4096


def _standard_deviations(x: np.ndarray, mean: np.ndarray) -> np.ndarray:
    """``x.std(axis=0)`` given ``mean = x.mean(axis=0)``: numpy's own formula sqrt(sum_i (x_i - mean)^2 / n) with
    its order of summation (row after row), in blocks of ``STD_BLOCK`` rows instead of a deviation matrix the size
    of ``x`` (5 x 10^5 rows of 100 features: 0.15 s against 1.06 s; tests/auditor/events/test_learned.py checks
    the two agree bit for bit)."""
    total = np.zeros(x.shape[1])
    for start in range(0, x.shape[0], STD_BLOCK):
        deviation = x[start:start + STD_BLOCK] - mean
        deviation *= deviation
        total = np.add.reduce(np.vstack([total[None], deviation]), axis=0)
    return np.sqrt(total / x.shape[0])


def _train(features: OutputFeatures, x: np.ndarray, rows_a: int) -> LearnedScore | None:
    """Logistic regression (L-BFGS, L2 penalty C = 1) of label 1 for the first ``rows_a`` rows of the feature
    matrix ``x`` (side a) against 0 for the others, on standardised features (``x`` is standardised in place);
    None when a coefficient is not finite."""
    from sklearn.linear_model import LogisticRegression

    y = np.r_[np.ones(rows_a), np.zeros(x.shape[0] - rows_a)]
    mean = x.mean(axis=0)
    scale = _standard_deviations(x, mean)
    scale[~(scale > 0)] = 1.0
    x -= mean
    x /= scale
    with warnings.catch_warnings():  # a fit stopped at its iteration cap is still a candidate: its event is verified
        warnings.simplefilter("ignore", category=UserWarning)
        fitted = LogisticRegression(C=1.0, max_iter=100).fit(x, y)
    weights, intercept = fitted.coef_[0], float(fitted.intercept_[0])
    if not (np.all(np.isfinite(weights)) and math.isfinite(intercept)):
        return None
    return LearnedScore(features, tuple(float(v) for v in mean), tuple(float(v) for v in scale),
                        tuple(float(v) for v in weights), intercept)


def _thresholded(learned: LearnedScore, rows_a: np.ndarray, rows_b: np.ndarray, score: Scorer) -> list[Scored]:
    """The best threshold of ``learned``'s score in each direction, scored on the held-out rows (all but every
    ``TRAIN_EVERY``-th, :func:`.standard.held_out_blocks`)."""
    f = _Sorted.of(*(_held_out_scores(learned, rows) for rows in (rows_a, rows_b)))
    return cut_events("learned", lambda t, upper: LearnedThreshold(learned, t, upper), f, score)


def _held_out_scores(learned: LearnedScore, rows: np.ndarray) -> np.ndarray:
    parts = [learned.values(block) for block in held_out_blocks(rows, TRAIN_EVERY, SCORE_CHUNK)]
    return np.concatenate(parts) if parts else np.empty(0)


def learned_events(rows_a: np.ndarray, rows_b: np.ndarray, score: Scorer) -> tuple[list[Scored], list[str]]:
    """The learned events of one pair's search rows (best threshold per direction) and a note on the fit.

    Trained on the rows whose index is a multiple of ``TRAIN_EVERY`` (at most ``MAX_TRAIN`` per
    side, and at most ``MAX_TRAIN_VALUES`` feature values: wide outputs train on fewer rows; the
    special values are read off the first ``SPECIAL_ROWS`` of them), thresholded and scored on all
    the rows whose index is not a multiple of ``TRAIN_EVERY`` with the strict search bound ``score``.
    Only vector outputs (width >= 2) are learned on: for scalar outputs the thresholds and ratio-ordered
    sets of :mod:`.standard` already are the Neyman-Pearson sets of monotone ratios.
    """
    rows_a, rows_b = np.asarray(rows_a), np.asarray(rows_b)
    if rows_a.ndim != 2 or rows_a.shape[1] < 2 or min(rows_a.shape[0], rows_b.shape[0]) < 2 * TRAIN_EVERY:
        return [], []
    features = OutputFeatures.fit(np.vstack([rows[0::TRAIN_EVERY][:SPECIAL_ROWS] for rows in (rows_a, rows_b)]))
    cap = max(1_000, min(MAX_TRAIN, MAX_TRAIN_VALUES // len(features.names())))
    fit_a, fit_b = rows_a[0::TRAIN_EVERY][:cap], rows_b[0::TRAIN_EVERY][:cap]
    phi = np.empty((fit_a.shape[0] + fit_b.shape[0], len(features.names())))  # both sides' features, a's first
    features.matrix(fit_a, out=phi[:fit_a.shape[0]])
    features.matrix(fit_b, out=phi[fit_a.shape[0]:])
    learned = _train(features, phi, fit_a.shape[0])
    found = [] if learned is None else _thresholded(learned, rows_a, rows_b, score)
    held = [rows.shape[0] - len(range(0, rows.shape[0], TRAIN_EVERY)) for rows in (rows_a, rows_b)]
    note = (f"learned events: logistic regression on {len(features.names())} features of {fit_a.shape[0]} + "
            f"{fit_b.shape[0]} search rows, thresholds on {held[0]} + {held[1]} others")
    return [s for s in found if math.isfinite(s.objective)], [note]


class LearnedFamily:
    """:func:`learned_events` as an :class:`.family.EventFamily`: on vector outputs without label codes
    (label codes are hashes, not quantities a linear score could weigh), when ``learned`` was asked for.

    It runs on the chosen pair only: training a classifier per pair and screening round would multiply
    the screening's cost.
    """

    name = "learned"
    implementation = False
    event_types = ("learned",)

    def enabled(self, context: SearchContext) -> bool:
        return context.learned and not context.categorical

    def search(self, rows_a: np.ndarray, rows_b: np.ndarray, context: SearchContext) -> tuple[list[Scored], list[str]]:
        return learned_events(rows_a, rows_b, context.score)

    def screen(self, rows_a: np.ndarray, rows_b: np.ndarray, context: SearchContext) -> list:
        return []

    def event_from_dict(self, spec: dict[str, Any], noise: Any = None) -> LearnedThreshold:
        return learned_event_from_dict(spec)
