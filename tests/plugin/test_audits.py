"""The pytest plugin running real audits: marker, fixture, messages, reports, determinism, xdist.

Every audit here uses a small budget (``--dp-samples``) so the file stays fast.  The mechanisms are a
correct grid-released Laplace count and the same with half the noise scale (true epsilon 2 at a claim
of 1): with 2*10^4 samples per side the latter's bound sits far above 1 (the oracle-event limit at
epsilon = 2, N = 10^4 is ~1.9 even at confidence 1 - 1e-6), so the violation is certain, not lucky.

Each inner run is a subprocess: pytester's in-process runs unload the modules a run imported, and
numpy's extension modules cannot be loaded twice in one process.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys

import pytest

MECHANISMS = '''
import numpy as np
import pytest

GRID = 2.0 ** -16


def good(records, n, rng):
    return np.rint((sum(records) + rng.laplace(0.0, 1.0, size=n)) / GRID) * GRID


def bad(records, n, rng):
    return np.rint((sum(records) + rng.laplace(0.0, 0.5, size=n)) / GRID) * GRID


PAIR = ([1, 0, 1], [1, 0, 1, 1])
'''

SAMPLES = "--dp-samples=20000"


def write(pytester, body: str) -> None:
    pytester.makepyfile(test_mech=MECHANISMS + body)


def test_marker_passes_a_correct_mechanism(pytester):
    write(pytester, "\n@pytest.mark.dp(epsilon=1.0, pair=PAIR)\ndef test_good():\n    return good\n")
    result = pytester.runpytest_subprocess(SAMPLES)
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*dpaudit*", "pass * eps >= * @ 0.999999  good *", "1 audit(s)*at most 1e-06*"])


def test_a_lower_confidence_row_says_the_verdicts_level(pytester):
    write(pytester, "\n@pytest.mark.dp(epsilon=1.0, pair=PAIR)\ndef test_good():\n    return good\n")
    result = pytester.runpytest_subprocess(SAMPLES, "--dp-confidence=0.95")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["pass * eps >= * @ 0.95 (verdict @ 0.999)  good *", "1 audit(s)*at most 0.001*"])


def test_marker_fails_a_broken_mechanism_with_the_evidence(pytester):
    write(pytester, "\n@pytest.mark.dp(epsilon=1.0, pair=PAIR)\ndef test_bad():\n    yield bad\n")
    result = pytester.runpytest_subprocess(SAMPLES)
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "dpaudit: privacy violation by 'bad'" in out
    assert "claim:       1-DP" in out
    bound = float(re.search(r"lower bound: epsilon >= ([0-9.]+) at confidence 0.999999", out).group(1))
    assert bound > 1.0
    assert "event:       output" in out
    assert "pair:        a=[" in out
    assert "neighbours:  add/remove one record (inferred from the pair: sizes 3 and 4, one record added)" in out
    assert re.search(r"reproduce:   dpaudit audit .*test_mech.py:bad --epsilon 1 --neighbours add-remove .*--seed \d+", out)
    assert "--dp-seed=20260101 --dp-samples=20000" in out
    # the command reruns this very audit: the pair as given (each side draws from its own stream), the same bound
    command = re.search(r"reproduce:   (dpaudit audit .*)", out).group(1)
    assert "--a '[1, 0, 1]' --b '[1, 0, 1, 1]'" in command
    rerun = subprocess.run([sys.executable, "-m", "dpaudit", *shlex.split(command)[1:], "--json"],
                           capture_output=True, text=True, cwd=pytester.path)
    assert rerun.returncode == 1, rerun.stderr
    assert json.loads(rerun.stdout)["epsilon_lower_bound"] == pytest.approx(bound, rel=1e-3)  # printed to 4 digits


def test_marker_takes_the_relation_by_name_and_an_example_dataset(pytester):
    write(
        pytester,
        """
@pytest.mark.dp(epsilon=1.0, data=[1, 0, 1])
def test_searched_from_data():
    return bad


@pytest.mark.dp(epsilon=1.0, pair=PAIR, neighbours="replace")
def test_pair_not_under_the_stated_relation():
    return good
