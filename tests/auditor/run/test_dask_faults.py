"""Faults on a real Dask cluster in the middle of an audit: the same result, or one line, exit 2 and a resume.

Each test starts a ``distributed.LocalCluster`` of two worker processes (one thread each) on loopback and audits a
slow sampler on it by address, as ``--executor dask://HOST:PORT`` does.  The sampler (``SLOW`` below, written beside
the test) takes 50 ms a chunk and counts its calls in a file; a test *arms* it with a file naming a fault and the
call it starts at, so every fault strikes during the verification stage, with chunks finished and chunks in flight:

* ``kill`` -- the first call past the mark writes its worker's pid and waits, and the test kills that process
  (SIGKILL): the nanny restarts it, the scheduler runs the lost chunk again, and the result equals the undisturbed
  in-process run's (a chunk is addressed by its seed);
* ``memory`` -- every call past the mark allocates 2 GB on workers limited to 800 MB: each worker running such
  a chunk is killed by its nanny until the scheduler gives the chunk up (``allowed-failures`` 1 here, to keep the
  test short);
* ``scheduler`` -- the first call past the mark tells the test, which closes the scheduler.

The last two are typed as a user types them (the scheduler's loss in a process of its own, whose standard error must
hold nothing else): one line naming the fault, exit 2, the checkpoint holding the finished chunks; the command that
line gives, run against a fresh cluster on the same port, prints what the undisturbed command prints.  A scheduler
with nothing listening is one line, exit 2, before any work.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import pytest

from dpaudit.auditor import audit
from dpaudit.errors import ExecutorLost, ExecutorUnavailable

from ...cli.test_users_words import typed

distributed = pytest.importorskip("distributed")
dask = pytest.importorskip("dask")

SLOW = '''
import os
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def _at(name):
    return os.path.join(HERE, name)


def slow(q, n, rng):
    with open(_at("calls"), "a") as log:  # one byte a call: the file's size counts them
        log.write("x")
    calls = os.path.getsize(_at("calls"))
    fault, mark = "", "0"
    if os.path.exists(_at("arm")):
        with open(_at("arm")) as arm:
            fault, _, mark = arm.read().partition(":")
    if fault and calls >= int(mark):
        if fault == "memory":
            block = np.ones(2000 * 2**20 // 8)
            time.sleep(0.5)
            del block
        elif fault in ("kill", "scheduler"):
            try:
                marker = os.open(_at("struck"), os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                pass
            else:  # the first call past the mark: the test strikes while it is in flight
                os.write(marker, str(os.getpid()).encode())
                os.close(marker)
                time.sleep(3.0 if fault == "kill" else 0.5)
    time.sleep(0.05)
    return q + rng.laplace(0.0, 1.0, size=n)
'''
ROOT = Path(__file__).resolve().parents[3]
MARK = 14
"""The call a fault starts at: the probe and the search stage's 6 chunks come first, then 16 verification chunks."""
AUDIT = "audit slow.py:slow --epsilon 1 --a 0 --b 1 --samples 300000 --seed 7 --no-float-checks"
OPTIONS = {"epsilon": 1.0, "pair": (0.0, 1.0), "samples": 300_000, "seed": 7, "checks": None}
"""The same audit in the Python API (float checks off, and no side channel: the sampler is vectorised)."""


@pytest.fixture()
def folder(tmp_path, monkeypatch):
    """The user's folder, holding the sampler, as the working folder."""
    (tmp_path / "slow.py").write_text(SLOW)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture(scope="module")
def undisturbed(tmp_path_factory) -> str:
    """What the command prints when nothing disturbs it (in process)."""
    with _in_folder(tmp_path_factory.mktemp("undisturbed")):
        result = typed(f"{AUDIT} --executor in-process")[0]
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The audit's result when nothing disturbs it (in process)."""
    with _in_folder(tmp_path_factory.mktemp("reference")):
        return audit("slow.py:slow", executor="in-process", **OPTIONS)


