"""Input handling shared by query-vector mechanisms: :mod:`.programs` and the gallery's noisy max and sparse vector."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import InvalidDataset


def query_vector(data: Any, k: int) -> np.ndarray:
    """``data`` as a float vector of exactly k finite query answers (the mechanism's input q)."""
    try:
        q = np.asarray(data, dtype=float)
    except (TypeError, ValueError):
        raise InvalidDataset(f"data={data!r} must be a vector of {k} query answers") from None
    if q.shape != (k,) or not np.all(np.isfinite(q)):
        raise InvalidDataset(f"data={data!r} must be a vector of {k} finite query answers, got shape {q.shape}")
    return q


def identity_query(data: Any) -> np.ndarray:
    """The statistic of a query-vector mechanism is its input: f(q) = q (sensitivity 1 per answer)."""
    return np.asarray(data, dtype=float)
