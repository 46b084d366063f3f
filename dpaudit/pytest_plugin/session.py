"""The ``dp`` fixture's session: privacy assertions bound to one test's seed, their failure messages,
and the terminal summary collected on the controller (standard library and pytest only; dpaudit
itself is imported inside the assertions)."""

from __future__ import annotations

import inspect
import json
import re
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .options import (CACHE_KEY, FRESH_OPTION, PROPERTY, REPORT_OPTION, SAMPLES_OPTION, SEED_OPTION, SETTINGS,
                      SKIP_AUDITS_OPTION, Settings, test_seed)

__all__ = ["DPSession", "Summary"]


class DPSession:
    """What the ``dp`` fixture yields: privacy assertions bound to one test's seed and settings."""

    def __init__(self, item: pytest.Item) -> None:
        self._item = item
        self._settings: Settings = item.config.stash[SETTINGS]
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
        claim: Any = None,
        epsilon: float | None = None,
        delta: float | None = None,
        pair: tuple[Any, Any] | None = None,
        samples: int | None = None,
        confidence: float | None = None,
        neighbours: Any = None,
        data: Any = None,
        d_in: Any = None,
        randomness: str | None = None,
    ) -> Any:
        """Audit ``target`` and fail the test on a violation (warn when underpowered).

        ``target`` is a Mechanism, a catalogue name or a plain function ``f(data, rng)`` /
        ``f(data, n, rng)``.  ``claim`` is any claim object (``ZeroConcentratedDP(0.5)``, ...) and
        replaces the target's own; a plain function needs it or ``epsilon``.  It, ``epsilon``,
        ``delta``, ``pair``, ``neighbours`` and ``data`` mean what they mean to
        :func:`dpaudit.audit`: a plain function's pair is audited as given, under the relation its
        shapes state (two datasets whose sizes differ by one record: add/remove) unless
        ``neighbours`` names one.  An OpenDP measurement (with ``d_in``) or a diffprivlib mechanism
        object is audited through its adapter (:mod:`dpaudit.adapters`); ``randomness`` says what a plain
        function's randomness argument is, as for :func:`dpaudit.audit`.  Returns the AuditResult.
        """
        options = {name: value for name, value in locals().items() if name not in ("self", "target")}
        if self._settings.skip_audits:
            pytest.skip(f"audit skipped by {SKIP_AUDITS_OPTION}")
        import dpaudit
        from dpaudit.auditor import AuditConfig
        from dpaudit.evidence import EvidenceStore, RunStamp, recall_audit
        from dpaudit.targets import is_plain_callable

        if epsilon is None and claim is None and is_plain_callable(target):
            pytest.fail(f"dpaudit: epsilon= or claim= is required to audit the plain function {_describe(target)}",
                        pytrace=False)
        # The audit's options are this call's keywords, the run's settings filling the budget and the level.
        seed = self._next_seed()
        options["confidence"] = confidence if confidence is not None else self._settings.confidence
        options["samples"] = samples if samples is not None else self._settings.samples
        # A result whose key (code, claim, pair, budget, seed, versions) is in the evidence store is read back;
        # everything after this point treats it as the one just computed would be (dpaudit.evidence).
        settings = self._settings
        store = EvidenceStore(settings.store_dir) if settings.store_dir is not None else None
        try:
            evidence = recall_audit(AuditConfig.build(target, **options, seed=seed), store,
                                    RunStamp(settings.run_id, settings.run_at), fresh=settings.fresh)
        except dpaudit.DPAuditError as exc:
            problem = f"dpaudit could not audit {_describe(target)}: {exc}"
        else:
            problem = None
        if problem is not None:  # failed outside the handler: the message alone, without the error it replaces
            pytest.fail(problem, pytrace=False)
        result = evidence.result
        verdict = _verdict(result)
        self._record(result, verdict, target, seed, randomness, neighbours, evidence, pair, data)
        reproduce = _reproduce_line(target, result, self._item.nodeid, self._settings.seed, randomness,
                                    pair=pair, data=data, run_options=self._settings.run_options())
        if verdict == "violation":
            self._remember_failure()
            pytest.fail(_violation_message(result, reproduce, evidence), pytrace=False)
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
        """Prove ``mechanism`` from its declared density; fail unless the verdict is ``proved``.

        A proof whose key (the mechanism's identity and declaration, the options, the versions) is in the
        evidence store is read back (a :class:`dpaudit.evidence.Recorded` is returned in place of the
        ProofResult); the outcome and the message come from the same record either way."""
        from dpaudit.evidence import recall_proof

        settings = self._settings
        evidence = recall_proof(mechanism, options, self._store(), self._run(), fresh=settings.fresh)
        record = evidence.record
        self._record_exact("prove", record, mechanism, evidence)
        if record["verdict"] != "proved":
            witness = record["counterexample"]
            detail = f"\n  counterexample: {witness}" if witness is not None else ""
            pytest.fail(f"dpaudit: {_describe(mechanism)} was not proved: {record['verdict']}. {record['reason']}"
                        f"{detail}{_provenance(evidence)}", pytrace=False)
        return evidence.result

    def assert_certified(
        self,
        target: Any,
        *,
        epsilon: float | None = None,
        delta: float = 0.0,
        pair: tuple[Any, Any] | None = None,
        observe: str = "output",
        **options: Any,
    ) -> Any:
        """Certify ``target``'s claim on its own code by exact path enumeration (:func:`dpaudit.certify`);
        fail the test unless the verdict is ``certified``.

        ``target`` is a one-run sampler ``f(data, rng)`` (``rng`` a ``random.Random``), ``f(data)``, a
        catalogue name or a Mechanism with a one-run sampler.  ``epsilon`` and ``delta`` state the claim (a
        Mechanism's own when ``epsilon`` is None); ``pair``, ``observe`` and ``options`` (``claim``, ``pairs``,
        ``tolerance``, ``time_limit``, ``max_paths``, ``summarise``) mean what they mean to ``certify``.
        Refuted: the failure shows the result's lines (the witness output, both probability intervals, a
        path).  Unknown: it fails too -- a certificate was asked for -- with the reason.  Deterministic (no
        seed).  Returns the CertifyResult.
        """
        import dpaudit
        from dpaudit.evidence import recall_certificate

        claim = {"epsilon": epsilon, "delta": delta} if epsilon is not None else (
            {"delta": delta} if delta else {})
        # A certificate whose key (the target's code, the claim, pair, observe, the options, the versions) is
        # in the evidence store is read back; the outcome and the message come from its record either way.
        try:
            evidence = recall_certificate(target, claim, pair, observe, options, self._store(), self._run(),
                                          fresh=self._settings.fresh)
        except dpaudit.DPAuditError as exc:
            problem = f"dpaudit could not certify {_describe(target)}: {exc}"
        else:
            problem = ""
        if problem:  # failed outside the except block: the message once, without a chained traceback
            pytest.fail(problem, pytrace=False)
        record = evidence.record
        self._record_exact("certify", record, target, evidence)
        verdict, lines = record["verdict"], record["lines"]
        rerun = "  reproduce: " + _certify_line(target, epsilon, delta, pair, observe, options, self._item.nodeid)
        if verdict == "refuted":
            pytest.fail("\n".join([f"dpaudit: {_describe(target)} is refuted by exact path enumeration",
                                    *lines, rerun]) + _provenance(evidence), pytrace=False)
        if verdict != "certified":
            hint = "" if record["claim_stated"] else " (give epsilon= to state the claim)"
            pytest.fail("\n".join([f"dpaudit: {_describe(target)} was not certified ({verdict}): {record['reason']}"
                                    f"{hint}", *lines[2:], rerun]) + _provenance(evidence), pytrace=False)
        return evidence.result

    def assert_sensitivity(
        self, query: Callable[[Any], Any], sensitivity: float, *, strategy: Any = None, **options: Any
    ) -> Any:
        """Search (with hypothesis) for neighbouring datasets whose query values differ by more than
        ``sensitivity``; fail with the shrunk counterexample if one is found.

        ``strategy`` is a hypothesis strategy of neighbouring pairs (e.g.
        ``dpaudit.strategies.neighbouring_pairs(...)``); without it dpaudit's own adversarial search
        runs (:func:`dpaudit.auditor.falsify_sensitivity`, options passed through: ``lo``,
        ``hi``, ``dtype``, ``neighbours``, ``max_examples``, ``rtol``).  Deterministic either way.
        """
        if strategy is None:
            from dpaudit.auditor import falsify_sensitivity

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

    def _store(self) -> Any:
        from dpaudit.evidence import EvidenceStore

        return EvidenceStore(self._settings.store_dir) if self._settings.store_dir is not None else None

    def _run(self) -> Any:
        from dpaudit.evidence import RunStamp

        return RunStamp(self._settings.run_id, self._settings.run_at)

    def _record_exact(self, verb: str, record: dict[str, Any], target: Any, evidence: Any) -> None:
        """The summary's row of a proof (``verb`` "prove") or a certificate ("certify")."""
        stored = evidence.stored
        summary = {"nodeid": self._item.nodeid, "verb": verb, "mechanism": _describe(target),
                   "verdict": record["verdict"],
                   "stored": None if stored is None else {"run": stored.id, "at": stored.at},
                   "store_problems": list(evidence.problems)}
        self._item.user_properties.append((PROPERTY, json.dumps(summary)))

    def _record(
        self, result: Any, verdict: str, target: Any, seed: int, randomness: str | None = None, neighbours: Any = None,
        evidence: Any = None, pair: tuple[Any, Any] | None = None, data: Any = None,
    ) -> None:
        document = result.as_dict()
        stored = getattr(evidence, "stored", None)
        summary = {
            "nodeid": self._item.nodeid,
            "mechanism": _describe(target),
            "verdict": verdict,
            "epsilon_lower_bound": document.get("epsilon_lower_bound"),
            "confidence": document.get("confidence"),
            "verdict_confidence": document.get("verdict_confidence") or document.get("confidence"),
            "seed": seed,
            "stored": None if stored is None else {"run": stored.id, "at": stored.at},
            "store_problems": list(getattr(evidence, "problems", ())),
        }
        if self._settings.report_dir:
            # Imported here: the reports (jinja2, matplotlib, sympy) load only when a report is asked for.
            from dpaudit._paths import write_or_keep
            from dpaudit.reports import format_for, render, report_from_audit

            directory = Path(self._settings.report_dir)
            stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", self._item.nodeid)[-150:]
            suffix = f"-{self._calls - 1}" if self._calls > 1 else ""
            reproduce = " ".join(
                _reproduce_line(target, result, self._item.nodeid, self._settings.seed, randomness,
                                pair=pair, data=data, run_options=self._settings.run_options()).split()
            )
            report = report_from_audit(result, target, proof_note="not run by the pytest plugin", reproduce=reproduce,
                                       neighbours=neighbours)
            try:
                directory.mkdir(exist_ok=True)  # its parent was checked when the run started
            except OSError:
                pass  # removed meanwhile: the reports go to temporary files, named in the summary
            for extension in (".json", ".html"):
                path = directory / f"{stem}{suffix}{extension}"
                try:
                    where, why = write_or_keep(render(report, format_for(path)), path)
                except OSError as exc:  # not even a temporary file: the summary line is all that is left
                    where, why = None, f"could not write {str(path)!r} nor a temporary file ({exc.strerror or exc})"
                if why is not None:
                    kept = f"; kept in {where}" if where is not None else ""
                    summary.setdefault("report_problems", []).append(f"{REPORT_OPTION}: {why}{kept}")
        self._item.user_properties.append((PROPERTY, json.dumps(summary)))

    def _remember_failure(self) -> None:
        cache = getattr(self._item.config, "cache", None)
        if cache is not None:
            failed = cache.get(CACHE_KEY, {})
            failed.setdefault(self._item.nodeid, self._settings.seed)
            cache.set(CACHE_KEY, failed)

    def _check_not_reseeded(self) -> None:
        cache = getattr(self._item.config, "cache", None)
        if cache is None:
            return
        failed = cache.get(CACHE_KEY, {})
        if self._item.nodeid not in failed:
            return
        failed_seed = failed[self._item.nodeid]
        if failed_seed == self._settings.seed:
            del failed[self._item.nodeid]  # passes under the seed that failed: the fix is real
            cache.set(CACHE_KEY, failed)
            return
        pytest.fail(
            f"dpaudit: this audit found a violation under {SEED_OPTION}={failed_seed}; passing under another "
            f"seed is not evidence (re-seeding until green defeats the false-alarm bound). Run with "
            f"{SEED_OPTION}={failed_seed} after fixing the mechanism, or clear pytest's cache "
            "(--cache-clear) to start over.",
            pytrace=False,
        )


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
    """The bound at its confidence; when the verdict was taken at a stricter level, that bound too."""
    text = f"epsilon >= {result.epsilon_lower_bound:.4g} at confidence {result.confidence:g}"
    decisive = getattr(result, "verdict_epsilon_lower_bound", None)
    if decisive is None or result.verdict_confidence == result.confidence:
        return text
    return f"{text} (estimate); epsilon >= {decisive:.4g} at the verdict's confidence {result.verdict_confidence:g}"