""",
    )
    result = pytester.runpytest_subprocess(SAMPLES)
    result.assert_outcomes(failed=2)
    out = result.stdout.str()
    assert "dpaudit: privacy violation by 'bad'" in out
    assert "neighbours:  add/remove one record (default for an example dataset)" in out
    assert "dpaudit could not audit good: datasets a=[1, 0, 1] and b=[1, 0, 1, 1] are not replace-one neighbours" in out


def test_fixture_methods(pytester):
    write(
        pytester,
        '''
import dpaudit


def test_private(dp):
    result = dp.assert_private(good, epsilon=1.0, pair=PAIR)
    assert result.verdict.value == "pass"


def test_catalogue_entry_by_name(dp):
    dp.assert_private("laplace", pair=((1, 0, 1), (1, 0, 1, 1)))


def test_proved(dp):
    dp.assert_proved(dpaudit.get("laplace"))


def test_not_proved(dp):
    dp.assert_proved(dpaudit.get("laplace-scale-epsilon"))
''',
    )
    result = pytester.runpytest_subprocess(SAMPLES)
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(["*laplace-scale-epsilon* was not proved: refuted*"])


def test_test_returning_nothing_is_a_clear_error(pytester):
    write(pytester, "\n@pytest.mark.dp(epsilon=1.0)\ndef test_none():\n    pass\n"
                    "\ndef test_no_claim(dp):\n    dp.assert_private(good, pair=PAIR)\n")
    result = pytester.runpytest_subprocess(SAMPLES)
    result.assert_outcomes(failed=2)
    out = result.stdout.str()
    assert "must return or yield the mechanism to audit" in out
    assert "epsilon= or claim= is required to audit the plain function good" in out
    assert "pytest_plugin" not in out  # the message alone, not the plugin's traceback


def test_skip_audits_skips_only_audits(pytester):
    write(
        pytester,
        '''
import dpaudit


@pytest.mark.dp(epsilon=1.0, pair=PAIR)
def test_marked():
    return bad


def test_proof(dp):
    dp.assert_proved(dpaudit.get("laplace"))
''',
    )
    result = pytester.runpytest_subprocess(SAMPLES, "--dp-skip-audits")
    result.assert_outcomes(passed=1, skipped=1)


def test_report_directory_gets_a_json_and_an_html_report_per_audit(pytester):
    write(pytester, "\n@pytest.mark.dp(epsilon=1.0, pair=PAIR)\ndef test_good():\n    return good\n")
    out = pytester.path / "dp-reports"
    result = pytester.runpytest_subprocess(SAMPLES, f"--dp-report={out}")
    result.assert_outcomes(passed=1)
    assert sorted(f.name for f in out.iterdir()) == ["test_mech.py_test_good.html", "test_mech.py_test_good.json"]
    document = json.loads((out / "test_mech.py_test_good.json").read_text(encoding="utf-8"))
    from dpaudit.reports import load_schema

    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.Draft202012Validator(load_schema()).validate(document)
    audit = document["audit"]["result"]
    assert audit["verdict"] == "pass" and audit["confidence"] == pytest.approx(1 - 1e-6)
    assert audit["verdict_confidence"] == audit["confidence"]  # the plugin's level is also the verdict's
    assert audit["samples"] == 20_000 and sorted(audit["pair"], key=len) == [[1, 0, 1], [1, 0, 1, 1]]  # either order
    assert document["proof"] == {"status": "skipped", "result": None, "note": "not run by the pytest plugin"}
    assert document["settings"]["seed"] == audit["seed"]
    assert document["settings"]["reproduce"].endswith(
        "or: pytest 'test_mech.py::test_good' --dp-seed=20260101 --dp-samples=20000")  # the run's samples too
    assert {f["id"] for f in document["plots"]["figures"]} >= {"distributions", "bound-curve"}
    page = (out / "test_mech.py_test_good.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "Privacy audit of good" in page
    assert "not run by the pytest plugin" in page and page.count('<img src="data:image/svg+xml;base64,') >= 2


def test_a_relation_of_the_users_own_is_audited_reported_and_rerun_by_its_test(pytester):
    write(
        pytester,
        """
import dpaudit


class ChangeOneRecordByOne:
    def is_neighbouring(self, a, b):
        moved = [abs(x - y) for x, y in zip(a, b) if x != y]
        return len(a) == len(b) and len(moved) == 1 and moved[0] <= 1

    def check(self, a, b):
        if not self.is_neighbouring(a, b):
            raise dpaudit.NotNeighbouring(f"{a} and {b} are not neighbours")

    def candidate_pairs(self, domain, size=3):
        return [((v,) * size, (v + 1,) + (v,) * (size - 1)) for v in domain]

    def as_dict(self):
        return {"relation": "change-one-record-by-1"}

    def __str__(self):
        return "change one record by at most 1"


@pytest.mark.dp(epsilon=1.0, data=[1, 0, 1], neighbours=ChangeOneRecordByOne())
def test_good():
    return good


