"""pytest plugin: prove and audit DP mechanisms in a test suite, deterministically.

Registered through the ``pytest11`` entry point.  This module imports only the standard library and
pytest; dpaudit itself (numpy, and sympy/statsmodels when a proof or audit runs) is imported inside
the hooks that need it, so a test run that audits nothing pays nothing.

Use it three ways::

    @pytest.mark.dp(epsilon=1.0)               # the test returns (or yields) a mechanism or callable
    def test_my_mechanism():
        return my_mechanism

    def test_with_fixture(dp):                 # the `dp` fixture
        dp.assert_private(my_mechanism, epsilon=1.0, pair=([0, 1], [0, 1, 1]))
        dp.assert_proved(my_declared_mechanism)
        dp.assert_sensitivity(my_query, sensitivity=1.0)

Calibrated flakiness.  Every audit runs at confidence ``1 - 1e-6`` by default: a mechanism that keeps
its claim fails a given test with probability at most 1e-6 (the auditor's guarantee), and the terminal
summary states the suite-wide bound by the union bound, ``sum(1 - confidence)`` over the audits run.
The run's seed is fixed by default (``--dp-seed``, printed in the header) and each test's seed is
derived from it and the test's node id, so a test's result does not depend on which others ran.

Re-seeding a failure is refused.  A violation found under one seed is evidence against the mechanism;
drawing new seeds until an audit passes would turn the 1e-6 false-alarm rate into a certainty.  The
plugin remembers in pytest's cache the seed under which each audit failed, and a later run of that test
under a different run seed fails with that explanation instead of passing.  The record is cleared when
the test passes under the seed that failed (i.e. after the mechanism was fixed).
"""

from __future__ import annotations

import argparse
import hashlib
import inspect
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

SAMPLES_OPTION = "--dp-samples"
CONFIDENCE_OPTION = "--dp-confidence"
SEED_OPTION = "--dp-seed"
REPORT_OPTION = "--dp-report"
SKIP_AUDITS_OPTION = "--dp-skip-audits"

DEFAULT_CONFIDENCE = 1 - 1e-6
DEFAULT_SEED = 20260101
MARKER_KEYWORDS = ("epsilon", "delta", "samples", "confidence", "pair", "neighbours")
_CACHE_KEY = "dpaudit/failed-seeds"
_PROPERTY = "dpaudit"


# ---------------------------------------------------------------- option parsing


def seed_type(text: str) -> int | str:
    """A run seed: a non-negative integer, ``random`` or ``last`` (the previous run's seed)."""
    if text in ("random", "last"):
        return text
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{SEED_OPTION}={text!r} must be a non-negative integer, 'random' or 'last'")
    if value < 0:
        raise argparse.ArgumentTypeError(f"{SEED_OPTION}={text!r} must be a non-negative integer")
    return value


def samples_type(text: str) -> int:
    """A per-side sample budget: a positive integer (``1e6`` accepted)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{SAMPLES_OPTION}={text!r} must be a positive integer")
    if not value.is_integer() or value <= 0:
        raise argparse.ArgumentTypeError(f"{SAMPLES_OPTION}={text!r} must be a positive integer")
    return int(value)


def confidence_type(text: str) -> float:
    """A confidence level strictly between 0 and 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{CONFIDENCE_OPTION}={text!r} must be a number in (0, 1)")
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"{CONFIDENCE_OPTION}={text!r} must be a number in (0, 1)")
    return value


_OPTIONS: tuple[tuple[str, dict[str, Any]], ...] = (
    (SAMPLES_OPTION, {"type": samples_type, "help": "samples per side for every audit (default: the auditor's)"}),
    (CONFIDENCE_OPTION, {"type": confidence_type, "help": f"confidence of every audit (default {DEFAULT_CONFIDENCE})"}),
    (SEED_OPTION, {"type": seed_type, "help": f"the run's seed: integer, 'random' or 'last' (default {DEFAULT_SEED})"}),
    (REPORT_OPTION, {"type": str, "metavar": "DIR", "help": "write a JSON report of every audit into DIR"}),
    (SKIP_AUDITS_OPTION, {"action": "store_true", "help": "skip Monte Carlo audits (proofs and sensitivity checks still run)"}),
)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("dpaudit", "differential-privacy audits (dpaudit)")
    for flag, spec in _OPTIONS:
        dest = "dp_" + flag[len("--dp-") :].replace("-", "_")
        group.addoption(flag, dest=dest, default=None, **spec)
        ini_type = "bool" if spec.get("action") == "store_true" else "string"
        parser.addini(dest, spec["help"], type=ini_type, default=None)


