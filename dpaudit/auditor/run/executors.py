"""Executors: where the sampling chunks of an audit run -- in this process, a local process pool, or Dask.

An audit's draws are cut into independent *chunks*.  Chunk ``i`` of a stream is seeded with
``SeedSequence(seed, spawn_key=stream + (i,))`` -- exactly the i-th child that ``spawn`` would hand
out (numpy's ``SeedSequence`` derives a child from the root entropy and its spawn key only) -- and
its size depends only on the seed and the budget.  So the chunks, their outputs and their counts are
the same whichever executor runs them and in whatever order they finish: the audit's result for a
seed is bit-identical on every backend (integer sums do not depend on the order).

* :class:`InProcess` -- runs the chunks one after another here (the default for small jobs);
* :class:`ProcessPool` -- a ``concurrent.futures.ProcessPoolExecutor`` over all cores (``spawn``
  start method: no state is inherited, so what a worker computes depends on its task only);
* :class:`DaskExecutor` -- a ``distributed.Client`` on ``dask://HOST:PORT`` or on a ``LocalCluster``
  that dpaudit starts (``dask-local``) and stops;
* :class:`Auto` -- starts in process and moves to a process pool once the measured time per sample
  says the rest of the audit would take longer than ``AUTO_POOL_SECONDS``.

Verification chunks send back hit counts only.  Search chunks send back their outputs (the event
search needs them; the search stage is at most ``search_budget``: 5 x 10^5 to 2 x 10^6 rows per side).

Workers rebuild the mechanism from a :class:`~.shipping.MechanismRef` (:mod:`.shipping`).  Where
process workers cannot be used -- a mechanism that cannot be shipped, Python run from standard input
(workers cannot start), workers that cannot rebuild the mechanism or die -- the chunks run here
instead, in threads for ``thread_safe`` mechanisms on several cores, else one after another, and
the executor's ``ran_locally`` / ``note`` say so (the audit puts it in ``AuditResult.run``); the
results do not change.

On Dask each chunk is one task.  A worker lost mid-audit (killed, crashed) takes only the chunks it was running,
which the scheduler runs again on the others: same seeds, same results.  The faults Dask does not get past -- a
chunk whose workers die each of the ``distributed.scheduler.allowed-failures`` + 1 times it is tried (past their
memory limit, say), a scheduler lost midway -- raise :class:`~dpaudit.errors.ExecutorLost` in one line naming the
fault, once the chunks finished beside it are handed over; the audit keeps those in its checkpoint
(:meth:`.checkpoint.Checkpoint.keep`) and says how to resume.
"""

from __future__ import annotations

import math
import os
import pickle
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..._validation import short_repr
from ...errors import ExecutorLost, ExecutorUnavailable, InvalidArgument
from ...mechanisms.base import Mechanism
from ...mechanisms.outputs import OutputCoding
from ..events.sets import hit_counts
from .shipping import MechanismRef, ship, spawn_blocker

__all__ = [
    "AUTO_POOL_SECONDS",
    "CHUNK_ROWS",
    "Auto",
    "ChunkResult",
    "ChunkTask",
    "DaskExecutor",
    "InProcess",
    "MechanismRef",
    "ProcessPool",
    "Threads",
    "WorkerSetupError",
    "chunk_rows",
    "chunk_sizes",
    "make_executor",
    "run_chunk",
    "ship",
]

CHUNK_ROWS = 1 << 16
CHUNK_VALUES = 1 << 21
AUTO_POOL_SECONDS = 5.0