def test_bad(dp):
    dp.assert_private(bad, epsilon=1.0, data=[1, 0, 1], neighbours=ChangeOneRecordByOne())
""",
    )
    out = pytester.path / "dp-reports"
    result = pytester.runpytest_subprocess(SAMPLES, f"--dp-report={out}")
    result.assert_outcomes(passed=1, failed=1)
    text = result.stdout.str()
    assert "neighbours:  change one record by at most 1 (given)" in text
    # no option names the relation: the test itself reruns the audit
    assert "reproduce:   pytest 'test_mech.py::test_bad' --dp-seed=20260101" in text
    document = json.loads((out / "test_mech.py_test_good.json").read_text(encoding="utf-8"))
    from dpaudit.reports import load_schema

    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.Draft202012Validator(load_schema()).validate(document)
    assert document["unit_of_privacy"] == {"relation": "change-one-record-by-1",  # the audit's, as it used it
                                           "description": "change one record by at most 1 (given)"}


def _summary_rows(result) -> list[str]:
    lines = result.stdout.lines
    start = next(i for i, line in enumerate(lines) if "dpaudit" in line and "=" in line)
    return sorted(line for line in lines[start + 2 :] if line.startswith(("pass", "violation", "underpowered")))


AUDITS = '''
@pytest.mark.dp(epsilon=1.0, pair=PAIR)
def test_a():
    return good


@pytest.mark.dp(epsilon=1.0, pair=PAIR)
def test_b():
    return bad


def test_c(dp):
    dp.assert_private(good, epsilon=1.0, pair=PAIR)
'''


def test_same_seed_same_results(pytester):
    write(pytester, AUDITS)
    first = _summary_rows(pytester.runpytest_subprocess(SAMPLES, "--dp-seed=5"))
    second = _summary_rows(pytester.runpytest_subprocess(SAMPLES, "--dp-seed=5"))
    assert len(first) == 3 and first == second


def test_a_tests_result_does_not_depend_on_which_others_ran(pytester):
    write(pytester, AUDITS)
    everything = _summary_rows(pytester.runpytest_subprocess(SAMPLES, "--dp-seed=5"))
    alone = _summary_rows(pytester.runpytest_subprocess(SAMPLES, "--dp-seed=5", "-k", "test_c"))
    assert alone == [row for row in everything if "test_c" in row]


def test_xdist_gives_the_serial_results(pytester):
    write(pytester, AUDITS)
    serial = _summary_rows(pytester.runpytest_subprocess(SAMPLES, "--dp-seed=5"))
    parallel = pytester.runpytest_subprocess(SAMPLES, "--dp-seed=5", "-n", "2")
    parallel.assert_outcomes(passed=2, failed=1)
    assert _summary_rows(parallel) == serial


def test_reseeding_a_failure_is_refused(pytester):
    write(pytester, "\n@pytest.mark.dp(epsilon=1.0, pair=PAIR)\ndef test_flaky_looking():\n    return bad\n")
    pytester.runpytest_subprocess(SAMPLES, "--dp-seed=1").assert_outcomes(failed=1)
    # The same mechanism "fixed" by auditing it with a tiny budget would pass; re-seeding must not clear it.
    pytester.makepyfile(test_mech=MECHANISMS + "\n@pytest.mark.dp(epsilon=1.0, pair=PAIR)\ndef test_flaky_looking():\n    return good\n")
    refused = pytester.runpytest_subprocess(SAMPLES, "--dp-seed=2")
    refused.assert_outcomes(failed=1)
    assert "found a violation under --dp-seed=1" in refused.stdout.str()
    # Passing under the seed that failed (the mechanism really was fixed) clears the record.
    pytester.runpytest_subprocess(SAMPLES, "--dp-seed=1").assert_outcomes(passed=1)
    pytester.runpytest_subprocess(SAMPLES, "--dp-seed=2").assert_outcomes(passed=1)


def test_underpowered_audit_warns_instead_of_passing_silently(pytester):
    write(pytester, "\n@pytest.mark.dp(epsilon=1.0, pair=PAIR)\ndef test_tiny():\n    return good\n")
    result = pytester.runpytest_subprocess("--dp-samples=100")
    result.assert_outcomes(passed=1, warnings=1)
    result.stdout.fnmatch_lines(["*UnderpoweredWarning: audit of good is underpowered*increase --dp-samples*"])


def test_assert_sensitivity_finds_an_understated_sensitivity(pytester):
    pytester.makepyfile(
        test_sens='''
import numpy as np
from dpaudit.strategies import neighbouring_pairs
from dpaudit import AddRemove


def clamp_after_sum(records):
    return float(np.clip(np.sum(np.asarray(records, dtype=float)), 0.0, 10.0))


def clamped_count(records):
    # integer records clamped to {0, 1}: exact arithmetic, so the bound 1 holds exactly
    return int(np.sum(np.clip(np.asarray(records, dtype=np.int64), 0, 1)))


def test_wrong(dp):
    dp.assert_sensitivity(clamp_after_sum, 1.0, lo=0.0, hi=10.0)


def test_right(dp):
    dp.assert_sensitivity(clamped_count, 1.0, lo=-5, hi=5, dtype="int64")


def test_wrong_with_a_strategy(dp):
    dp.assert_sensitivity(clamp_after_sum, 1.0, strategy=neighbouring_pairs(AddRemove(), lo=0.0, hi=10.0))
'''
    )
    result = pytester.runpytest_subprocess()
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(["*declared sensitivity 1 is exceeded*"])


def test_an_approximate_dp_entry_keeps_its_delta(pytester):
    # The classic Gaussian is (0.5, 1e-5)-DP and not pure DP: auditing it without restating delta must
    # use the entry's own delta (a pure-DP restatement would flag it).
    pytester.makepyfile(test_gauss="def test_gaussian(dp):\n    r = dp.assert_private('gaussian')\n    assert r.claim.delta == 1e-5\n")
    pytester.runpytest_subprocess(SAMPLES).assert_outcomes(passed=1)


def test_marker_and_fixture_take_the_randomness_of_a_plain_function(pytester):
    write(
        pytester,
        """
