"""The audit as a pipeline: the configuration checked once, one confidence plan, one decision.

Unit tests of :mod:`dpaudit.auditor.config`, :mod:`dpaudit.auditor.confidence` and
:mod:`dpaudit.auditor.decision`, and the shape the pipeline keeps (``audit()`` short, no function
longer than a screen and a half).
"""

from __future__ import annotations

import ast
import inspect
import itertools
import math
from dataclasses import fields
from pathlib import Path

import pytest

import dpaudit
from dpaudit.auditor.config import DEFAULT_CONFIDENCE, DEFAULT_VERDICT_CONFIDENCE, SEARCH_EVENTS, AuditConfig
from dpaudit.auditor.confidence import PDP_SHARE, ConfidencePlan
from dpaudit.auditor.decision import REACH_FRACTION, Evidence, decide
from dpaudit.auditor.records import LeakEventFinding, SensitivityFinding
from dpaudit.auditor.result import Verdict
from dpaudit.errors import InvalidArgument

PACKAGE = Path(dpaudit.__file__).resolve().parent


# -- configuration

def test_audit_and_its_configuration_take_the_same_options_with_the_same_defaults():
    signature = inspect.signature(dpaudit.audit).parameters
    config_fields = {f.name: f.default for f in fields(AuditConfig)}
    assert list(signature) == list(config_fields)
    for name, parameter in signature.items():
        if name not in ("target", "samples"):  # samples=None means the configuration's default
            assert parameter.default == config_fields[name], name


def test_build_checks_once_and_normalises():
    config = AuditConfig.build("laplace", confidence=0.9999, checks=None, seed=3)
    assert config.verdict_confidence == 0.9999  # the stricter of the two levels
    assert config.checks == () and config.seed == 3 and config.samples == 1_000_000
    drawn = AuditConfig.build("laplace")
    assert isinstance(drawn.seed, int)  # drawn once and kept: the result records it


def test_a_curve_claim_read_at_a_point_is_stated_once():
    config = AuditConfig.build("laplace", claim=dpaudit.ZeroConcentratedDP(0.5), epsilon=2.0)
    assert config.epsilon is None and config.delta is None
    assert config.claim.kind == "approximate" and config.claim.epsilon == 2.0


@pytest.mark.parametrize(
    "options, named",
    [
        ({"sample": 10}, "did you mean samples?"),
        ({"confidense": 0.9}, "did you mean confidence?"),
        ({"samples": 10}, "samples=10 must be at least 100"),
        ({"method": "exact"}, "method"),
        ({"candidates": SEARCH_EVENTS + 1}, f"at most {SEARCH_EVENTS}"),
        ({"progress": "yes"}, "progress='yes' must be True, False or None"),
    ],
)
def test_build_refuses_a_bad_option_by_name(options, named):
    with pytest.raises(InvalidArgument, match=named):
        AuditConfig.build("laplace", **options)


def test_a_typo_in_audit_is_a_type_error_from_python_itself():
    with pytest.raises(TypeError, match="sample"):
        dpaudit.audit("laplace", sample=10)  # type: ignore[call-arg]


def test_the_cli_help_reads_the_defaults_from_the_configuration():
    from click.testing import CliRunner

    from dpaudit.cli import main

    text = " ".join(CliRunner().invoke(main, ["audit", "--help"], terminal_width=200).output.split())
    assert f"[default: {DEFAULT_CONFIDENCE}]" in text and f"[default: {DEFAULT_VERDICT_CONFIDENCE}]" in text


# -- the confidence plan

