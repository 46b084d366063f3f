"""pytest plugin: prove and audit DP mechanisms in a test suite, deterministically.

Registered through the ``pytest11`` entry point.  This module imports only the standard library and
pytest; dpaudit itself (numpy, and sympy/statsmodels when a proof or audit runs) is imported inside
the hooks that need it, so a test run that audits nothing pays nothing.

Use it three ways::

    @pytest.mark.dp(epsilon=1.0)               # the test returns (or yields) a mechanism or callable
    def test_my_mechanism():
        return my_mechanism

    @pytest.mark.dp(claim=ZeroConcentratedDP(0.5), pair=(0.0, 1.0))   # any claim object
    def test_my_gaussian():
        return my_gaussian

    def test_with_fixture(dp):                 # the `dp` fixture
        dp.assert_private(my_mechanism, epsilon=1.0, pair=([0, 1], [0, 1, 1]))
        dp.assert_proved(my_declared_mechanism)
        dp.assert_certified(my_one_run_sampler, epsilon=1.0, pair=(0, 1))   # exact, on the code itself
        dp.assert_sensitivity(my_query, sensitivity=1.0)

Calibrated flakiness.  Every audit runs at confidence ``1 - 1e-6`` by default: a mechanism that keeps
its claim fails a given test with probability at most 1e-6 (the auditor's guarantee), and the terminal
summary states the suite-wide bound by the union bound, ``sum(1 - verdict_confidence)`` over the audits
run.  The plugin passes its level as ``confidence=`` to :func:`dpaudit.audit`, which takes the verdict
at max(confidence, verdict_confidence): 1 - 1e-6 here, and never below the auditor's 0.999 when a
looser ``--dp-confidence`` is given (the bound is then reported at that level as the estimate).
The run's seed is fixed by default (``--dp-seed``, printed in the header) and each test's seed is
derived from it and the test's node id, so a test's result does not depend on which others ran.

Re-seeding a failure is refused.  A violation found under one seed is evidence against the mechanism;
drawing new seeds until an audit passes would turn the 1e-6 false-alarm rate into a certainty.  The
plugin remembers in pytest's cache the seed under which each audit failed, and a later run of that test
under a different run seed fails with that explanation instead of passing.  The record is cleared when
the test passes under the seed that failed (i.e. after the mechanism was fixed).

Evidence lasts between runs (:mod:`dpaudit.evidence`).  Each audit's result is kept in a store --
pytest's cache by default (``.pytest_cache/d/dpaudit-evidence``), or ``--dp-store DIR`` -- under the key
of everything that decides it (the mechanism's code and declaration, claim, pair, budget, levels,
seed, checks, versions); a later run with the same key reads it back, and the summary says from
which run.  A stored violation fails as it did (and keeps the re-seeding record); ``--dp-fresh``
recomputes everything; an unreadable store file is one line in the summary, then recomputed.
"""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from .options import (
    CONFIDENCE_OPTION,
    DEFAULT_CONFIDENCE,
    DEFAULT_SEED,
    FRESH_OPTION,
    MARKER_KEYWORDS,
    REPORT_OPTION,
    SAMPLES_OPTION,
    SEED_OPTION,
    SETTINGS,
    SKIP_AUDITS_OPTION,
    STORE_OPTION,
    Settings,
    add_options,
    test_seed,
)
from .session import DPSession, Summary

__all__ = [
    "CONFIDENCE_OPTION",
    "DEFAULT_CONFIDENCE",
    "DEFAULT_SEED",
    "DPSession",
    "FRESH_OPTION",
    "REPORT_OPTION",
    "SAMPLES_OPTION",
    "SEED_OPTION",
    "SKIP_AUDITS_OPTION",
    "STORE_OPTION",
    "dp",
    "test_seed",
]


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"dp({', '.join(f'{keyword}=None' for keyword in MARKER_KEYWORDS)}): audit "
        "the mechanism or callable the test returns or yields against the claim (dpaudit)",
    )
    settings = Settings(config)
    config.stash[SETTINGS] = settings
    config.pluginmanager.register(Summary(settings), "dpaudit-summary")


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """pytest-xdist: workers take the controller's run seed (matters for ``random`` and ``last``)."""
    settings = node.config.stash[SETTINGS]
    node.workerinput["dpaudit_seed"] = settings.seed
    node.workerinput["dpaudit_store"] = settings.store_dir  # one store, and one run stamp, for every worker
    node.workerinput["dpaudit_run"] = (settings.run_id, settings.run_at)




