"""Seeded, chunked sampling of a mechanism on an executor, with the time spent inside the mechanism recorded.

Randomness enters only here, through ``numpy.random.Generator`` objects built from nodes of one
``SeedSequence(seed)`` spawn tree.  Every draw has a fixed address (its spawn key, the path from the
root), so one seed reproduces the whole audit whatever executes it::

    SeedSequence(seed)
      |- (0, 0, r, i, s, c)  search stage, pair screening: round r, candidate pair i, side s, chunk c
      |- (0, 1, s, c)        search stage, event selection on the chosen pair: side s, chunk c
      |- (1, 0, j)           verification: the Poisson sample sizes of batch j (both sides)
      |- (1, 1, j, s, c)     verification: batch j, side s, chunk c
      |- (2,)                one probe output (its shape fixes the chunk sizes)
      |- (3, 0, s, c)        probabilistic-DP bad-set test: search samples, side s, chunk c (:mod:`.probabilistic`)
      |- (3, 1, s, c)        probabilistic-DP bad-set test: verification, side s of the ordered pair, chunk c
      |- (3, 2)              probabilistic-DP bad-set test: the Poisson sample sizes
      |- (4,)                side-channel findings: the runs of M(a) an example in the event is taken from
      '- (5,)                side-channel findings: the runs of M(b) whose side channel is swapped in

Side s is 0 for input a and 1 for input b.  Chunk c of a stream of n draws has the rows given by
:func:`.executors.chunk_sizes` (a function of n and the output width only), so chunk outputs do not
depend on the executor.  The verification stage keeps hit counts only.

Outputs that are not plain numbers (labels, booleans, dicts) arrive encoded; ``Draws.coding`` merges
the :class:`~dpaudit.mechanisms.outputs.OutputCoding` of every chunk (coordinate kinds, dict keys and
the labels of the search chunks), so the search treats label coordinates as sets of atoms and the
report names labels and keys.  Codes are a function of the label alone, so chunks agree on them
wherever they ran.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..._validation import check_nonnegative_int, short_repr
from ...errors import MechanismError
from ...mechanisms.base import Mechanism
from ...mechanisms.outputs import SHAPE_HINT
from .checkpoint import Checkpoint
from .executors import CHUNK_VALUES, ChunkResult, ChunkTask, MechanismRef, chunk_rows, chunk_sizes

__all__ = ["CHUNK_VALUES", "Draws", "TimeLimitReached", "fresh_seed", "generator"]


def fresh_seed() -> int:
    """A new seed from OS entropy (via ``SeedSequence``), small enough to print and retype."""
    return int(np.random.SeedSequence().generate_state(1, np.uint64)[0] >> np.uint64(1))


def generator(seed: int, key: tuple[int, ...]) -> np.random.Generator:
    """The generator at address ``key`` of the spawn tree of ``SeedSequence(seed)``."""
    return np.random.default_rng(np.random.SeedSequence(check_nonnegative_int("seed", seed), spawn_key=key))


@dataclass(frozen=True)
class Deadline:
    """An audit's ``time_limit``: ``seconds`` after the monotonic clock read ``started``."""

    seconds: float
    started: float

    def remaining(self) -> float:
        return self.started + self.seconds - time.monotonic()


class TimeLimitReached(Exception):
    """The audit's time limit passed while chunks were in flight (raised by :class:`Draws`; the stages decide what
    the finished work supports).  ``in_flight`` is the first chunk not finished: the data and seed a hanging
    mechanism call would be found on."""

    def __init__(self, limit: float, in_flight: ChunkTask | None, seed: int) -> None:
        self.limit, self.in_flight, self.seed = limit, in_flight, seed
        super().__init__(self.describe())

    def describe(self) -> str:
        """``the time limit of S s passed with R runs on data D in flight (seed S, spawn key K)``."""
        text = f"the time limit of {self.limit:g} s passed"
        task = self.in_flight
        if task is None:
            return text
        return (f"{text} with {task.rows} runs on data {short_repr(task.data, 80)} in flight (seed {self.seed}, "
                f"spawn key {'.'.join(map(str, task.key))}: a call that hangs, hangs on them)")