@pytest.mark.parametrize("probabilistic", [False, True])
@pytest.mark.parametrize("samples, early", [(1_000_000, True), (20_000, True), (20_000, False), (500, True)])
def test_the_plan_spends_exactly_alpha_at_each_level(probabilistic, samples, early):
    """Union bound: the bad-set test's alphas plus the verification's looks add up to alpha (and alpha')."""
    plan = ConfidencePlan(0.95, 0.999, samples, 3, early, probabilistic)
    pdp_alphas, pdp_verdict_alphas = plan.pdp_alphas()
    for pdp_ran in (False, True) if probabilistic else (False,):
        looks = plan.verification(pdp_ran)
        spent = sum(looks.alphas) + (sum(pdp_alphas) if pdp_ran else 0.0)
        verdict_spent = sum(looks.verdict_alphas) + (sum(pdp_verdict_alphas) if pdp_ran else 0.0)
        assert math.isclose(spent, 0.05, rel_tol=1e-12) and math.isclose(verdict_spent, 0.001, rel_tol=1e-12)
    assert math.isclose(sum(pdp_alphas), PDP_SHARE * 0.05) and math.isclose(sum(pdp_verdict_alphas), PDP_SHARE * 0.001)


def test_the_ranking_levels_are_the_verifications_last_planned_look_over_the_candidates():
    for probabilistic in (False, True):
        plan = ConfidencePlan(0.95, 0.999, 1_000_000, 4, True, probabilistic)
        looks = plan.verification(pdp_ran=probabilistic)
        last = looks.planned - 1
        assert math.isclose(plan.rescore_level, 1 - looks.verdict_alphas[last] / 4, rel_tol=1e-15)
        assert math.isclose(plan.estimate_level, 1 - looks.alphas[last] / 4, rel_tol=1e-15)
        assert plan.final_level(looks, 4) == 1 - looks.verdict_alphas[last] / 4
    assert plan.search_level == 1 - 0.05 / SEARCH_EVENTS


# -- the decision

def _leak(decided_by: str) -> LeakEventFinding:
    return LeakEventFinding(check="lattice", verdict="violation", event="output <= 0", pair=[[], [1]], hits=[5, 0],
                            sample_sizes=[100, 100], epsilon_lower_bound=0.5, confidence=0.95,
                            verdict_epsilon_lower_bound=0.4, verdict_confidence=0.999, decided_by=decided_by,
                            support_mismatch=True, proven_empty=True, reason="P_b(S) = 0")


SENSITIVITY = SensitivityFinding(check="sensitivity", verdict="violation", pair=[[1], [1, 3]], difference=2.0,
                                 declared_sensitivity=1.0, ratio=2.0, reason="a gap of 2")


def _evidence(bound: float, verdict_bound: float, *, reach: float = 1.0, findings: tuple = ()) -> Evidence:
    return Evidence(dpaudit.PureDP(1.0), bound, verdict_bound, 0.95, 0.999, reach, 10_000, "output <= 0", findings,
                    (), (), ("lattice",))


@pytest.mark.parametrize(
    "evidence, verdict, decided_by, says",
    [
        (_evidence(1.2, 1.1), Verdict.VIOLATION, "bound", "exceeds the claimed epsilon 1"),
        (_evidence(0.9, 0.8), Verdict.PASS, "", "does not exceed"),
        (_evidence(1.05, 0.95), Verdict.PASS, "", "not significant"),
        (_evidence(0.5, 0.4, reach=REACH_FRACTION * 0.99), Verdict.UNDERPOWERED, "", "increase samples"),
        (_evidence(0.5, 0.4, findings=(_leak("certificate"),)), Verdict.VIOLATION, "certificate",
         "proved by the lattice check, not estimated: P_b(S) = 0"),
        (_evidence(0.5, 0.4, findings=(_leak("bound"),)), Verdict.PASS, "", "does not exceed"),
        (_evidence(0.5, 0.4, findings=(SENSITIVITY,)), Verdict.VIOLATION, "sensitivity",
         "the sensitivity check found a gap of 2"),
    ],
)
def test_decide_applies_each_rule_and_names_it(evidence, verdict, decided_by, says):
    decision = decide(evidence)
    assert (decision.verdict, decision.decided_by) == (verdict, decided_by)
    assert says in decision.reason


def test_a_bound_decides_before_a_check_would():
    assert decide(_evidence(1.2, 1.1, findings=(SENSITIVITY,))).decided_by == "bound"


# -- shape

def _functions(path: Path):
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node.name, node.end_lineno - node.lineno + 1