def _reproduce_line(target: Any, result: Any, nodeid: str, run_seed: int, randomness: str | None = None, *,
                    pair: tuple[Any, Any] | None = None, data: Any = None, run_options: str = "") -> str:
    """The ``dpaudit audit`` command that reruns exactly this audit, and the pytest line that does.

    ``pair`` / ``data`` are the call's own (the pair as given, not as the result orders it: each side draws
    from its own stream; neither: the audit chose the pair, and so does the command); ``run_options`` the
    run's options the pytest line needs besides the seed (``--dp-samples``, ``--dp-confidence``)."""
    from ..auditor import not_reproducible_suffix

    pytest_line = f"pytest '{nodeid}' {SEED_OPTION}={run_seed}" + (f" {run_options}" if run_options else "")
    spec = _target_spec(target)
    if spec is None:
        return pytest_line + not_reproducible_suffix(result)
    d = result.as_dict()
    options = _claim_options(result.claim)
    if options is None:  # a claim no option states (a tabulated curve, RDP at several orders): the pytest line
        return pytest_line + not_reproducible_suffix(result)
    parts = ["dpaudit audit", spec, *options]
    relation = (d.get("neighbours") or {}).get("relation")
    if ":" in spec and relation is not None:  # a plain function: its relation is not in the file
        from dpaudit.neighbours import RELATIONS, relation_from_dict, relation_spec

        if relation.get("relation") not in RELATIONS:  # a relation of the user's own, which no option names
            return pytest_line + not_reproducible_suffix(result)
        parts.append(f"--neighbours {shlex.quote(relation_spec(relation_from_dict(relation)))}")
    if pair is not None:
        parts += _pair_options(pair)
    elif data is not None:
        parts.append(f"--data {_json_argument(data)}")
    randomness = randomness or getattr(target, "randomness", "generator")
    if ":" in spec and randomness != "generator":  # a wrapped plain function: how it is called is not in the file
        parts.append(f"--randomness {randomness}")
    parts += [f"--samples {result.samples}", f"--confidence {result.confidence:g}", f"--seed {result.seed}"]
    return " ".join(parts) + not_reproducible_suffix(result) + f"\n               or: {pytest_line}"


