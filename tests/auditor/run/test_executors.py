"""Executors: the same seed gives the same audit in process, in threads, on a process pool and on Dask.

Bit-identical means every field of the AuditResult except the wall times and the ``run`` record
(which executor ran it).  The Dask test starts a real ``distributed.LocalCluster`` on loopback
(scheduler and two worker threads, ``processes=False`` to keep start-up under a second) and
connects to it by address, as ``--executor dask://HOST:PORT`` does.
"""

from __future__ import annotations

import threading
from dataclasses import replace

import numpy as np
import pytest

import dpaudit
from dpaudit import InvalidArgument, PureDP, QueryDistance
from dpaudit.auditor import audit
from dpaudit.auditor.run.executors import (
    InProcess,
    MechanismRef,
    chunk_sizes,
    make_executor,
    ship,
)
from dpaudit.auditor.run.sampling import generator


def _evidence(result):
    return replace(result, elapsed_s=0.0, mechanism_s=0.0, run={})


def test_chunk_seed_addresses_are_the_spawn_tree():
    # SeedSequence(seed, spawn_key=k) is the node spawn() reaches along k: chunks can be seeded directly.
    node = np.random.SeedSequence(12345).spawn(3)[1].spawn(2)[1].spawn(4)[3]
    direct = generator(12345, (1, 1, 3)).random(5)
    assert np.array_equal(np.random.default_rng(node).random(5), direct)


def test_chunk_sizes_depend_on_total_and_width_only():
    assert chunk_sizes(0, 1) == []
    assert chunk_sizes(70_000, 1) == [65_536, 70_000 - 65_536]
    assert sum(chunk_sizes(10**6, 100)) == 10**6 and max(chunk_sizes(10**6, 100)) == (1 << 21) // 100


def test_catalogue_entries_ship_by_name_and_others_by_pickle():
    ref, note = ship(dpaudit.get("laplace"), dpaudit.get("laplace"))
    assert ref == MechanismRef("name", "laplace", "laplace") and note is None
    from dpaudit.mechanisms.catalogue.laplace import laplace_count

    # Same name, other parameters: not the catalogue entry, so it travels pickled (cloudpickle: closures).
    other, _ = ship(laplace_count(epsilon=2.0), laplace_count(epsilon=2.0))
    assert other is not None and other.kind == "pickle"
    rebuilt = other.build()
    rng_a, rng_b = np.random.default_rng(1), np.random.default_rng(1)
    assert np.array_equal(rebuilt.sample((1, 0), 10, rng_a), laplace_count(epsilon=2.0).sample((1, 0), 10, rng_b))


def test_file_targets_ship_by_absolute_spec(tmp_path, monkeypatch):
    (tmp_path / "mech.py").write_text("def f(q, n, rng):\n    return q + rng.laplace(0, 1, size=n)\n")
    monkeypatch.chdir(tmp_path)
    ref, _ = ship(None, "mech.py:f")
    assert ref.kind == "target" and ref.payload == f"{tmp_path / 'mech.py'}:f"
    assert ref.build().sample(0.0, 3, np.random.default_rng(0)).shape == (3,)


def test_unshippable_mechanism_runs_in_process_with_a_note():
    lock = threading.Lock()  # neither pickle nor cloudpickle can serialise a lock

    def sample(q, n, rng):
        with lock:
            return q + rng.laplace(0.0, 1.0, size=n)

    mechanism = dpaudit.Mechanism(name="locked", claim=PureDP(1.0), neighbours=QueryDistance(1.0), sampler=sample)
    ref, note = ship(mechanism, mechanism)
    assert ref is None and "cannot be shipped" in note and "catalogue name" in note
    pooled = audit(mechanism, pair=(0.0, 1.0), samples=2_000, seed=4, executor="process-pool", workers=2)
    assert "cannot be shipped" in pooled.run.note
    assert _evidence(pooled) == _evidence(audit(mechanism, pair=(0.0, 1.0), samples=2_000, seed=4, executor="in-process"))


