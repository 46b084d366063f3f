"""Learned events: a classifier's posterior, thresholded, as the event (vector and mixed outputs).

DP-Sniper (Bichsel, Steffen, Bogunovic & Vechev, IEEE S&P 2021, Sect. IV) trains a classifier to
tell outputs of M(a) from outputs of M(b) and takes as event the set of outputs whose posterior
P[a | y] is above a threshold: the posterior is monotone in the likelihood ratio p_a(y) / p_b(y)
when the classifier is well calibrated, so its upper sets approximate the Neyman-Pearson sets that
maximise the privacy loss at a given mass.  Here:

1. **Features** (:class:`OutputFeatures`) turn an output row y of width w into a vector phi(y):

   * *flags and raw values* (DP-Sniper's ``FlagsFeatureTransformer``, ``dpsniper/classifiers/
     feature_transformer.py``): the values that recur as atoms in the search outputs (at most
     ``MAX_SPECIALS``, each at least ``SPECIAL_SHARE`` of all entries: sparse vector's "below",
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

2. **Models** (scikit-learn, imported when the family runs): logistic regression on the standardised
   features (its log-odds w . z(phi(y)) + b is the score), and a small multi-layer perceptron
   (``MLP_HIDDEN`` ReLU units; its output logit is the score).  Each model is trained on the
   even-indexed search rows (at most ``MAX_TRAIN`` per side); the thresholds of its score are
   scored on the odd-indexed rows by the strict search bound, both directions, with no floor on the
   event's mass (DP-Sniper's c = 0.01 floor caps its bounds near ln 100 = 4.6) -- so the noise
   that trained a model never scores its events.  The best event of each model joins the search.

3. **Events** (:class:`LearnedThreshold`) hold the model as plain numbers -- the feature recipe
   (width, special values), the standardisation (mean, scale), the weights and biases -- so
   ``as_dict()`` is JSON and :func:`learned_event_from_dict` rebuilds the very same set (a
   checkpoint resumes on it; a worker process counts it).  Membership is vectorised numpy.

The event is then verified on fresh samples like every other event: the reported bound never
depends on how the classifier was trained or chosen.
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from .search import Scored, Scorer, _best, _cuts, _Sorted

__all__ = [
    "LearnedScore",
    "LearnedThreshold",
    "MAX_TRAIN",
    "OutputFeatures",
    "learned_event_from_dict",
    "learned_events",
]

MAX_TRAIN = 200_000
MAX_SPECIALS = 4
SPECIAL_SHARE = 0.01
MAX_COORDINATE_FEATURES = 64
ORDER_STATISTICS = 16
MLP_HIDDEN = 16
MODELS = ("logistic", "mlp")


def _finite(rows: np.ndarray) -> np.ndarray:
    return np.nan_to_num(np.asarray(rows, dtype=float), nan=0.0, posinf=0.0, neginf=0.0)


@dataclass(frozen=True)
class OutputFeatures:
    """The feature map phi of the module docstring for rows of ``width`` coordinates.

    ``specials`` are the atom values with their own flags; per-coordinate features (raw values,
    flags) are kept for widths up to ``MAX_COORDINATE_FEATURES``, the order statistics for the
    ``ORDER_STATISTICS`` smallest and largest values beyond that.
    """

    width: int
    specials: tuple[float, ...]

    @classmethod
    def fit(cls, rows: np.ndarray) -> "OutputFeatures":
        """The recipe for these rows: the values making up at least ``SPECIAL_SHARE`` of all entries."""
        values, counts = np.unique(_finite(rows), return_counts=True)
        common = np.argsort(-counts, kind="stable")[:MAX_SPECIALS]
        chosen = [float(values[i]) for i in common if counts[i] >= SPECIAL_SHARE * rows.size]
        return cls(int(rows.shape[1]), tuple(sorted(chosen)))

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

    def matrix(self, rows: np.ndarray) -> np.ndarray:
        """phi(y) for every row: an (n, len(names())) float array."""
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
        return np.hstack(columns)

    def as_dict(self) -> dict[str, Any]:
        return {"width": self.width, "specials": list(self.specials)}


@dataclass(frozen=True)
class LearnedScore:
    """score(y) = layers applied to z = (phi(y) - mean) / scale: ReLU between layers, none after the last.

    ``layers`` is a tuple of (weights, biases), weights as rows (one per input); logistic regression
    is a single layer of one output (its log-odds), the perceptron two.
    """

    model: str
    features: OutputFeatures
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    layers: tuple[tuple[tuple[tuple[float, ...], ...], tuple[float, ...]], ...]

    def values(self, rows: np.ndarray) -> np.ndarray:
        z = (self.features.matrix(rows) - np.asarray(self.mean)) / np.asarray(self.scale)
        for k, (weights, biases) in enumerate(self.layers):
            z = z @ np.asarray(weights) + np.asarray(biases)
            if k + 1 < len(self.layers):
                z = np.maximum(z, 0.0)
        return z[:, 0]

    def top_features(self, count: int = 3) -> list[str]:
        """The features with the largest weights (logistic regression: |w_j|, on standardised features)."""
        weights = np.abs(np.asarray(self.layers[0][0]))
        strength = weights[:, 0] if len(self.layers) == 1 else weights.sum(axis=1)
        names = self.features.names()
        return [names[j] for j in np.argsort(-strength, kind="stable")[:count]]

    def as_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "features": self.features.as_dict(),
            "mean": list(self.mean),
            "scale": list(self.scale),
            "layers": [{"weights": [list(r) for r in w], "biases": list(b)} for w, b in self.layers],
        }

    @classmethod
    def from_dict(cls, spec: dict[str, Any]) -> "LearnedScore":
        features = OutputFeatures(int(spec["features"]["width"]), tuple(float(v) for v in spec["features"]["specials"]))
        layers = tuple(
            (tuple(tuple(float(v) for v in r) for r in layer["weights"]), tuple(float(v) for v in layer["biases"]))
            for layer in spec["layers"]
        )
        return cls(str(spec["model"]), features, tuple(float(v) for v in spec["mean"]),
                   tuple(float(v) for v in spec["scale"]), layers)


@dataclass(frozen=True)
class LearnedThreshold:
    """``score(y) <= t`` (``upper=True``) or ``score(y) > t`` (``upper=False``) for a :class:`LearnedScore`."""

    score: LearnedScore
    t: float
    upper: bool

    def contains(self, rows: np.ndarray) -> np.ndarray:
        s = self.score.values(np.asarray(rows).reshape(np.asarray(rows).shape[0], -1))
        return s <= self.t if self.upper else s > self.t

    def describe(self) -> str:
        label = "logistic regression" if self.score.model == "logistic" else f"perceptron ({MLP_HIDDEN} ReLU)"
        side = "<=" if self.upper else ">"
        return (f"{label} score {side} {self.t:.6g} (features {len(self.score.mean)}, strongest: "
                f"{', '.join(self.score.top_features())})")

    def as_dict(self) -> dict[str, Any]:
        return {"type": "learned", "score": self.score.as_dict(), "t": self.t, "upper": self.upper}


def learned_event_from_dict(spec: dict[str, Any]) -> LearnedThreshold:
    """Inverse of :meth:`LearnedThreshold.as_dict`."""
    return LearnedThreshold(LearnedScore.from_dict(spec["score"]), float(spec["t"]), bool(spec["upper"]))


def _fit(model: str, z: np.ndarray, y: np.ndarray, seed: int) -> Any:
    """The scikit-learn model, fitted (logistic regression: L-BFGS, L2 penalty C = 1; perceptron: Adam)."""
    if model == "logistic":
        from sklearn.linear_model import LogisticRegression

        return LogisticRegression(C=1.0, max_iter=300, tol=1e-6).fit(z, y)
    from sklearn.neural_network import MLPClassifier

    return MLPClassifier(hidden_layer_sizes=(MLP_HIDDEN,), alpha=1e-4, batch_size=1024, max_iter=20,
                         n_iter_no_change=3, tol=1e-5, random_state=seed).fit(z, y)


def _train(model: str, features: OutputFeatures, phi_a: np.ndarray, phi_b: np.ndarray, seed: int) -> LearnedScore | None:
    """Fit ``model`` to tell phi_a (label 1) from phi_b (label 0); None when the fit is degenerate."""
    x = np.vstack([phi_a, phi_b])
    y = np.r_[np.ones(phi_a.shape[0]), np.zeros(phi_b.shape[0])]
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[~(scale > 0)] = 1.0
    z = (x - mean) / scale
    with warnings.catch_warnings():  # a fit stopped at its iteration cap is still a candidate: its event is verified
        warnings.simplefilter("ignore", category=UserWarning)
        fitted = _fit(model, z, y, seed)
    if model == "logistic":
        layers = ((tuple((float(v),) for v in fitted.coef_[0]), (float(fitted.intercept_[0]),)),)
    else:
        layers = tuple((tuple(tuple(float(v) for v in row) for row in w), tuple(float(v) for v in b))
                       for w, b in zip(fitted.coefs_, fitted.intercepts_))
    learned = LearnedScore(model, features, tuple(float(v) for v in mean), tuple(float(v) for v in scale), layers)
    flat = np.asarray(learned.layers[-1][0])
    return learned if np.all(np.isfinite(flat)) else None


def _thresholded(learned: LearnedScore, held_a: np.ndarray, held_b: np.ndarray, score: Scorer) -> list[Scored]:
    """The best threshold of ``learned``'s score in each direction, scored on the held-out rows."""
    f = _Sorted.of(learned.values(held_a), learned.values(held_b))
    cuts = _cuts(f.unique)[:-1]
    if cuts.size == 0:
        return []
    ka = np.searchsorted(f.sa, cuts, side="right")
    kb = np.searchsorted(f.sb, cuts, side="right")
    na, nb = f.sa.size, f.sb.size
    family = f"learned ({learned.model})"
    low = _best(family, lambda i: LearnedThreshold(learned, float(cuts[i]), True), ka, kb, na, nb, score)
    high = _best(family, lambda i: LearnedThreshold(learned, float(cuts[i]), False), na - ka, nb - kb, na, nb, score)
    return low + high