def test_audit_reads_in_well_under_80_lines_and_no_function_is_longer_than_120():
    audit_lines = dict(_functions(PACKAGE / "auditor" / "audit.py"))
    assert audit_lines["audit"] < 80 and audit_lines["run_audit"] < 80
    long = [(str(path.relative_to(PACKAGE)), name, lines) for path in PACKAGE.rglob("*.py")
            for name, lines in _functions(path) if lines > 120]
    assert long == []


def test_the_plugin_states_the_auditors_levels_and_every_marker_keyword():
    """The plugin's options module stays light (standard library and pytest), so it spells the auditor's
    verdict level in its help: this keeps the two from drifting apart."""
    from dpaudit.pytest_plugin import options

    helps = " ".join(spec["help"] for _, spec in options._OPTIONS)
    assert f"the auditor's {DEFAULT_VERDICT_CONFIDENCE}" in helps


def test_the_markers_help_lists_every_keyword_the_marker_takes(tmp_path):
    import subprocess
    import sys

    from dpaudit.pytest_plugin.options import MARKER_KEYWORDS

    shown = subprocess.run([sys.executable, "-m", "pytest", "--markers"], cwd=tmp_path, capture_output=True,
                           text=True, check=True).stdout
    line = next(text for text in shown.splitlines() if text.startswith("@pytest.mark.dp("))
    assert all(f"{keyword}=None" in line for keyword in MARKER_KEYWORDS)


# -- the presenter

@pytest.fixture(scope="module")
def laplace_result():
    return dpaudit.audit("laplace", samples=2_000, seed=1, executor="in-process", progress=False)


def test_str_of_a_result_is_the_clis_report_in_short(laplace_result):
    from click.testing import CliRunner

    from dpaudit.cli import main

    text = str(laplace_result)
    assert text.splitlines()[0] == f"{laplace_result.verdict.value.upper()}: laplace claims 1-DP"
    assert f"reproduce: {laplace_result.reproduce()}" in text
    printed = CliRunner().invoke(main, ["audit", "laplace", "--samples", "2000", "--seed", "1",
                                        "--executor", "in-process"]).output.splitlines()
    lines = text.splitlines()
    same = [line for line in lines
            if not line.startswith(("  time", "  stages", "  reproduce", "  run", "  reason", " " * 11))]
    assert all(line in printed for line in same if not line.endswith("..."))
    # the reason is wrapped, never cut: its lines joined are the CLI's line
    at = next(i for i, line in enumerate(lines) if line.startswith("  reason  :"))
    wrapped = [lines[at]] + list(itertools.takewhile(lambda line: line.startswith(" " * 11), lines[at + 1:]))
    assert " ".join(line.strip() if i else line for i, line in enumerate(wrapped)) in printed


def test_str_of_a_result_keeps_the_whole_reason_and_a_rerun_for_a_function_of_ones_own(laplace_result):
    from dataclasses import replace

    advice = "the verified bound is 0 at the verdict's confidence 0.999 " + "and more words " * 20 + "; increase samples"
    own = replace(laplace_result, target="noisy_count", reason=advice)
    text = str(own)
    assert " ".join(advice.split()) in " ".join(text.split())  # all of it, wrapped
    assert own.reproduce().startswith("dpaudit.audit(noisy_count, ...) with the same arguments and seed=")
    assert "dpaudit audit FILE.py:noisy_count" in own.reproduce() and f"reproduce: {own.reproduce()}" in text
    assert laplace_result.reproduce().startswith("dpaudit audit laplace --seed ")  # a catalogue name: the command


def test_str_of_a_result_stays_short_however_much_it_holds(laplace_result):
    from dataclasses import replace

    finding = replace(SENSITIVITY, reason="x" * 5_000)
    crowded = replace(laplace_result, notes=tuple("n" * 3_000 for _ in range(40)), findings=(finding,) * 30,
                      reason="r" * 10_000)
    text = str(crowded)
    assert len(text) < 2_000
    assert "(38 more notes in result.notes)" in text or text.endswith("result.as_dict() has them all)")
    assert len(repr(crowded)) > 100_000  # repr keeps every field