def _certify_line(target: Any, epsilon: float | None, delta: float, pair: tuple[Any, Any] | None, observe: str,
                  options: dict[str, Any], nodeid: str) -> str:
    """The ``dpaudit certify`` command that reruns a certification (deterministic: no seed), when every option
    has a command-line form, and the pytest line that does."""
    pytest_line = f"pytest '{nodeid}'"
    spec = _target_spec(target)
    flags = {"tolerance": "--tolerance", "time_limit": "--time-limit", "max_paths": "--max-paths"}
    if spec is None or set(options) - set(flags):  # claim=, pairs=, summarise=: no option states them
        return pytest_line
    parts = ["dpaudit certify", shlex.quote(spec), *(_pair_options(pair) if pair is not None else ())]
    if epsilon is not None:
        parts.append(f"--epsilon {_number(epsilon)}")
    if delta:
        parts.append(f"--delta {_number(delta)}")
    if observe != "output":
        parts.append(f"--observe {observe}")
    parts += [f"{flags[name]} {options[name]!r}" for name in flags if name in options]
    return " ".join(parts) + f"\n               or: {pytest_line}"


def _json_argument(value: Any) -> str:
    """``value`` (numpy arrays and tuples too) as a JSON command-line argument, quoted for the shell."""
    from .._codec import to_json

    return shlex.quote(json.dumps(to_json(value)))