def learned_events(
    rows_a: np.ndarray, rows_b: np.ndarray, score: Scorer, models: tuple[str, ...] = MODELS, seed: int = 0
) -> tuple[list[Scored], list[str]]:
    """The learned events of every model in ``models`` on one pair's search rows, and timing notes.

    Trained on the even-indexed rows (the first ``MAX_TRAIN`` of them per side), thresholded and
    scored on the odd-indexed rows with the strict search bound ``score``.  Only vector outputs
    (width >= 2) with at least two distinct rows are learned on: for scalar outputs the thresholds
    and ratio-ordered sets of :mod:`.search` already are the Neyman-Pearson sets of monotone ratios.
    ``seed`` fixes the perceptron's initialisation and batches, so the search stays reproducible.
    """
    rows_a, rows_b = np.asarray(rows_a), np.asarray(rows_b)
    if rows_a.ndim != 2 or rows_a.shape[1] < 2 or rows_a.shape[0] < 4 or rows_b.shape[0] < 4:
        return [], []
    fit_a, fit_b = rows_a[0::2][:MAX_TRAIN], rows_b[0::2][:MAX_TRAIN]
    held_a, held_b = rows_a[1::2], rows_b[1::2]
    features = OutputFeatures.fit(np.vstack([fit_a, fit_b]))
    phi_a, phi_b = features.matrix(fit_a), features.matrix(fit_b)
    if np.array_equal(phi_a.min(axis=0), phi_a.max(axis=0)) and np.array_equal(phi_b.min(axis=0), phi_b.max(axis=0)):
        return [], []
    found: list[Scored] = []
    notes = []
    for model in models:
        started = time.perf_counter()
        learned = _train(model, features, phi_a, phi_b, seed)
        if learned is not None:
            found += _thresholded(learned, held_a, held_b, score)
        notes.append(f"learned events ({model}): trained on {fit_a.shape[0]} + {fit_b.shape[0]} rows, "
                     f"{len(features.names())} features, {time.perf_counter() - started:.1f} s")
    found = [s for s in found if math.isfinite(s.objective)]
    return found, notes