def chunk_rows(width: int) -> int:
    """The rows of a full chunk of outputs with ``width`` values each."""
    return max(1, min(CHUNK_ROWS, CHUNK_VALUES // max(1, width)))


def chunk_sizes(total: int, width: int) -> list[int]:
    """Rows per chunk for ``total`` draws of outputs with ``width`` values each (a function of both only)."""
    rows = chunk_rows(width)
    full, rest = divmod(int(total), rows)
    return [rows] * full + ([rest] if rest else [])


# --------------------------------------------------------------------------------------------------
# One chunk of work


@dataclass(frozen=True)
class ChunkTask:
    """Draw ``rows`` outputs on ``data`` with the generator of ``SeedSequence(entropy, spawn_key=key)``.

    With ``tests`` the outputs are reduced to one hit count per membership test; without, they are
    returned (search stage).
    """

    key: tuple[int, ...]
    entropy: int
    data: Any
    rows: int
    tests: tuple[Any, ...] | None = None

    def describe(self) -> str:
        """``R runs on data D (seed S, spawn key K)``: where the chunk is found again."""
        key = ".".join(map(str, self.key))
        return f"{self.rows} runs on data {short_repr(self.data, 80)} (seed {self.entropy}, spawn key {key})"


@dataclass(frozen=True)
class ChunkResult:
    """One chunk's outcome; ``coding`` says how its outputs became numbers (with the labels seen
    when the outputs are sent back; counting chunks send none)."""

    key: tuple[int, ...]
    rows: int
    hits: tuple[int, ...] | None
    outputs: np.ndarray | None
    shape: tuple[int, ...]
    dtype_kind: str
    mechanism_s: float
    coding: OutputCoding | None = None


def _flat(out: np.ndarray) -> np.ndarray:
    """Outputs as a 2-D array (samples x coordinates); booleans become 0/1."""
    if out.dtype.kind == "b":
        out = out.astype(np.int8)
    return out.reshape(out.shape[0], -1)


def run_chunk(mechanism: Mechanism | MechanismRef, task: ChunkTask) -> ChunkResult:
    """Run one chunk (in any process): draw, then count or keep."""
    if isinstance(mechanism, MechanismRef):
        mechanism = mechanism.build()
    rng = np.random.default_rng(np.random.SeedSequence(task.entropy, spawn_key=task.key))
    start = time.perf_counter()
    drawn = mechanism.draw(task.data, task.rows, rng)
    spent = time.perf_counter() - start
    out = drawn.values
    flat = _flat(out)
    if task.tests is None:
        return ChunkResult(task.key, task.rows, None, flat, tuple(out.shape[1:]), out.dtype.kind, spent, drawn.coding)
    hits = tuple(hit_counts(task.tests, flat))
    coding = drawn.coding.without_labels()
    return ChunkResult(task.key, task.rows, hits, None, tuple(out.shape[1:]), out.dtype.kind, spent, coding)


class WorkerSetupError(RuntimeError):
    """A worker process could not rebuild the mechanism or the tasks it was sent (not the mechanism's fault)."""


def _run_many(mechanism: Mechanism | MechanismRef, tasks: Sequence[ChunkTask] | bytes) -> list[ChunkResult]:
    try:
        if isinstance(tasks, bytes):  # tasks whose events only cloudpickle can serialise
            tasks = pickle.loads(tasks)
        if isinstance(mechanism, MechanismRef):
            mechanism = mechanism.build()
    except Exception as exc:
        raise WorkerSetupError(f"{type(exc).__name__}: {exc}") from None
    return [run_chunk(mechanism, task) for task in tasks]


def _here(owner: Any, mechanism: Mechanism) -> str:
    """Where chunks that process workers cannot take run: in threads for ``thread_safe`` mechanisms on
    several cores, else in process; recorded in ``owner.ran_locally``."""
    threads = mechanism.runtime.thread_safe and int(getattr(owner, "workers", 1)) > 1
    owner.ran_locally = "in threads" if threads else owner.ran_locally or "in process"
    return "in threads" if threads else "in process"


def _run_here(owner: Any, mechanism: Mechanism, tasks: Iterable[ChunkTask]) -> Iterator[ChunkResult]:
    """Run ``tasks`` where :func:`_here` says."""
    if _here(owner, mechanism) == "in threads":
        threads = Threads(owner.workers)
        try:
            yield from threads.run(mechanism, None, tasks)
        finally:
            threads.close()
        return
    yield from InProcess().run(mechanism, None, tasks)


def _portable(groups: list[list[ChunkTask]]) -> list[Any] | None:
    """The task groups as plain pickle can send them, else cloudpickled bytes, else None."""
    try:
        pickle.dumps(groups[0])
        return list(groups)
    except Exception:
        pass
    try:
        import cloudpickle

        return [cloudpickle.dumps(group) for group in groups]
    except Exception:
        return None


# --------------------------------------------------------------------------------------------------
# Executors


class InProcess:
    """Runs every chunk here, in order."""

    name = "in-process"
    workers = 1

    def run(self, mechanism: Mechanism, ref: MechanismRef | None, tasks: Iterable[ChunkTask]) -> Iterator[ChunkResult]:
        for task in tasks:
            yield run_chunk(mechanism, task)

    def close(self) -> None:
        pass


def _groups(tasks: Sequence[ChunkTask], size: int) -> list[list[ChunkTask]]:
    return [list(tasks[i : i + size]) for i in range(0, len(tasks), size)]


class ProcessPool:
    """A local pool of ``workers`` processes (default: every core), started with ``spawn`` on first use."""

    name = "process-pool"

    def __init__(self, workers: int | None = None) -> None:
        self.workers = int(workers or os.cpu_count() or 1)
        self.broken = False
        self.note: str | None = None
        self.ran_locally: str | None = None
        self._pool: Any = None

    def _executor(self) -> Any:
        if self._pool is None:
            import concurrent.futures
            import multiprocessing

            self._pool = concurrent.futures.ProcessPoolExecutor(
                max_workers=self.workers, mp_context=multiprocessing.get_context("spawn")
            )
        return self._pool

    def run(self, mechanism: Mechanism, ref: MechanismRef | None, tasks: Iterable[ChunkTask]) -> Iterator[ChunkResult]:
        import concurrent.futures
        from concurrent.futures.process import BrokenProcessPool

        if ref is None or self.broken:
            yield from _run_here(self, mechanism, tasks)
            return
        tasks = list(tasks)
        # Groups of about 4 per worker: few round trips, yet results keep arriving for progress/checkpoints.
        size = max(1, math.ceil(len(tasks) / (4 * self.workers)))
        groups = _portable(_groups(tasks, size)) if tasks else []
        if groups is None:
            self.note = "the events of this audit cannot be sent to worker processes; their chunks ran in process"
            yield from InProcess().run(mechanism, None, tasks)
            return
        pool = self._executor()
        futures = [pool.submit(_run_many, ref, group) for group in groups]
        finished: set[tuple[int, ...]] = set()
        try:
            for future in concurrent.futures.as_completed(futures):
                for result in future.result():
                    finished.add(result.key)
                    yield result
        except (BrokenProcessPool, WorkerSetupError) as exc:
            # Workers that cannot start, cannot rebuild the mechanism, or died: run what is left here;
            # chunk results do not depend on where they ran.
            self.broken = True
            cause = (f"worker processes could not rebuild the mechanism ({exc})" if isinstance(exc, WorkerSetupError)
                     else "the process pool lost its workers (a worker could not start or died; a script without an "
                     "`if __name__ == \"__main__\":` guard ends them)")
            remaining = [t for t in tasks if t.key not in finished]
            for future in futures:
                future.cancel()
            self.note = f"{cause}; the remaining chunks ran {_here(self, mechanism)}"
            yield from _run_here(self, mechanism, remaining)
        finally:
            for future in futures:
                future.cancel()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)

    def abandon(self) -> None:
        """Close without waiting for the chunks still running (the time limit passed): their workers are ended."""
        if self._pool is not None:
            processes = list((getattr(self._pool, "_processes", None) or {}).values())
            self._pool.shutdown(wait=False, cancel_futures=True)
            for process in processes:
                process.terminate()


class DaskExecutor:
    """Chunks as Dask tasks on a ``distributed`` cluster (``address``), or on a LocalCluster started here."""

    def __init__(self, address: str | None = None, *, workers: int | None = None, processes: bool = True,
                 connect_timeout: float = 5.0) -> None:
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise ExecutorUnavailable(
                "executor='dask...' needs the optional dependency: pip install 'dpaudit[dask]'"
            ) from None
        self._cluster = None
        if address is None:
            n = int(workers or os.cpu_count() or 1)
            self._cluster = LocalCluster(
                n_workers=n,
                threads_per_worker=1,
                processes=processes,
                protocol="tcp://",
                host="127.0.0.1",
                dashboard_address=None,
            )
            self._client = Client(self._cluster)
            self.name = "dask-local"
        else:
            self.name = f"dask://{address.removeprefix('tcp://')}"
            self._client = _connect(Client, address, self.name, connect_timeout)
        self.workers = max(1, len(self._client.scheduler_info().get("workers", {})))
        self.ran_locally: str | None = None
        # A scheduler lost midway makes the client log its failed reconnection with a traceback, until after it is
        # closed; ExecutorLost says it in one line instead (the log stays quiet once the executor was lost).
        self._levels = _quiet("distributed.client")
        self._lost = False

    def run(self, mechanism: Mechanism, ref: MechanismRef | None, tasks: Iterable[ChunkTask]) -> Iterator[ChunkResult]:
        """The chunks' results as they finish, one Dask task per chunk.

        A worker lost midway takes only the chunks it was running with it, and the scheduler runs them again
        elsewhere: a chunk is addressed by its seed, so its result is the same.  A fault Dask does not get past --
        the scheduler lost, or the workers running one chunk dying each of the ``allowed-failures`` + 1 times it
        was tried -- raises :class:`~dpaudit.errors.ExecutorLost` naming it, once the chunks already finished
        have been handed over (the audit keeps them in its checkpoint).
        """
        from distributed import as_completed

        if ref is None:
            yield from _run_here(self, mechanism, tasks)
            return
        futures: dict[Any, ChunkTask] = {}
        handed: set[Any] = set()
        current = None
        try:
            for task in tasks:
                futures[self._client.submit(_run_many, ref, [task], pure=False)] = task
            # The loop of this executor's client: another client made the default one meanwhile must not be used.
            for current in as_completed(futures, loop=self._client.loop):
                results = current.result()
                handed.add(current)
                yield from results
        except _dask_faults() as exc:
            self._lost = True
            for future in futures:  # what finished beside the fault is kept, not thrown away with it
                if future not in handed and future is not current and future.status == "finished":
                    handed.add(future)
                    yield from _finished(future)
            raise ExecutorLost(self._fault(exc, futures.get(current), len(futures) - len(handed))) from None
        finally:
            for future in futures:
                future.cancel()

    def _fault(self, exc: BaseException, task: ChunkTask | None, in_flight: int) -> str:
        """The one line naming a fault Dask did not get past: which, and the chunk it hit (a worker dying of it)."""
        from distributed.scheduler import KilledWorker

        where = f"executor={self.name!r}: "
        if isinstance(exc, KilledWorker) and task is not None:
            limit = getattr(exc.last_worker, "memory_limit", None)
            why = f"killed past its memory limit of {_bytes(limit)}, or crashed" if limit else "crashed, or killed"
            return (f"{where}the worker running a chunk died each of the {exc.allowed_failures + 1} times it was tried "
                    f"({why}): the chunk of {task.describe()}")
        chunks = "1 chunk" if in_flight == 1 else f"{in_flight} chunks"
        return f"{where}the scheduler was lost midway, with {chunks} in flight ({type(exc).__name__})"

    def close(self) -> None:
        try:
            self._client.close()
        finally:
            if not self._lost:
                _restore(self._levels)
            if self._cluster is not None:
                self._cluster.close()


def _dask_faults() -> tuple[type[BaseException], ...]:
    """What a Dask future raises for a fault of the cluster, not of the chunk: the mechanism's own errors reach here
    as MechanismError, so an OSError (a connection closed), a cancelled future (the scheduler's connection lost), a
    client closed (it could not reconnect) or a timeout is the cluster's."""
    import asyncio
    import concurrent.futures

    from distributed.client import ClosedClientError
    from distributed.scheduler import KilledWorker

    return (KilledWorker, ClosedClientError, OSError, TimeoutError, asyncio.CancelledError,
            concurrent.futures.CancelledError)


def _finished(future: Any) -> list[ChunkResult]:
    """The results of a finished future, or none when they can no longer be fetched."""
    try:
        return future.result(timeout=5)
    except Exception:  # noqa: BLE001 - the fault being reported is the one that counts
        return []


def _bytes(n: float) -> str:
    from dask.utils import format_bytes

    return format_bytes(int(n))


def _connect(client: Any, address: str, name: str, timeout: float) -> Any:
    """A ``distributed.Client`` of the scheduler at ``address``, else ExecutorUnavailable in one line (no scheduler
    answered within ``timeout`` seconds, or it refused): a fault of where the audit runs, not of the mechanism."""
    # Its retries would print a traceback each; the one line below says it all.
    levels = _quiet("distributed", "distributed.client", "distributed.comm")
    try:
        return client(address, timeout=timeout)
    except (OSError, TimeoutError) as exc:
        raise ExecutorUnavailable(
            f"executor={name!r}: no Dask scheduler answered at {address} within connect_timeout={timeout:g} s "
            f"({type(exc).__name__}); start one (dask scheduler) or choose another executor"
        ) from None
    finally:
        _restore(levels)


def _quiet(*names: str) -> dict[str, int]:
    """Silence the loggers ``names`` (up to CRITICAL); their levels before, for :func:`_restore`."""
    import logging

    levels = {name: logging.getLogger(name).level for name in names}
    for name in names:
        logging.getLogger(name).setLevel(logging.CRITICAL)
    return levels


def _restore(levels: dict[str, int]) -> None:
    import logging

    for name, level in levels.items():
        logging.getLogger(name).setLevel(level)


class Threads:
    """Every chunk here, ``workers`` at a time in threads (for ``thread_safe`` mechanisms only).

    numpy releases the GIL while it draws and counts, so a vectorised numpy sampler runs on all
    cores without starting processes or pickling anything; each chunk has its own generator, so
    the results are those of :class:`InProcess`.
    """

    name = "threads"

    def __init__(self, workers: int | None = None) -> None:
        import concurrent.futures

        self.workers = int(workers or os.cpu_count() or 1)
        self._pool = concurrent.futures.ThreadPoolExecutor(self.workers, thread_name_prefix="dpaudit-chunks")

    def run(self, mechanism: Mechanism, ref: MechanismRef | None, tasks: Iterable[ChunkTask]) -> Iterator[ChunkResult]:
        futures = [self._pool.submit(run_chunk, mechanism, task) for task in tasks]
        try:
            for future in futures:
                yield future.result()
        finally:  # an error or an interrupt: the chunks not started yet never start
            for future in futures:
                future.cancel()

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)

    def abandon(self) -> None:
        """Close without waiting for the chunks still running (the time limit passed; a thread cannot be ended)."""
        self._pool.shutdown(wait=False, cancel_futures=True)


