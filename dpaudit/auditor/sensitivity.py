"""Sensitivity falsification: search neighbouring datasets with |f(D) - f(D')| > Delta.

A mechanism that adds noise calibrated to a declared sensitivity Delta is only as private as that
declaration: if some neighbours D ~ D' give ||f(D) - f(D')||_1 = r * Delta with r > 1, a Laplace
mechanism calibrated for epsilon is only (r * epsilon)-DP on that pair (Dwork & Roth 2014, Thm. 3.6,
read backwards).  Floating-point and fixed-width arithmetic break declared sensitivities in ways
no noise sampling is needed to see (Casacuberta et al. 2022, CCS: float sums exceed their
declared sensitivity through rounding at binade boundaries; int32 accumulators wrap around).

:func:`falsify_sensitivity` runs hypothesis over the neighbouring pairs of
:mod:`dpaudit.strategies`, evaluating only the deterministic statistic, and shrinks the first
counterexample to a minimal one.  The search is deterministic: ``derandomize=True`` (the examples
are a function of the test only), ``database=None``, a bounded number of examples and no deadline
(timing never decides the outcome).  ``hypothesis.target`` steers generation towards large ratios.
A pass means "no counterexample in this many examples", never a proof.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from .._validation import (
    check_nonnegative_finite,
    check_positive_finite,
    check_positive_int,
)
from ..errors import InvalidArgument
from ..mechanisms.base import Mechanism
from ..neighbours import AddRemove, QueryDistance, Replace

__all__ = ["SensitivityResult", "falsify_sensitivity", "run_length"]


def run_length(dataset: Any) -> list[list[Any]]:
    """[[value, count], ...] for consecutive runs of equal records (compact, JSON-ready)."""
    values = np.asarray(dataset).reshape(-1).tolist()
    runs: list[list[Any]] = []
    for v in values:
        if runs and runs[-1][0] == v:
            runs[-1][1] += 1
        else:
            runs.append([v, 1])
    return runs


def _describe(runs: list[list[Any]]) -> str:
    return " + ".join(f"[{v!r}]x{c}" if c > 1 else f"[{v!r}]" for v, c in runs) or "[]"


@dataclass(frozen=True)
class SensitivityResult:
    """The outcome of :func:`falsify_sensitivity`.

    Attributes
    ----------
    verdict : str
        ``"violation"`` (a neighbouring pair exceeds the declared sensitivity) or ``"pass"``.
    reason : str
        What was found, in one sentence.
    query : str
        The statistic's name.
    neighbours : dict
        The relation (``relation.as_dict()``).
    declared_sensitivity : float
    pair : tuple of two run-length lists
        The minimal counterexample (D, D') as [[value, count], ...]; empty on a pass.
    dtype : str
        The dtype of the records.
    f_a, f_b, difference, ratio : float
        f(D), f(D'), ||f(D) - f(D')||_1 (computed exactly) and difference / Delta.
    largest_ratio : float
        The largest ratio seen during the whole search (before shrinking).
    examples_tried : int
        How many pairs hypothesis evaluated (generation and shrinking).
    seconds : float
    method : str
    """

    verdict: str
    reason: str
    query: str
    neighbours: dict[str, Any]
    declared_sensitivity: float
    pair: tuple[list[list[Any]], list[list[Any]]] = ([], [])
    dtype: str = "float64"
    f_a: float = 0.0
    f_b: float = 0.0
    difference: float = 0.0
    ratio: float = 0.0
    largest_ratio: float = 0.0
    examples_tried: int = 0
    seconds: float = 0.0
    method: str = ""

    @property
    def flagged(self) -> bool:
        return self.verdict == "violation"

    def datasets(self) -> tuple[np.ndarray, np.ndarray]:
        """The counterexample pair rebuilt as arrays."""
        return tuple(  # type: ignore[return-value]
            np.concatenate([np.full(c, v, dtype=self.dtype) for v, c in runs]) if runs else np.empty(0, self.dtype)
            for runs in self.pair
        )

    def as_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__dataclass_fields__} | {"pair": list(self.pair)}


def _as_float(value: Any) -> float:
    array = np.asarray(value, dtype=np.float64)
    return float(array) if array.ndim == 0 else float(np.sum(np.abs(array)))


def falsify_sensitivity(
    target: Any,
    sensitivity: float | None = None,
    neighbours: Any = None,
    *,
    lo: float | None = None,
    hi: float | None = None,
    dtype: str | None = None,
    max_examples: int = 300,
    max_size: int = 32,
    max_repeat: int = 2**22,
    rtol: float = 0.0,
) -> SensitivityResult:
    """Search for neighbouring datasets breaking the declared sensitivity of a statistic.

    Parameters
    ----------
    target : Mechanism or callable
        A :class:`~dpaudit.Mechanism` declaring ``query`` and ``sensitivity`` (its ``neighbours``
        and ``domain`` are used unless given), or the statistic ``f(D)`` itself.
    sensitivity : float, optional
        The declared Delta (required for a plain callable).
    neighbours : AddRemove or Replace, optional
        The relation; defaults to the mechanism's, or ``AddRemove()``.
    lo, hi : float, optional
        Record bounds; default min and max of the mechanism's ``domain``, else [0, 1].
    dtype : str, optional
        ``float64``, ``float32``, ``int32`` or ``int64``; default ``int64`` for an all-integer
        domain, else ``float64``.
    max_examples, max_size, max_repeat : int
        Search budget, and the size limits of :func:`dpaudit.strategies.datasets`.
    rtol : float
        Tolerated relative excess: a violation needs ||f(D) - f(D')||_1 > Delta * (1 + rtol).

    Returns
    -------
    SensitivityResult
        With the shrunk (minimal) counterexample when one exists.
    """
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import target as hypothesis_target

    from ..strategies import assert_within_sensitivity, exact_gap, neighbouring_pairs

    query, delta, relation, low, high, kind = _resolve(target, sensitivity, neighbours, lo, hi, dtype)
    check_positive_int("max_examples", max_examples)
    check_nonnegative_finite("rtol", rtol)
    name = getattr(query, "__name__", type(query).__name__)
    seen = {"count": 0, "largest": 0.0, "last": None}

    @settings(
        max_examples=max_examples,
        derandomize=True,
        database=None,
        deadline=None,
        phases=(Phase.explicit, Phase.generate, Phase.shrink),
        suppress_health_check=list(HealthCheck),
        print_blob=False,
    )
    @given(neighbouring_pairs(relation, low, high, dtype=kind, max_size=max_size, max_repeat=max_repeat))
    def search(pair: tuple[np.ndarray, np.ndarray]) -> None:
        a, b = pair
        fa, fb = query(a), query(b)
        ratio = float(exact_gap(fa, fb) / Fraction(delta))
        seen["count"] += 1
        seen["largest"] = max(seen["largest"], ratio)
        seen["last"] = (a, b, fa, fb, ratio)
        hypothesis_target(ratio, label="|f(D) - f(D')| / Delta")
        assert_within_sensitivity(query, delta, a, b, rtol=rtol)

    started = time.perf_counter()
    failure: AssertionError | None = None
    try:
        search()
    except AssertionError as exc:  # hypothesis re-raises the minimal failing example last
        failure = exc
    seconds = round(time.perf_counter() - started, 3)
    method = (
        f"hypothesis (derandomize=True, database=None, no deadline, {max_examples} examples, shrinking) over "
        f"{relation} pairs of {kind} records in [{low:g}, {high:g}] (short lists, repeated blocks up to "
        f"{max_repeat} copies, accumulator edges); exact rational comparison with Delta * (1 + {rtol:g})"
    )
    common = dict(
        query=name,
        neighbours=relation.as_dict(),
        declared_sensitivity=delta,
        dtype=kind,
        largest_ratio=seen["largest"],
        examples_tried=seen["count"],
        seconds=seconds,
        method=method,
    )
    if failure is None:
        return SensitivityResult(
            verdict="pass",
            reason=f"no neighbouring pair among {seen['count']} exceeded Delta = {delta:g} (not a proof)",
            **common,
        )
    a, b, fa, fb, ratio = seen["last"]
    runs = (run_length(a), run_length(b))
    return SensitivityResult(
        verdict="violation",
        reason=(
            f"{name}: neighbours D = {_describe(runs[0])} and D' = {_describe(runs[1])} give "
            f"|f(D) - f(D')| = {ratio * delta:.9g} > declared Delta = {delta:g} (ratio {ratio:.9g}); noise "
            f"calibrated to Delta then gives at most epsilon/{ratio:.6g} of the promised protection on this pair"
        ),
        pair=runs,
        f_a=_as_float(fa),
        f_b=_as_float(fb),
        difference=ratio * delta,
        ratio=ratio,
        **common,
    )


def _resolve(
    target: Any, sensitivity: float | None, neighbours: Any, lo: float | None, hi: float | None, dtype: str | None
) -> tuple[Callable[[Any], Any], float, Any, float, float, str]:
    query = getattr(target, "query", None) if not _is_plain_callable(target) else target
    if not callable(query):
        raise InvalidArgument(f"target={target!r} must be a Mechanism declaring query, or the query callable")
    declared = sensitivity if sensitivity is not None else getattr(target, "sensitivity", None)
    if declared is None:
        raise InvalidArgument(f"sensitivity={sensitivity!r} must be given when the target declares none")
    delta = check_positive_finite("sensitivity", declared)
    relation = neighbours if neighbours is not None else getattr(target, "neighbours", None) or AddRemove()
    if isinstance(relation, QueryDistance) or not isinstance(relation, (AddRemove, Replace)):
        raise InvalidArgument(f"neighbours={relation!r} must be AddRemove() or Replace() for a dataset statistic")
    domain = [v for v in np.atleast_1d(np.asarray(getattr(target, "domain", None) or [], dtype=object)).tolist()]
    numeric = [v for v in domain if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)]
    low = float(lo) if lo is not None else (float(min(numeric)) if numeric else 0.0)
    high = float(hi) if hi is not None else (float(max(numeric)) if numeric else 1.0)
    if dtype is None:
        integral = numeric and all(float(v).is_integer() for v in numeric) and lo is None and hi is None
        dtype = "int64" if integral else "float64"
    return query, delta, relation, low, high, dtype


def _is_plain_callable(target: Any) -> bool:
    return callable(target) and not isinstance(target, Mechanism)