def bad_with_random_state(records, rng):  # unannotated: only randomness= says it is a RandomState
    return round((sum(records) + rng.laplace(0.0, 0.5)) / GRID) * GRID


@pytest.mark.dp(epsilon=1.0, pair=PAIR, randomness="random-state")
def test_marker():
    return bad_with_random_state


def test_fixture(dp):
    dp.assert_private(bad_with_random_state, epsilon=1.0, pair=PAIR, randomness="random-state")
""",
    )
    result = pytester.runpytest_subprocess(SAMPLES)
    result.assert_outcomes(failed=2)
    out = result.stdout.str()
    # one failure section per test; the short summary repeats the message only as wide as the terminal allows
    sections = re.findall(r"^dpaudit: privacy violation by 'bad_with_random_state'$", out, re.MULTILINE)
    assert len(sections) == 2, out
    assert "--randomness random-state" in out  # the reproduce line says how the function is called


CLAIMED = '''
import dpaudit
from dpaudit import ZeroConcentratedDP


def gaussian(records, n, rng):  # sigma = Delta / sqrt(2 rho) = 1 for Delta = 1, rho = 0.5: exactly 0.5-zCDP
    return np.rint((sum(records) + rng.normal(0.0, 1.0, size=n)) / GRID) * GRID


@pytest.mark.dp(claim=ZeroConcentratedDP(0.5), pair=PAIR)
def test_marker_zcdp():
    return gaussian


def test_fixture_over_claimed(dp):
    dp.assert_private(gaussian, claim=ZeroConcentratedDP(0.125), pair=PAIR)


def test_fixture_claim_of_the_wrong_type(dp):
    dp.assert_private(gaussian, claim="0.5-zCDP", pair=PAIR)
'''


def test_marker_and_fixture_take_any_claim(pytester):
    # Validity: the plugin's verdict is at 1 - 1e-6, so the exact claim fails with probability <= 1e-6.
    # Power: at 2 x 10^4 per side the curve's bounds give delta >= 0.2 at epsilon = 0.5 (true 1-GDP delta
    # 0.238, minus z = 5.7 x sd 0.0094) where 0.125-zCDP allows 0.11 (tests/auditor/test_claim_argument.py).
    write(pytester, CLAIMED)
    result = pytester.runpytest_subprocess(SAMPLES)
    result.assert_outcomes(passed=1, failed=2)
    out = result.stdout.str()
    assert "claim:       0.125-zCDP" in out
    assert "decided:     the empirical curve at the verdict's confidence 0.999999 refutes 0.125-zCDP" in out
    assert re.search(r"reproduce:   dpaudit audit .*test_mech.py:gaussian --rho 0.125 --neighbours add-remove ", out)
    assert "dpaudit could not audit gaussian: claim='0.5-zCDP' must be PureDP" in out