def _pair_options(pair: tuple[Any, Any]) -> list[str]:
    """``--a JSON --b JSON``: the pair in the order the caller gave it (each side draws from its own stream)."""
    return [f"--{side} {_json_argument(x)}" for side, x in zip("ab", pair)]


def _number(value: float) -> str:
    """``value`` as typed on a command line: short when that is exact, else its repr."""
    return f"{value:g}" if float(f"{value:g}") == value else repr(value)


def _claim_options(claim: Any) -> list[str] | None:
    """The ``dpaudit audit`` options that state ``claim`` (as ``--claim`` / ``--rho`` / ``--mu`` / ``--alpha``
    and ``--epsilon`` / ``--delta`` read it), or None when no option states it."""
    from dpaudit.claims import GaussianDP, RenyiDP, ZeroConcentratedDP

    if not claim.is_curve:
        if claim.bounds_loss_per_output:  # probabilistic DP: --epsilon / --delta alone would state approximate DP
            return [f"--claim {claim.kind} --epsilon {_number(claim.epsilon)} --delta {_number(claim.delta)}"]
        return [f"--epsilon {_number(claim.epsilon)}"] + ([f"--delta {_number(claim.delta)}"] if claim.delta else [])
    if isinstance(claim, ZeroConcentratedDP):
        return [f"--rho {_number(claim.rho)}"]
    if isinstance(claim, GaussianDP):
        return [f"--mu {_number(claim.mu)}"]
    if isinstance(claim, RenyiDP) and len(claim.alpha) == 1:
        return [f"--alpha {_number(claim.alpha[0])} --epsilon {_number(claim.epsilon[0])}"]
    return None


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
        obj = getattr(obj, "function", obj)
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