def _option(config: pytest.Config, flag: str) -> Any:
    """Command line first, then the ini file (parsed with the option's own type)."""
    dest = "dp_" + flag[len("--dp-") :].replace("-", "_")
    value = config.getoption(dest)
    if value is not None and value is not False:
        return value
    ini = config.getini(dest)
    if ini in (None, "", False):
        return None
    spec = dict(_OPTIONS)[flag]
    if "type" in spec and isinstance(ini, str):
        try:
            return spec["type"](ini)
        except argparse.ArgumentTypeError as exc:
            raise pytest.UsageError(f"ini option {dest}: {exc}") from None
    return ini


# ---------------------------------------------------------------- configuration and seeds


class _Settings:
    """The run's dpaudit settings, resolved once in pytest_configure."""

    def __init__(self, config: pytest.Config) -> None:
        self.samples: int | None = _option(config, SAMPLES_OPTION)
        self.confidence: float = _option(config, CONFIDENCE_OPTION) or DEFAULT_CONFIDENCE
        self.report_dir: str | None = _option(config, REPORT_OPTION)
        self.skip_audits: bool = bool(_option(config, SKIP_AUDITS_OPTION))
        seed = _option(config, SEED_OPTION)
        cache = getattr(config, "cache", None)
        worker_input = getattr(config, "workerinput", None)
        if worker_input is not None and "dpaudit_seed" in worker_input:
            seed, cache = worker_input["dpaudit_seed"], None  # an xdist worker: the controller decided
        elif seed == "last":
            seed = cache.get("dpaudit/last-seed", None) if cache else None
            if seed is None:
                raise pytest.UsageError(f"{SEED_OPTION}=last: no previous run recorded a seed")
        elif seed == "random":
            import secrets

            seed = secrets.randbelow(2**32)
        self.seed: int = DEFAULT_SEED if seed is None else int(seed)
        if cache is not None:
            cache.set("dpaudit/last-seed", self.seed)


def test_seed(run_seed: int, nodeid: str) -> int:
    """The seed of one test: SHA-256 of the run seed and the node id, first 8 bytes (independent of
    which other tests run, and of their order, so serial and xdist runs agree)."""
    digest = hashlib.sha256(f"{run_seed}:{nodeid}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


test_seed.__test__ = False  # type: ignore[attr-defined]  # not a test, despite its name


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "dp(epsilon=None, delta=None, samples=None, confidence=None, pair=None, neighbours=None): audit the mechanism "
        "or callable the test returns or yields against the claim (dpaudit)",
    )
    settings = _Settings(config)
    config.stash[_SETTINGS] = settings
    config.pluginmanager.register(_Summary(settings), "dpaudit-summary")


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """pytest-xdist: workers take the controller's run seed (matters for ``random`` and ``last``)."""
    node.workerinput["dpaudit_seed"] = node.config.stash[_SETTINGS].seed


_SETTINGS = pytest.StashKey["_Settings"]()


def pytest_report_header(config: pytest.Config) -> str:
    s = config.stash[_SETTINGS]
    samples = s.samples if s.samples is not None else "auditor default"
    skip = ", audits skipped" if s.skip_audits else ""
    return f"dpaudit: {SEED_OPTION}={s.seed} (confidence {s.confidence:g}, samples {samples}{skip})"


# ---------------------------------------------------------------- marker


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
    if returned is None:
        raise pytest.UsageError(
            f"{pyfuncitem.nodeid}: a test marked @pytest.mark.dp must return or yield the mechanism to audit"
        )
    _session(pyfuncitem).assert_private(returned, **kwargs)
    return True


# ---------------------------------------------------------------- the fixture