class Auto:
    """Threads for ``thread_safe`` mechanisms on several cores; otherwise in process until the measured
    cost says the remaining work exceeds ``AUTO_POOL_SECONDS``, then a process pool."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = int(workers or os.cpu_count() or 1)
        self._pool: ProcessPool | None = None
        self._threads: Threads | None = None
        self._rows = 0
        self._seconds = 0.0
        self.ran_locally: str | None = None

    @property
    def note(self) -> str | None:
        return self._pool.note if self._pool is not None else None

    @property
    def name(self) -> str:
        if self._threads is not None:
            return "auto (threads)"
        return "auto (process pool)" if self._pool is not None else "auto (in process)"

    def run(self, mechanism: Mechanism, ref: MechanismRef | None, tasks: Iterable[ChunkTask]) -> Iterator[ChunkResult]:
        tasks = list(tasks)
        if mechanism.runtime.thread_safe and self.workers > 1 and len(tasks) > 1:
            self._threads = self._threads or Threads(self.workers)
            yield from self._threads.run(mechanism, ref, tasks)
            return
        if self._pool is None and self.workers > 1 and self._rows:
            remaining = sum(t.rows for t in tasks) * self._seconds / self._rows
            if remaining > AUTO_POOL_SECONDS and ref is not None:
                self._pool = ProcessPool(self.workers)
            elif remaining > AUTO_POOL_SECONDS:  # a pool would have helped: the audit's run note says why not
                self.ran_locally = "in process"
        if self._pool is not None:
            yield from self._pool.run(mechanism, ref, tasks)
            return
        for task in tasks:
            result = run_chunk(mechanism, task)
            self._rows += result.rows
            self._seconds += result.mechanism_s
            yield result

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
        if self._threads is not None:
            self._threads.close()

    def abandon(self) -> None:
        """Close without waiting for the chunks still running (the time limit passed)."""
        if self._pool is not None:
            self._pool.abandon()
        if self._threads is not None:
            self._threads.abandon()


EXECUTORS = ("auto", "in-process", "threads", "process-pool", "dask-local", "dask://HOST:PORT")


def make_executor(spec: Any, workers: int | None = None, *, connect_timeout: float = 5.0):
    """The executor named by ``spec`` (one of ``EXECUTORS``), or ``spec`` itself if it has ``run``; a Dask scheduler
    is given ``connect_timeout`` seconds to answer."""
    if hasattr(spec, "run") and hasattr(spec, "close"):
        return spec
    if spec is not None and not isinstance(spec, str):
        raise InvalidArgument(f"executor={spec!r} must be one of {', '.join(EXECUTORS)} or an executor object")
    if spec is None or spec == "auto":
        return Auto(workers)
    if spec == "in-process":
        return InProcess()
    if spec == "threads":
        return Threads(workers)
    if spec == "process-pool":
        return ProcessPool(workers)
    if spec == "dask-local":
        blocker = spawn_blocker()
        if blocker is not None:  # its worker processes could not start: a process pool falls back the same way
            pool = ProcessPool(workers)
            pool.name = "dask-local"
            return pool
        return DaskExecutor(None, workers=workers)
    if isinstance(spec, str) and spec.startswith("dask://"):
        address = spec.removeprefix("dask://")
        host, _, port = address.rpartition(":")
        if not (host and port.isascii() and port.isdigit() and 0 < int(port) < 65536):
            raise InvalidArgument(f"executor={spec!r} must name the scheduler, as dask://HOST:PORT (a port 1-65535)")
        return DaskExecutor(f"tcp://{address}", connect_timeout=connect_timeout)
    raise InvalidArgument(f"executor={spec!r} must be one of {', '.join(EXECUTORS)}")