def _provenance(evidence: Any) -> str:
    """The failure's last line when its result was read back from the evidence store, else nothing."""
    if evidence.stored is None:
        return ""
    return f"\n  evidence: {evidence.provenance} (a stored result fails as it did; {FRESH_OPTION} recomputes)"


def _violation_message(result: Any, reproduce: str, evidence: Any = None) -> str:
    d = result.as_dict()
    stored = getattr(evidence, "stored", None)
    pair = d.get("pair")
    lines = [
        f"dpaudit: privacy violation by {d.get('target')!r}",
        f"  claim:       {result.claim}",
        f"  verdict:     {_verdict(result)}",
        f"  lower bound: {_bound_line(result)} ({d.get('method', 'auditor default method')})"
        + (f" at the working point {result.point_claim()}, an estimate" if d.get("curve_check") else ""),
        # A curve claim (zCDP, RDP, GDP, a privacy curve) is decided on the empirical curve: say how.
        *([f"  decided:     {result.reason}"] if d.get("curve_check") else []),
        f"  event:       {result.event}",
        f"  pair:        a={pair[0] if pair else None!r}  b={pair[1] if pair else None!r}",
        *([f"  neighbours:  {d['neighbours']['statement']}"] if d.get("neighbours") else []),
        f"  samples:     {result.samples} per side (verification stage)",
        f"  reproduce:   {reproduce}",
        # A violation read from the evidence store fails as it did when computed: say which run found it.
        *([f"  evidence:    {evidence.provenance} (a stored violation still fails; {FRESH_OPTION} recomputes)"]
          if stored is not None else []),
    ]
    return "\n".join(lines)