class DPSession:
    """What the ``dp`` fixture yields: privacy assertions bound to one test's seed and settings."""

    def __init__(self, item: pytest.Item) -> None:
        self._item = item
        self._settings: _Settings = item.config.stash[_SETTINGS]
        self.seed = test_seed(self._settings.seed, item.nodeid)
        self._calls = 0

    def _next_seed(self) -> int:
        # Several audits in one test get distinct, reproducible seeds.
        seed = self.seed if self._calls == 0 else test_seed(self.seed, f"#{self._calls}")
        self._calls += 1
        return seed

    def assert_private(
        self,
        target: Any,
        *,
        epsilon: float | None = None,
        delta: float | None = None,
        pair: tuple[Any, Any] | None = None,
        samples: int | None = None,
        confidence: float | None = None,
        neighbours: Any = None,
    ) -> Any:
        """Audit ``target`` and fail the test on a violation (warn when underpowered).

        ``target`` is a Mechanism, a catalogue name or a plain function ``f(data, rng)`` /
        ``f(data, n, rng)``; for a plain function ``neighbours`` names the relation (default: add/remove
        when ``pair`` holds two datasets whose sizes differ by one, else query values within distance 1).
        Returns the AuditResult.
        """
        if self._settings.skip_audits:
            pytest.skip(f"audit skipped by {SKIP_AUDITS_OPTION}")
        import dpaudit

        target = _with_relation(target, epsilon, delta, pair, neighbours)
        seed = self._next_seed()
        confidence = confidence if confidence is not None else self._settings.confidence
        samples = samples if samples is not None else self._settings.samples
        try:
            result = dpaudit.audit(
                target,
                epsilon=epsilon,
                delta=0.0 if delta is None else delta,
                pair=pair,
                samples=samples,
                seed=seed,
                confidence=confidence,
            )
        except dpaudit.DPAuditError as exc:
            pytest.fail(f"dpaudit could not audit {_describe(target)}: {exc}", pytrace=False)
        verdict = _verdict(result)
        self._record(result, verdict, target, seed)
        reproduce = _reproduce_line(target, result, self._item.nodeid, self._settings.seed)
        if verdict == "violation":
            self._remember_failure()
            pytest.fail(_violation_message(result, reproduce), pytrace=False)
        self._check_not_reseeded()
        if verdict == "underpowered":
            import warnings

            from dpaudit.errors import UnderpoweredWarning

            warnings.warn(
                UnderpoweredWarning(
                    f"audit of {_describe(target)} is underpowered: {_bound_line(result)}; "
                    f"increase {SAMPLES_OPTION} (neither a pass nor a violation is evidence here)"
                ),
                stacklevel=2,
            )
        return result

    def assert_proved(self, mechanism: Any, **options: Any) -> Any:
        """Prove ``mechanism`` from its declared density; fail unless the verdict is ``proved``."""
        import dpaudit

        result = dpaudit.prove(mechanism, **options)
        verdict = _verdict(result)
        if verdict != "proved":
            reason = getattr(result, "reason", "") or ""
            witness = getattr(result, "counterexample", None)
            detail = f"\n  counterexample: {witness}" if witness is not None else ""
            pytest.fail(f"dpaudit: {_describe(mechanism)} was not proved: {verdict}. {reason}{detail}", pytrace=False)
        return result

    def assert_sensitivity(
        self, query: Callable[[Any], Any], sensitivity: float, *, strategy: Any = None, **options: Any
    ) -> Any:
        """Search (with hypothesis) for neighbouring datasets whose query values differ by more than
        ``sensitivity``; fail with the shrunk counterexample if one is found.

        ``strategy`` is a hypothesis strategy of neighbouring pairs (e.g.
        ``dpaudit.strategies.neighbouring_pairs(...)``); without it dpaudit's own adversarial search
        runs (:func:`dpaudit.auditor.sensitivity.falsify_sensitivity`, options passed through: ``lo``,
        ``hi``, ``dtype``, ``neighbours``, ``max_examples``, ``rtol``).  Deterministic either way.
        """
        if strategy is None:
            from dpaudit.auditor.sensitivity import falsify_sensitivity

            result = falsify_sensitivity(query, sensitivity, **options)
            if _verdict(result) == "violation":
                a, b = result.datasets()
                pytest.fail(
                    f"dpaudit: declared sensitivity {sensitivity:g} is exceeded: |f(D) - f(D')| = "
                    f"{float(result.difference):.6g} on D={_short(a)} vs D'={_short(b)} "
                    f"({result.examples_tried} examples tried)",
                    pytrace=False,
                )
            return result
        from hypothesis import HealthCheck, find, settings
        from hypothesis.errors import NoSuchExample

        from dpaudit.strategies import exact_gap

        def breaks(pair: tuple[Any, Any]) -> bool:
            return exact_gap(query(pair[0]), query(pair[1])) > sensitivity

        quiet = settings(
            derandomize=True, database=None, max_examples=options.get("max_examples", 300),
            suppress_health_check=list(HealthCheck), deadline=None,
        )
        try:
            a, b = find(strategy, breaks, settings=quiet)
        except NoSuchExample:
            return None
        gap = float(exact_gap(query(a), query(b)))
        pytest.fail(
            f"dpaudit: declared sensitivity {sensitivity:g} is exceeded: |f(D) - f(D')| = {gap:.6g} "
            f"on D={_short(a)} vs D'={_short(b)} (shrunk by hypothesis)",
            pytrace=False,
        )

    # -- bookkeeping

    def _record(self, result: Any, verdict: str, target: Any, seed: int) -> None:
        document = result.as_dict()
        summary = {
            "nodeid": self._item.nodeid,
            "mechanism": _describe(target),
            "verdict": verdict,
            "epsilon_lower_bound": document.get("epsilon_lower_bound"),
            "confidence": document.get("confidence"),
            "seed": seed,
        }
        self._item.user_properties.append((_PROPERTY, json.dumps(summary)))
        if self._settings.report_dir:
            # Imported here: the reports (jinja2, matplotlib, sympy) load only when a report is asked for.
            from dpaudit.reports import report_from_audit, write

            directory = Path(self._settings.report_dir)
            stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", self._item.nodeid)[-150:]
            suffix = f"-{self._calls - 1}" if self._calls > 1 else ""
            reproduce = " ".join(_reproduce_line(target, result, self._item.nodeid, self._settings.seed).split())
            report = report_from_audit(result, target, proof_note="not run by the pytest plugin", reproduce=reproduce)
            for extension in (".json", ".html"):
                write(report, directory / f"{stem}{suffix}{extension}")

    def _remember_failure(self) -> None:
        cache = getattr(self._item.config, "cache", None)
        if cache is not None:
            failed = cache.get(_CACHE_KEY, {})
            failed.setdefault(self._item.nodeid, self._settings.seed)
            cache.set(_CACHE_KEY, failed)

    def _check_not_reseeded(self) -> None:
        cache = getattr(self._item.config, "cache", None)
        if cache is None:
            return
        failed = cache.get(_CACHE_KEY, {})
        if self._item.nodeid not in failed:
            return
        failed_seed = failed[self._item.nodeid]
        if failed_seed == self._settings.seed:
            del failed[self._item.nodeid]  # passes under the seed that failed: the fix is real
            cache.set(_CACHE_KEY, failed)
            return
        pytest.fail(
            f"dpaudit: this audit found a violation under {SEED_OPTION}={failed_seed}; passing under another "
            f"seed is not evidence (re-seeding until green defeats the false-alarm bound). Run with "
            f"{SEED_OPTION}={failed_seed} after fixing the mechanism, or clear pytest's cache "
            "(--cache-clear) to start over.",
            pytrace=False,
        )