def test_bad_executor_names():
    with pytest.raises(InvalidArgument, match="executor='gpu' must be one of"):
        make_executor("gpu")
    with pytest.raises(InvalidArgument, match="dask://HOST:PORT"):
        make_executor("dask://")
    assert isinstance(make_executor("in-process"), InProcess)


def test_process_pool_result_is_bit_identical():
    kwargs = dict(samples=30_000, seed=21)
    local = audit("svt-lyu-4", executor="in-process", **kwargs)
    pooled = audit("svt-lyu-4", executor="process-pool", workers=2, **kwargs)
    assert pooled.run.executor == "process-pool" and pooled.run.workers == 2
    assert _evidence(pooled) == _evidence(local)


def test_threads_result_is_bit_identical_and_auto_uses_them_for_thread_safe_mechanisms():
    kwargs = dict(samples=30_000, seed=23)
    local = audit("laplace", executor="in-process", **kwargs)
    threaded = audit("laplace", executor="threads", workers=2, **kwargs)
    automatic = audit("laplace", executor="auto", workers=2, **kwargs)
    assert threaded.run.executor == "threads" and automatic.run.executor == "auto (threads)"
    assert _evidence(threaded) == _evidence(local) == _evidence(automatic)
    assert dpaudit.get("laplace").thread_safe  # every catalogue entry is marked
    plain = dpaudit.Mechanism.from_callable(lambda q, n, rng: q + rng.laplace(0.0, 1.0, n), claim=PureDP(1.0))
    assert not plain.thread_safe and not replace(dpaudit.get("laplace"), sampler=plain.sampler).thread_safe
    assert audit(plain, pair=(0.0, 1.0), executor="auto", workers=2, **kwargs).run.executor == "auto (in process)"


def test_dask_local_cluster_result_is_bit_identical():
    distributed = pytest.importorskip("distributed")
    kwargs = dict(samples=30_000, seed=22, pair=((0, 1, 2, 3), (0, 1, 2, 3, 0)))
    local = audit("laplace-vector", executor="in-process", **kwargs)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, protocol="tcp://", host="127.0.0.1",
        dashboard_address=None,
    ) as cluster:
        address = cluster.scheduler_address.removeprefix("tcp://")
        remote = audit("laplace-vector", executor=f"dask://{address}", **kwargs)
    assert remote.run.executor == f"dask://{address}"
    assert _evidence(remote) == _evidence(local)


def test_threads_stop_at_a_failing_chunk_with_its_error():
    # The third chunk fails; every later chunk that starts waits (up to 1 s) so that none can finish
    # before the failure is seen.  With 2 workers at most 2 of them start before the rest are
    # cancelled: exactly bounded, whatever the timing, so 3 + 2 calls of about 40 chunks at most.
    calls, hold = [], threading.Event()

    def fails_third(data, n, rng):
        calls.append(n)
        if len(calls) == 3:
            raise RuntimeError("boom")
        if len(calls) > 3:
            hold.wait(1.0)
        return rng.random(n)

    fails_third.thread_safe = True
    mechanism = dpaudit.Mechanism.from_callable(fails_third, claim=PureDP(1.0))
    assert mechanism.thread_safe
    with pytest.raises(dpaudit.MechanismError, match="boom"):
        audit(mechanism, pair=(0.0, 1.0), samples=10**6, seed=1, executor="threads", workers=2)
    assert len(calls) <= 3 + 2


def _child_audit() -> float:
    return audit("laplace-numpy", samples=2_000, seed=1).epsilon_lower_bound


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs fork")
def test_an_audit_in_a_forked_child_after_one_in_the_parent():
    # the search threads live only inside one audit: a child forked later starts with none half-owned
    import multiprocessing

    parent = _child_audit()
    with multiprocessing.get_context("fork").Pool(1) as pool:
        assert pool.apply_async(_child_audit).get(timeout=120) == parent