class Summary:
    """Collects each audit's one-line result from the test reports (xdist ships ``user_properties``
    from the workers to the controller) and prints the terminal summary."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.rows: list[dict[str, Any]] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "call":
            return
        for key, value in report.user_properties:
            if key == PROPERTY:
                self.rows.append(json.loads(value))

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.rows:
            return
        tr = terminalreporter
        tr.section("dpaudit")
        audits = [r for r in self.rows if r.get("verb", "audit") == "audit"]
        if audits:
            tr.write_line(f"run seed {SEED_OPTION}={self.settings.seed}")
        for row in sorted(self.rows, key=lambda r: r["nodeid"]):
            if row.get("verb", "audit") == "audit":
                bound = row["epsilon_lower_bound"]
                bound_text = bound if isinstance(bound, str) else f"{bound:.4g}"
                level = f"{row['confidence']:g}"
                if row.get("verdict_confidence") and row["verdict_confidence"] != row["confidence"]:
                    level += f" (verdict @ {row['verdict_confidence']:g})"  # the level the flag is taken at
                tr.write_line(f"{row['verdict']:<12} eps >= {bound_text:<8} @ {level}  "
                              f"{row['mechanism']}  ({row['nodeid']})")
            else:  # a proof or a certificate: exact, no bound or level to show
                tr.write_line(f"{row['verdict']:<12} {_NOUNS[row['verb']]:<17} {row['mechanism']}  ({row['nodeid']})")
            if row.get("stored"):
                tr.write_line(f"  from the evidence store: run {row['stored']['run']} ({row['stored']['at']})")
            for problem in row.get("report_problems", ()):
                tr.write_line(f"  {problem}")
        for row in self.rows:  # an ignored store file, a failed write: one line each
            for problem in row.get("store_problems", ()):
                tr.write_line(problem)
        if audits:
            false_alarm = sum(1 - float(r.get("verdict_confidence") or r["confidence"]) for r in audits)
            tr.write_line(
                f"{len(audits)} audit(s); if every audited mechanism keeps its claim, the chance that any "
                f"was flagged is at most {false_alarm:.3g} (union bound over the per-audit levels)"
            )
        stored = [r["stored"] for r in self.rows if r.get("stored")]
        if self.settings.store_dir is not None:
            runs = ", ".join(sorted({s["run"] for s in stored}))
            counts = []  # "k of n audit(s), k of n proof(s) and k of n certificate(s)", the kinds this run met
            for verb, noun in _NOUNS.items():
                rows = [r for r in self.rows if r.get("verb", "audit") == verb]
                if rows:
                    counts.append(f"{sum(1 for r in rows if r.get('stored'))} of {len(rows)} {noun}(s)")
            counted = counts[0] if len(counts) == 1 else f"{', '.join(counts[:-1])} and {counts[-1]}"
            tr.write_line(
                f"evidence store {self.settings.store_dir}: {counted} read back"
                + (f" (computed by run {runs})" if stored else "")
                + f", {len(self.rows) - len(stored)} computed by this run {self.settings.run_id}"
            )


# the summary's name of each verb the evidence store keys
_NOUNS = {"audit": "audit", "prove": "proof", "certify": "certificate"}