# -- typed records

def test_the_results_parts_are_typed_and_their_json_is_unchanged(laplace_result):
    from dpaudit.auditor.records import Neighbours, RunInfo, Stopping

    result = laplace_result
    assert isinstance(result.stopping, Stopping) and isinstance(result.run, RunInfo)
    assert isinstance(result.neighbours, Neighbours) and result.neighbours.source == "mechanism"
    document = result.as_dict()
    assert document["stopping"]["stopped_at"] == result.stopping.stopped_at
    assert list(document["neighbours"]) == ["relation", "source", "statement"]
    assert document["curve_check"] == {} and result.curve_check is None  # a point claim: written as before
    again = dpaudit.AuditResult.from_dict(document)
    assert again.stopping == result.stopping and again.neighbours == result.neighbours
    assert again.bounds_by_scope == result.bounds_by_scope and again.as_dict() == document


def test_the_time_split_is_reported_and_kept_out_of_comparisons(laplace_result):
    from dataclasses import replace

    from dpaudit.auditor.presenter import result_lines
    from dpaudit.auditor.records import StageTimes
    from dpaudit.auditor.result import without_timings

    result = laplace_result
    times = result.run.times
    assert isinstance(times, StageTimes) and min(times.as_dict().values()) >= 0.0
    assert sum(times.as_dict().values()) <= result.elapsed_s  # the stages split the audit's wall time
    assert "stages  : sampling" in "\n".join(result_lines(result, result.reproduce()))
    document = result.as_dict()
    assert document["run"]["times"] == times.as_dict()
    again = dpaudit.AuditResult.from_dict(document)
    assert again.run.times == times and again.as_dict() == document
    slower = replace(result, elapsed_s=9.0, run=replace(result.run, times=StageTimes(sampling_s=9.0)))
    assert slower.run == result.run  # how long it took is not what it found
    assert without_timings(slower.as_dict()) == without_timings(document)
    assert "times" not in without_timings(document)["run"] and "elapsed_s" not in without_timings(document)


def test_reading_a_part_like_a_dict_still_works_and_says_what_to_write(laplace_result):
    with pytest.warns(DeprecationWarning, match=r"result.neighbours\['statement'\] is deprecated: read "
                                                r"result.neighbours.statement"):
        assert laplace_result.neighbours["statement"] == laplace_result.neighbours.statement
    with pytest.warns(DeprecationWarning, match=r"result.run.draws"):
        assert laplace_result.run.get("draws") == laplace_result.run.draws


def test_a_findings_json_is_unchanged_and_reads_back(laplace_result):
    from dpaudit.auditor.records import finding_from_dict

    found = dpaudit.audit("laplace-float-textbook", samples=2_000, seed=1, executor="in-process", progress=False)
    finding = found.findings[0]
    assert isinstance(finding, LeakEventFinding) and finding.proven_empty
    document = finding.as_dict()
    assert list(document)[:2] == ["check", "verdict"] and list(document)[-1] == "reason"
    assert finding_from_dict(document) == finding
    sensitivity = {"check": "sensitivity", "verdict": "violation", "pair": [[1], [1, 5]], "difference": 5.0,
                   "declared_sensitivity": 1.0, "ratio": 5.0, "reason": "a gap of 5"}
    assert finding_from_dict(sensitivity).as_dict() == sensitivity
    assert isinstance(finding_from_dict(sensitivity), SensitivityFinding)
    assert "witness" not in LeakEventFinding.from_dict({**document, "witness": None}).as_dict()  # left out, as before


def test_the_hits_line_says_how_the_verification_sizes_were_drawn():
    """Poisson sizes around the samples used (a violation stops early), so 1212 out of '20000 per side' reads right."""
    flagged = dpaudit.audit("laplace-scale-epsilon", samples=20_000, seed=1, executor="in-process")
    used = flagged.stopping.samples_used
    hits = next(line for line in str(flagged).splitlines() if line.startswith("  hits"))
    assert used < 20_000 and hits.endswith(f"search samples per side; sizes Poisson around {used} (stopped early))")
