"""Checkpoints: an audit killed with SIGKILL resumes to the uninterrupted result; bad files are refused."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from dataclasses import replace
from pathlib import Path

import pytest

from dpaudit import InvalidArgument
from dpaudit.auditor import audit
from dpaudit.auditor.run.checkpoint import Checkpoint
from tests.auditor import fixtures

SLOW = textwrap.dedent(
    """
    import time

    import numpy as np

    def slow(q, n, rng):
        time.sleep(0.08)  # a slow sampler: each chunk takes a while, so the kill lands mid-audit
        return np.rint((q + rng.laplace(0.0, 1.0, size=n)) * 65536.0) / 65536.0  # 2^-16 grid: no lattice leak
    """
)
ARGS = ["--epsilon", "1", "--a", "0", "--b", "1", "--samples", "300000", "--seed", "5", "--executor", "in-process"]


def _evidence(document: dict) -> dict:
    return {k: v for k, v in document.items() if k not in ("elapsed_s", "mechanism_s", "run")}


def _command(target: str, checkpoint: Path) -> list[str]:
    return [sys.executable, "-m", "dpaudit", "audit", target, *ARGS, "--checkpoint", str(checkpoint), "--json"]


def test_sigkill_mid_audit_then_resume_gives_the_uninterrupted_result(tmp_path):
    (tmp_path / "slow.py").write_text(SLOW)
    target, checkpoint = f"{tmp_path / 'slow.py'}:slow", tmp_path / "audit.ckpt"
    root = Path(__file__).resolve().parents[3]
    env = {**os.environ, "PYTHONPATH": str(root)}
    process = subprocess.Popen(_command(target, checkpoint), cwd=tmp_path, env=env, stdout=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # wait until some verification chunks are on disk
        if checkpoint.exists() and json.loads(checkpoint.read_text())["streams"]:
            break
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert process.returncode == -signal.SIGKILL
    stored = json.loads(checkpoint.read_text())
    done = sum(hi - lo for s in stored["streams"].values() for lo, hi in s["done"])
    assert stored["search"] is not None and done >= 1
    resumed = subprocess.run(_command(target, checkpoint), cwd=tmp_path, env=env, capture_output=True, text=True)
    assert resumed.returncode in (0, 1, 3), resumed.stderr
    document = json.loads(resumed.stdout)
    assert document["run"]["resumed_chunks"] == done
    fresh = audit(target, epsilon=1.0, pair=(0, 1), samples=300_000, seed=5, executor="in-process")
    assert _evidence(document) == _evidence(json.loads(json.dumps(fresh.as_dict())))


def _small(tmp_path, **overrides):
    kwargs = dict(pair=(0.0, 1.0), samples=5_000, seed=3, checkpoint=str(tmp_path / "c.json"), executor="in-process")
    return audit(fixtures.laplace(), **{**kwargs, **overrides})


def test_completed_checkpoint_reproduces_without_drawing(tmp_path):
    first = _small(tmp_path)
    again = _small(tmp_path)
    assert again.run.resumed_chunks > 0 and again.mechanism_s < first.mechanism_s
    assert replace(again, elapsed_s=0.0, mechanism_s=0.0, run={}) == replace(first, elapsed_s=0.0, mechanism_s=0.0, run={})


@pytest.mark.parametrize(
    "change,words",
    [(dict(seed=4), "seed=3 there, 4 now"), (dict(samples=6_000), "samples=5000 there, 6000 now"),
     (dict(pair=(1.0, 0.0)), "pair="), (dict(epsilon=2.0), "claim=")],
)
def test_checkpoint_of_another_audit_is_refused(tmp_path, change, words):
    _small(tmp_path)
    with pytest.raises(InvalidArgument, match="was made for a different audit") as error:
        _small(tmp_path, **change)
    assert words in str(error.value)


def test_corrupted_checkpoints_are_refused(tmp_path):
    _small(tmp_path)
    path = tmp_path / "c.json"
    data = json.loads(path.read_text())
    data["streams"][next(iter(data["streams"]))]["hits"][0] += 1  # tampered counts: digest no longer matches
    path.write_text(json.dumps(data))
    with pytest.raises(InvalidArgument, match="corrupted .*sha256"):
        _small(tmp_path)
    path.write_text(path.read_text()[:40])
    with pytest.raises(InvalidArgument, match="corrupted"):
        _small(tmp_path)
    path.write_text(json.dumps({"hello": 1}))
    with pytest.raises(InvalidArgument, match="not a dpaudit checkpoint"):
        _small(tmp_path)


def test_writes_are_atomic_and_ranges_merge(tmp_path):
    store = Checkpoint(tmp_path / "x.json", {"seed": 1})
    for index in (0, 2, 1, 5):
        store.add((1, 1, 0, 0), index, (3, 1), 10)
    assert [p.name for p in tmp_path.iterdir()] == ["x.json"]  # no temporary file left behind
    reread = Checkpoint(tmp_path / "x.json", {"seed": 1})
    assert reread.done((1, 1, 0, 0)) == ({0, 1, 2, 5}, [12, 4], 40)
    assert reread.streams["1.1.0.0"]["done"] == [[0, 3], [5, 6]] and reread.resumed_chunks == 4


def test_a_checkpoint_in_memory_writes_nothing_until_it_is_kept(tmp_path, monkeypatch):
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    store = Checkpoint(None, {"seed": 1})
    assert store.keep() is None  # nothing finished: nothing to keep
    for index in (0, 1, 3):
        store.add((1, 1, 0, 0), index, (3, 1), 10)
    assert list(tmp_path.iterdir()) == [] and store.path is None
    kept = store.keep()
    assert kept is not None and Path(kept).parent == tmp_path and Path(kept).name.startswith("dpaudit-checkpoint-")
    reread = Checkpoint(kept, {"seed": 1})
    assert reread.done((1, 1, 0, 0)) == ({0, 1, 3}, [9, 3], 30) and reread.finished_chunks == 3