def pytest_report_header(config: pytest.Config) -> list[str]:
    s = config.stash[SETTINGS]
    samples = s.samples if s.samples is not None else "auditor default"
    skip = ", audits skipped" if s.skip_audits else ""
    if s.store_dir is None:
        store = f"no evidence store (no pytest cache; {STORE_OPTION} DIR names one)"
    else:
        store = f"evidence store {s.store_dir}" + (f" ({FRESH_OPTION}: recomputing every audit)" if s.fresh else "")
    return [f"dpaudit: {SEED_OPTION}={s.seed} (confidence {s.confidence:g}, samples {samples}{skip})",
            f"dpaudit: {store}; this run is {s.run_id}"]


def _marker_kwargs(item: pytest.Item) -> dict[str, Any] | None:
    marker = item.get_closest_marker("dp")
    if marker is None:
        return None
    if marker.args:
        raise pytest.UsageError(
            f"{item.nodeid}: @pytest.mark.dp takes keyword arguments only ({', '.join(MARKER_KEYWORDS)}), "
            f"got positional {marker.args!r}"
        )
    unknown = sorted(set(marker.kwargs) - set(MARKER_KEYWORDS))
    if unknown:
        raise pytest.UsageError(
            f"{item.nodeid}: @pytest.mark.dp got unknown keyword(s) {', '.join(unknown)}; "
            f"allowed: {', '.join(MARKER_KEYWORDS)}"
        )
    kwargs = dict(marker.kwargs)
    pair = kwargs.get("pair")
    if pair is not None and (not isinstance(pair, (tuple, list)) or len(pair) != 2):
        raise pytest.UsageError(f"{item.nodeid}: @pytest.mark.dp(pair={pair!r}) must be a pair (a, b)")
    return kwargs


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        _marker_kwargs(item)  # validate early: a typo is a usage error, not a silent pass


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makeitem(collector: pytest.Collector, name: str, obj: Any) -> list[pytest.Function] | None:
    """Collect a generator test marked ``dp`` (it yields the mechanism) as a plain test.

    pytest refuses generator tests; a ``dp``-marked one is fine because the plugin runs it.
    """
    if not (inspect.isgeneratorfunction(obj) and collector.funcnamefilter(name)):
        return None
    marks = getattr(obj, "pytestmark", [])
    if not any(getattr(mark, "name", None) == "dp" for mark in marks):
        return None
    return [pytest.Function.from_parent(collector, name=name, callobj=obj)]


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    kwargs = _marker_kwargs(pyfuncitem)
    if kwargs is None:
        return None
    function = pyfuncitem.obj
    arguments = {name: pyfuncitem.funcargs[name] for name in pyfuncitem._fixtureinfo.argnames}
    returned = function(**arguments)
    if inspect.isgenerator(returned):
        generator = returned
        returned = next(generator, None)
        generator.close()
    if returned is None:  # the test's own mistake: its message, not the plugin's traceback
        pytest.fail(f"{pyfuncitem.nodeid}: a test marked @pytest.mark.dp must return or yield the mechanism to audit",
                    pytrace=False)
    _session(pyfuncitem).assert_private(returned, **kwargs)
    return True


@pytest.fixture
def dp(request: pytest.FixtureRequest) -> DPSession:
    """Privacy assertions for one test: ``dp.assert_private``, ``dp.assert_proved``, ``dp.assert_certified``,
    ``dp.assert_sensitivity``."""
    return _session(request.node)


def _session(item: pytest.Item) -> DPSession:
    return DPSession(item)