@contextmanager
def _in_folder(folder):
    """``folder``, holding the sampler, as the working folder for a while."""
    (folder / "slow.py").write_text(SLOW)
    here = os.getcwd()
    os.chdir(folder)
    try:
        yield folder
    finally:
        os.chdir(here)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _cluster(port: int, **options):
    """Two worker processes of one thread each, the scheduler at ``port``."""
    return distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, protocol="tcp://",
                                    host="127.0.0.1", scheduler_port=port, dashboard_address=None, **options)


@contextmanager
def _losing_its_scheduler(port: int, folder):
    """A cluster whose scheduler the test closes once the sampler says a chunk is in flight.  (The cluster then
    closes its workers without waiting the default 30 s for the scheduler it lost.)"""
    with dask.config.set({"distributed.comm.timeouts.connect": "2s"}), _cluster(port) as cluster:
        _when_struck(folder, lambda pid: cluster.sync(cluster.scheduler.close))
        yield cluster


def _arm(folder, fault: str) -> None:
    (folder / "calls").unlink(missing_ok=True)
    (folder / "arm").write_text(f"{fault}:{MARK}")


def _when_struck(folder, strike) -> threading.Thread:
    """A thread that calls ``strike(pid)`` once the sampler says the fault's chunk is in flight."""
    marker = folder / "struck"

    def wait() -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            pid = marker.read_text() if marker.exists() else ""
            if pid:
                strike(int(pid))
                return
            time.sleep(0.005)

    thread = threading.Thread(target=wait, daemon=True)
    thread.start()
    return thread


def _said(output: str) -> list[str]:
    """What the audit says, without the lines that say how it ran (executor, resumed chunks, wall and stage times)."""
    return [line for line in output.splitlines() if not line.startswith(("  run ", "  time ", "  stages "))]


def _evidence(result):
    return replace(result, elapsed_s=0.0, mechanism_s=0.0, run={})


def _kept_chunks(path) -> int:
    streams = json.loads(Path(path).read_text())["streams"]
    return sum(hi - lo for stream in streams.values() for lo, hi in stream["done"])


def _kept_chunks_of(lost: ExecutorLost) -> int:
    return int(re.search(r"and (\d+) finished chunks", str(lost)).group(1))


def _resume_command(line: str) -> str:
    """The command the fault's line ends with, as typed after ``dpaudit``."""
    return line[line.index(": dpaudit audit ") + len(": dpaudit "):]


def test_a_worker_killed_mid_audit_gives_the_undisturbed_result(folder, reference):
    _arm(folder, "kill")
    with _cluster(_free_port()) as cluster, distributed.Client(cluster) as client:
        workers = set(client.run(os.getpid).values())
        struck = _when_struck(folder, lambda pid: os.kill(pid, signal.SIGKILL))
        address = cluster.scheduler_address.removeprefix("tcp://")
        disturbed = audit("slow.py:slow", executor=f"dask://{address}", **OPTIONS)
        struck.join(5)
        killed = int((folder / "struck").read_text())
        assert killed in workers and killed not in set(client.run(os.getpid).values())  # it was a worker; it is gone
    assert disturbed.run.executor == f"dask://{address}"
    assert _evidence(disturbed) == _evidence(reference)


def test_a_memory_limit_exceeded_is_one_line_exit_2_and_the_checkpoint_resumes(folder, undisturbed):
    port = _free_port()
    command = f"{AUDIT} --executor dask://127.0.0.1:{port} --checkpoint kept.json"
    _arm(folder, "memory")
    with dask.config.set({"distributed.scheduler.allowed-failures": 1}), _cluster(port, memory_limit="800MB"):
        result, lines = typed(command)
    assert result.exit_code == 2 and len(lines) == 1 and "Traceback" not in result.output, result.output
    assert re.match(rf"dpaudit: error: --executor='dask://127.0.0.1:{port}': the worker running a chunk died each of "
                    r"the 2 times it was tried \(killed past its memory limit of 762\.94 MiB, or crashed\): the chunk "
                    r"of \d+ runs on data [01] \(seed 7, spawn key 1\.1\.[\d.]+\); the checkpoint 'kept.json' "
                    r"keeps the search stage and \d+ finished chunks", lines[0]), lines[0]
    kept = _kept_chunks(folder / "kept.json")
    assert kept >= 1 and f"and {kept} finished chunks" in lines[0]
    resume = _resume_command(lines[0])
    assert resume == (f"audit slow.py:slow --seed 7 --samples 300000 --epsilon 1.0 --a '0' --b '1' --no-float-checks "
                      f"--executor dask://127.0.0.1:{port} --checkpoint kept.json")  # the same audit, to resume
    (folder / "arm").unlink()
    with _cluster(port):  # a fresh cluster at the same address, with the memory the sampler needs
        resumed = typed(resume)[0]
    assert resumed.exit_code == 0 and f"{kept} chunks resumed from kept.json" in resumed.output, resumed.output
    assert _said(resumed.output) == _said(undisturbed)


