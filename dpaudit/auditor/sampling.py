"""Seeded, chunked sampling of a mechanism, with the time spent inside the mechanism recorded.

Randomness enters only here, through ``numpy.random.Generator`` objects built from one
``SeedSequence(seed)``.  The spawn tree is fixed, so one seed reproduces the whole audit::

    SeedSequence(seed)
      |- child 0: search stage      -> child i of it: candidate pair i (screening), last: event selection
      |                                  each with children 0 (side a) and 1 (side b)
      '- child 1: verification stage -> child 0: the Poisson sample sizes, child j + 1: verified pair j
                                         each with children 0 (side a) and 1 (side b)

Sampling runs in chunks of at most ``CHUNK_VALUES`` output values so memory stays bounded; the
verification stage never keeps samples, only hit counts (no Python loop over samples).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._validation import check_nonnegative_int
from ..errors import MechanismError
from ..mechanisms.base import Mechanism

__all__ = ["CHUNK_VALUES", "Clock", "draw", "fresh_seed", "generators", "count_hits", "stage_seeds"]

CHUNK_VALUES = 1 << 21


def fresh_seed() -> int:
    """A new seed from OS entropy (via ``SeedSequence``), small enough to print and retype."""
    return int(np.random.SeedSequence().generate_state(1, np.uint64)[0] >> np.uint64(1))


def stage_seeds(seed: int) -> tuple[np.random.SeedSequence, np.random.SeedSequence]:
    """The (search, verification) children of ``SeedSequence(seed)``."""
    search, verification = np.random.SeedSequence(check_nonnegative_int("seed", seed)).spawn(2)
    return search, verification


def generators(node: np.random.SeedSequence) -> tuple[np.random.Generator, np.random.Generator]:
    """Independent generators for side a and side b of one pair."""
    side_a, side_b = node.spawn(2)
    return np.random.default_rng(side_a), np.random.default_rng(side_b)


@dataclass
class Clock:
    """Accumulates the wall time spent inside the mechanism's sampler and the outputs' shape."""

    mechanism_s: float = 0.0
    output_shape: tuple[int, ...] | None = None
    dtype_kinds: set[str] = field(default_factory=set)

    def run(self, mechanism: Mechanism, data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        start = time.perf_counter()
        out = mechanism.sample(data, n, rng)
        self.mechanism_s += time.perf_counter() - start
        shape = tuple(out.shape[1:])
        if self.output_shape is None:
            self.output_shape = shape
        elif shape != self.output_shape and n > 0:
            raise MechanismError(
                f"mechanism {mechanism.name!r} returned outputs of varying shapes: {self.output_shape} "
                f"and {shape} (data={data!r})"
            )
        self.dtype_kinds.add(out.dtype.kind)
        return out


def _chunk_rows(clock: Clock) -> int:
    width = int(np.prod(clock.output_shape)) if clock.output_shape else 1
    return max(1, CHUNK_VALUES // max(1, width))


def draw(mechanism: Mechanism, data: Any, n: int, rng: np.random.Generator, clock: Clock) -> np.ndarray:
    """n outputs of ``mechanism`` on ``data`` as an (n, width) array (kept: search stage)."""
    parts = []
    done = 0
    while done < n:
        rows = min(n - done, _chunk_rows(clock) if clock.output_shape is not None else min(n, 4096))
        parts.append(_flat(clock.run(mechanism, data, rows, rng)))
        done += rows
    if not parts:
        return np.empty((0, 1))
    return np.concatenate(parts) if len(parts) > 1 else parts[0]


def count_hits(
    mechanism: Mechanism,
    data: Any,
    n: int,
    rng: np.random.Generator,
    clock: Clock,
    tests: Sequence[Callable[[np.ndarray], np.ndarray]],
) -> list[int]:
    """Draw n outputs in chunks and count, for each membership test, how many fall in its event."""
    hits = [0] * len(tests)
    done = 0
    while done < n:
        rows = min(n - done, _chunk_rows(clock))
        chunk = _flat(clock.run(mechanism, data, rows, rng))
        for i, test in enumerate(tests):
            hits[i] += int(np.count_nonzero(test(chunk)))
        done += rows
    return hits


def _flat(out: np.ndarray) -> np.ndarray:
    """Outputs as a 2-D array (samples x coordinates); booleans become 0/1."""
    if out.dtype.kind == "b":
        out = out.astype(np.int8)
    return out.reshape(out.shape[0], -1)