class Draws:
    """Runs an audit's chunks on ``executor`` and collects outputs (search) or hit counts (verification).

    One output of ``probe_input`` is drawn first (address ``(2,)``): its width fixes the chunk sizes.
    ``progress`` is called with the number of rows each finished chunk drew.  With a ``deadline`` the
    executor's results are awaited until it passes only: then :class:`TimeLimitReached` names the chunk in
    flight, and every later round raises it at once (``expired``); a chunk still running is abandoned, not
    waited for (:meth:`_timed`).
    """

    def __init__(
        self,
        mechanism: Mechanism,
        ref: MechanismRef | None,
        executor: Any,
        seed: int,
        probe_input: Any,
        *,
        checkpoint: Checkpoint | None = None,
        progress: Callable[[int], None] | None = None,
        deadline: Deadline | None = None,
    ) -> None:
        self.mechanism, self.ref, self.executor, self.seed = mechanism, ref, executor, seed
        self.deadline = deadline
        self.expired: TimeLimitReached | None = None
        self.checkpoint = checkpoint
        self.progress = progress or (lambda rows: None)
        self.mechanism_s = 0.0
        self.waited_s = 0.0
        self.draws = 0
        self.output_shape: tuple[int, ...] | None = None
        self.dtype_kinds: set[str] = set()
        drawn = mechanism.draw(probe_input, 1, generator(seed, (2,)))
        self.coding = drawn.coding
        probe = drawn.values
        self.width = int(np.prod(probe.shape[1:])) if probe.ndim > 1 else 1

    def _absorb(self, result: ChunkResult) -> None:
        self.mechanism_s += result.mechanism_s
        self.draws += result.rows
        if result.rows:
            if self.output_shape is None:
                self.output_shape = result.shape
            elif result.shape != self.output_shape:
                raise MechanismError(
                    f"mechanism {self.mechanism.name!r} returned outputs of varying shapes: "
                    f"{self.output_shape} and {result.shape}{SHAPE_HINT}"
                )
            self.dtype_kinds.add(result.dtype_kind)
            if result.coding is not None:
                self.coding = self.coding.merged(result.coding, self.mechanism.name)
        self.progress(result.rows)

    @contextmanager
    def stage(self, times: dict[str, float], name: str) -> Iterator[None]:
        """Add to ``times[name]`` the wall time of the block besides the time it waited for chunks
        (``waited_s``, the audit's sampling time: :class:`~..records.StageTimes`)."""
        started, waited = time.perf_counter(), self.waited_s
        try:
            yield
        finally:
            spent = time.perf_counter() - started - (self.waited_s - waited)
            times[name] = times.get(name, 0.0) + spent

    def rows(self, key: tuple[int, ...], data: Any, n: int) -> np.ndarray:
        """n outputs on ``data`` as an (n, width) array, drawn in the chunks of stream ``key``."""
        return self.rows_many([(key, data, n)])[0]

    @property
    def chunk_rows(self) -> int:
        """The rows of a full chunk (:func:`.executors.chunk_rows`)."""
        return chunk_rows(self.width)

    def rows_many(self, streams: Sequence[tuple[tuple[int, ...], Any, int]], after: int = 0) -> list[np.ndarray]:
        """:meth:`rows` for several (key, data, n) streams at once (one round of work for the executor).

        With ``after`` (a whole number of chunks), the n rows of each stream that follow its first ``after``:
        drawing a stream's first rows and then the rest this way gives the rows of one draw of them all.
        """
        parts: list[dict[int, np.ndarray]] = [{} for _ in streams]
        self.fill(streams, [kept.__setitem__ for kept in parts], after)  # kept[start] = chunk
        return [np.concatenate([kept[start] for start in sorted(kept)]) if len(kept) > 1
                else next(iter(kept.values())) if kept else np.empty((0, self.width)) for kept in parts]

    def fill(self, streams: Sequence[tuple[tuple[int, ...], Any, int]], into: Sequence[Callable[[int, np.ndarray], None]],
             after: int = 0) -> None:
        """:meth:`rows_many`, each chunk handed as it arrives to its stream's ``into(start, chunk)``, ``start`` its
        first row among the stream's n: a caller that keeps the rows in an array of its own copies each chunk once,
        and the chunk's memory is free again for the next (:class:`..screening._GrowingRows`)."""
        if after % self.chunk_rows:
            raise ValueError(f"after={after!r} must be a whole number of chunks of {self.chunk_rows} rows")
        skip = after // self.chunk_rows
        tasks, where = [], {}
        for (key, data, n), write in zip(streams, into):
            start = 0
            for c, rows in enumerate(chunk_sizes(after + n, self.width)):
                if c >= skip:
                    tasks.append(ChunkTask(key + (c,), self.seed, data, rows))
                    where[key + (c,)] = (write, start)
                    start += rows
        started = time.perf_counter()
        try:
            for result in self._timed(tasks):
                self._absorb(result)
                write, start = where[result.key]
                write(start, result.outputs)
        finally:
            self.waited_s += time.perf_counter() - started

    def counts(self, key: tuple[int, ...], data: Any, n: int, tests: Sequence[Any]) -> list[int]:
        """For each event in ``tests``, how many of n outputs on ``data`` (stream ``key``) fall in it."""
        return self.counts_many([(key, data, n)], tests)[0]

    def counts_many(self, streams: Sequence[tuple[tuple[int, ...], Any, int]], tests: Sequence[Any]) -> list[list[int]]:
        """:meth:`counts` for several (key, data, n) streams at once; finished chunks come from the checkpoint."""
        totals: dict[tuple[int, ...], list[int]] = {}
        tasks = []
        for key, data, n in streams:
            sizes = chunk_sizes(n, self.width)
            done, hits, _ = self.checkpoint.done(key) if self.checkpoint is not None else (set(), [], 0)
            totals[key] = [int(h) for h in hits] if hits else [0] * len(tests)
            tasks += [ChunkTask(key + (c,), self.seed, data, rows, tuple(tests)) for c, rows in enumerate(sizes) if c not in done]
            self.progress(sum(rows for c, rows in enumerate(sizes) if c in done))
        started = time.perf_counter()
        try:
            for result in self._timed(tasks):
                self._absorb(result)
                stream = result.key[:-1]
                totals[stream] = [t + h for t, h in zip(totals[stream], result.hits or ())]
                if self.checkpoint is not None:
                    self.checkpoint.add(stream, result.key[-1], result.hits or (), result.rows)
        finally:
            self.waited_s += time.perf_counter() - started
        return [totals[key] for key, _, _ in streams]

    def _timed(self, tasks: list[ChunkTask]) -> Iterator[ChunkResult]:
        """The executor's results for ``tasks``; under a deadline, awaited until it passes only.

        The executor runs in a helper thread (daemon: a call that hangs there does not keep the process alive)
        and hands each result over a queue; this thread waits at most the time left.  At the deadline the helper
        is told to stop after the chunk it is in, and :class:`TimeLimitReached` names the first chunk not
        finished.  The chunks, their seeds and their results are those of the executor run directly.
        """
        if self.deadline is None:
            yield from self.executor.run(self.mechanism, self.ref, tasks)
            return
        if self.expired is not None:
            raise self.expired
        pending = {task.key: task for task in tasks}
        handed: queue.Queue[tuple[str, Any]] = queue.Queue()
        stop = threading.Event()

        def pump() -> None:
            results = self.executor.run(self.mechanism, self.ref, tasks)
            try:
                for result in results:
                    handed.put(("result", result))
                    if stop.is_set():
                        break
                handed.put(("done", None))
            except BaseException as exc:  # noqa: BLE001 - handed to the audit's thread, which raises it
                handed.put(("error", exc))
            finally:
                close = getattr(results, "close", None)
                if close is not None:
                    close()

        threading.Thread(target=pump, name="dpaudit-timed-chunks", daemon=True).start()
        while True:
            try:
                kind, value = handed.get(timeout=max(0.0, self.deadline.remaining()))
            except queue.Empty:
                stop.set()
                self.expired = TimeLimitReached(self.deadline.seconds, next(iter(pending.values()), None), self.seed)
                raise self.expired from None
            if kind == "done":
                return
            if kind == "error":
                raise value
            pending.pop(value.key, None)
            yield value