def test_a_scheduler_lost_midway_is_one_line_exit_2_and_the_checkpoint_resumes(folder, undisturbed):
    port = _free_port()
    _arm(folder, "scheduler")
    with _losing_its_scheduler(port, folder):  # its own process: nothing else (the client's log) reaches stderr
        ran = subprocess.run([sys.executable, "-m", "dpaudit", *shlex.split(AUDIT), "--executor",
                              f"dask://127.0.0.1:{port}", "--checkpoint", "kept.json"], capture_output=True, text=True,
                             env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    lines = ran.stderr.strip().splitlines()
    assert ran.returncode == 2 and len(lines) == 1 and not ran.stdout, ran.stderr
    assert re.match(rf"dpaudit: error: --executor='dask://127.0.0.1:{port}': the scheduler was lost midway, with \d+ "
                    r"chunks? in flight \(\w+\); the checkpoint 'kept.json' keeps the search stage and \d+ finished "
                    r"chunks \(the same audit with --checkpoint='kept.json' resumes\): dpaudit audit ",
                    lines[0]), lines[0]
    kept = _kept_chunks(folder / "kept.json")
    assert kept >= 1 and f"and {kept} finished chunks" in lines[0]
    (folder / "arm").unlink()
    with _cluster(port):
        resumed = typed(_resume_command(lines[0]))[0]
    assert resumed.exit_code == 0 and f"{kept} chunks resumed from kept.json" in resumed.output, resumed.output
    assert _said(resumed.output) == _said(undisturbed)


def test_without_a_checkpoint_the_finished_chunks_are_kept_in_a_temporary_file(folder, reference):
    port = _free_port()
    _arm(folder, "scheduler")
    lost_midway = pytest.raises(ExecutorLost, match="the scheduler was lost midway")
    with _losing_its_scheduler(port, folder), lost_midway as lost:
        audit("slow.py:slow", executor=f"dask://127.0.0.1:{port}", **OPTIONS)
    kept = lost.value.checkpoint
    assert kept is not None and os.path.basename(kept).startswith("dpaudit-checkpoint-")
    try:
        said = str(lost.value)
        assert f"the checkpoint {kept!r} keeps the search stage and {_kept_chunks(kept)} finished chunks" in said
        assert f"(the same audit with checkpoint={kept!r} resumes)" in said
        (folder / "arm").unlink()
        resumed = audit("slow.py:slow", executor="in-process", checkpoint=kept, **OPTIONS)
    finally:
        os.unlink(kept)
    assert resumed.run.resumed_chunks == _kept_chunks_of(lost.value) and _evidence(resumed) == _evidence(reference)


def test_a_scheduler_address_with_nothing_listening_is_one_line_exit_2(folder):
    port = _free_port()
    started = time.perf_counter()
    result, lines = typed(f"{AUDIT} --executor dask://127.0.0.1:{port} --connect-timeout 1 --checkpoint kept.json")
    assert result.exit_code == 2 and len(lines) == 1 and "Traceback" not in result.output, result.output
    assert lines[0].startswith(f"dpaudit: error: --executor='dask://127.0.0.1:{port}': no Dask scheduler answered at "
                               f"tcp://127.0.0.1:{port} within --connect-timeout=1 s")
    assert time.perf_counter() - started < 10 and not (folder / "calls").exists()  # no work was started
    with pytest.raises(ExecutorUnavailable) as refused:
        audit("slow.py:slow", epsilon=1.0, pair=(0.0, 1.0), executor=f"dask://127.0.0.1:{port}", connect_timeout=1)
    assert not isinstance(refused.value, ExecutorLost)