@pytest.fixture
def dp(request: pytest.FixtureRequest) -> DPSession:
    """Privacy assertions for one test: ``dp.assert_private``, ``dp.assert_proved``, ``dp.assert_sensitivity``."""
    return _session(request.node)


def _session(item: pytest.Item) -> DPSession:
    return DPSession(item)


def _with_relation(target: Any, epsilon: Any, delta: Any, pair: Any, neighbours: Any) -> Any:
    """A plain callable becomes a Mechanism under the given (or the pair's evident) relation."""
    import dpaudit

    if isinstance(target, (str, dpaudit.Mechanism)) or not callable(target):
        if neighbours is not None:
            raise pytest.UsageError("neighbours= applies to plain functions; a Mechanism carries its own relation")
        return target
    if neighbours is None:
        sized = pair is not None and all(hasattr(x, "__len__") and not isinstance(x, str) for x in pair)
        if sized and abs(len(pair[0]) - len(pair[1])) == 1:
            neighbours = dpaudit.AddRemove()
    if neighbours is None:
        return target
    if epsilon is None:
        raise pytest.UsageError("epsilon= is required to audit a plain function")
    claim = dpaudit.ApproxDP(epsilon, delta) if delta else dpaudit.PureDP(epsilon)
    return dpaudit.Mechanism.from_callable(target, claim=claim, neighbours=neighbours)


# ---------------------------------------------------------------- messages


def _verdict(result: Any) -> str:
    verdict = getattr(result, "verdict", None)
    return str(getattr(verdict, "value", verdict))


def _describe(target: Any) -> str:
    if isinstance(target, str):
        return target
    return str(getattr(target, "name", None) or getattr(target, "__qualname__", None) or type(target).__name__)


def _short(value: Any, limit: int = 120) -> str:
    text = repr(value if not hasattr(value, "tolist") else value.tolist())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _bound_line(result: Any) -> str:
    bound = result.epsilon_lower_bound
    return f"epsilon >= {bound:.4g} at confidence {result.confidence:g}"


def _reproduce_line(target: Any, result: Any, nodeid: str, run_seed: int) -> str:
    """The ``dpaudit audit`` command that reruns exactly this audit, and the pytest line that does."""
    pytest_line = f"pytest '{nodeid}' {SEED_OPTION}={run_seed}"
    spec = _target_spec(target)
    if spec is None:
        return pytest_line
    d = result.as_dict()
    claim = d["claim"]
    parts = ["dpaudit audit", spec, f"--epsilon {claim['epsilon']:g}"]
    if claim.get("delta"):
        parts.append(f"--delta {claim['delta']:g}")
    relation = getattr(target, "neighbours", None)
    if ":" in spec and relation is not None:  # a wrapped plain function: its relation is not in the file
        parts.append(f"--neighbours {relation.name}")
    a, b = d["pair"]
    parts += [f"--a '{json.dumps(a)}'", f"--b '{json.dumps(b)}'"]
    parts += [f"--samples {result.samples}", f"--confidence {result.confidence:g}", f"--seed {result.seed}"]
    return " ".join(parts) + f"\n               or: {pytest_line}"


def _target_spec(target: Any) -> str | None:
    """``name`` for catalogue entries, ``path/file.py:qualname`` for module-level objects, else None."""
    if isinstance(target, str):
        return target
    obj = target
    name = getattr(target, "name", None)
    if name is not None and not callable(target):
        try:
            import dpaudit

            if name in dpaudit.names():
                return name
        except Exception:  # noqa: BLE001 - a broken catalogue must not hide the failure being reported
            return None
        obj = getattr(target, "sampler", None)
        obj = getattr(obj, "one_run", obj)
    qualname = getattr(obj, "__qualname__", "")
    if not qualname or "<" in qualname:
        return None
    try:
        path = inspect.getsourcefile(obj)
    except TypeError:
        return None
    if path is None:
        return None
    try:
        path = str(Path(path).relative_to(Path.cwd()))
    except ValueError:
        pass
    return f"{path}:{qualname}"


def _violation_message(result: Any, reproduce: str) -> str:
    d = result.as_dict()
    pair = d.get("pair")
    lines = [
        f"dpaudit: privacy violation by {d.get('target')!r}",
        f"  claim:       {result.claim}",
        f"  verdict:     {_verdict(result)}",
        f"  lower bound: {_bound_line(result)} ({d.get('method', 'auditor default method')})",
        f"  event:       {result.event}",
        f"  pair:        a={pair[0] if pair else None!r}  b={pair[1] if pair else None!r}",
        f"  samples:     {result.samples} per side (verification stage)",
        f"  reproduce:   {reproduce}",
    ]
    return "\n".join(lines)


# ---------------------------------------------------------------- summary (controller side under xdist)


class _Summary:
    """Collects each audit's one-line result from the test reports (xdist ships ``user_properties``
    from the workers to the controller) and prints the terminal summary."""

    def __init__(self, settings: _Settings) -> None:
        self.settings = settings
        self.rows: list[dict[str, Any]] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "call":
            return
        for key, value in report.user_properties:
            if key == _PROPERTY:
                self.rows.append(json.loads(value))

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.rows:
            return
        tr = terminalreporter
        tr.section("dpaudit")
        tr.write_line(f"run seed {SEED_OPTION}={self.settings.seed}")
        for row in sorted(self.rows, key=lambda r: r["nodeid"]):
            bound = row["epsilon_lower_bound"]
            bound_text = bound if isinstance(bound, str) else f"{bound:.4g}"
            tr.write_line(
                f"{row['verdict']:<12} eps >= {bound_text:<8} @ {row['confidence']:g}  "
                f"{row['mechanism']}  ({row['nodeid']})"
            )
        false_alarm = sum(1 - float(r["confidence"]) for r in self.rows)
        tr.write_line(
            f"{len(self.rows)} audit(s); if every audited mechanism keeps its claim, the chance that any "
            f"was flagged is at most {false_alarm:.3g} (union bound over the per-audit levels)"
        )
