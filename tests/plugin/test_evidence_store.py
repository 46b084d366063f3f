"""The evidence store from the user's side: examples/ci_project run twice, changed, re-seeded,
upgraded, its store deleted or truncated; each test runs pytest as a CI job would and reads its lines.

The project is copied into pytester's folder; its audits run at ``--dp-samples=20000`` (the buggy
count's true epsilon is 2 at a claim of 1: a certain violation at that budget, tests/plugin/test_audits.py).
The summary's last line says how many audits were read back and how many this run computed; each
row read back is followed by ``from the evidence store: run ID (TIME)``.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[2] / "examples" / "ci_project"
SAMPLES = "--dp-samples=20000"
STORE_LINE = re.compile(r"evidence store (\S+): (\d+) of (\d+) audit\(s\) read back.*computed by this run (\S+)$")


def project(pytester) -> Path:
    for part in ("src", "tests", "pyproject.toml"):
        source = PROJECT / part
        target = pytester.path / part
        (shutil.copytree if source.is_dir() else shutil.copy)(source, target)
    return pytester.path


def run(pytester, *args: str):
    result = pytester.runpytest_subprocess(SAMPLES, *args)
    result.assert_outcomes(passed=2, failed=1)  # the same verdicts, computed or read back
    return result


def store_line(result) -> tuple[str, int, int, str]:
    """(store folder, audits read back, audits, this run's id) from the summary."""
    match = next(STORE_LINE.search(line) for line in result.stdout.lines if STORE_LINE.search(line))
    return match.group(1), int(match.group(2)), int(match.group(3)), match.group(4)


def rows(result) -> dict[str, str | None]:
    """Each audited test's node id -> the run its result was read back from (None: computed now)."""
    lines = result.stdout.lines
    found: dict[str, str | None] = {}
    for i, line in enumerate(lines):
        if line.startswith(("pass ", "violation ", "underpowered ")):
            nodeid = line.rsplit("(", 1)[1].rstrip(")")
            follow = lines[i + 1] if i + 1 < len(lines) else ""
            stored = re.match(r"  from the evidence store: run (\S+) \(", follow)
            found[nodeid] = stored.group(1) if stored else None
    return found


def verdicts(result) -> list[str]:
    return sorted(line for line in result.stdout.lines if line.startswith(("pass ", "violation ")))


BUGGY = "tests/test_buggy_count.py::test_buggy_count_keeps_its_claim"


def test_a_second_run_with_nothing_changed_reads_every_audit_back_with_the_same_verdicts(pytester):
    project(pytester)
    first = run(pytester)
    folder, read_back, audits, first_run = store_line(first)
    assert (read_back, audits) == (0, 3) and folder.endswith(".pytest_cache/d/dpaudit-evidence")
    second = run(pytester)
    assert store_line(second)[1:3] == (3, 3)
    assert set(rows(second).values()) == {first_run}  # each row says which run computed it
    assert verdicts(second) == verdicts(first)


def test_a_stored_violation_still_fails_and_says_which_run_found_it(pytester):
    project(pytester)
    first_run = store_line(run(pytester))[3]
    second = run(pytester)
    out = second.stdout.str()
    assert "dpaudit: privacy violation by 'buggy_count'" in out
    assert (f"  evidence:    from the evidence store: run {first_run} (" in out
            and "(a stored violation still fails; --dp-fresh recomputes)" in out)
    assert rows(second)[BUGGY] == first_run


def test_changing_one_constant_of_one_mechanism_reaudits_that_mechanism_only(pytester):
    root = project(pytester)
    first_run = store_line(run(pytester))[3]
    counts = root / "src" / "noisy_stats" / "counts.py"
    text = counts.read_text(encoding="utf-8")
    assert "rng.laplace(0.0, 0.5 / EPSILON" in text
    counts.write_text(text.replace("rng.laplace(0.0, 0.5 / EPSILON", "rng.laplace(0.0, 0.45 / EPSILON"), encoding="utf-8")
    second = run(pytester)
    assert store_line(second)[1:3] == (2, 3)
    assert rows(second) == {BUGGY: None,
                            "tests/test_private_count.py::test_private_count_keeps_its_claim": first_run,
                            "tests/test_private_count.py::test_private_count_with_the_fixture": first_run}


def test_changing_the_seed_or_dpaudits_version_reaudits_every_mechanism(pytester):
    root = project(pytester)
    run(pytester)
    assert store_line(run(pytester, "--dp-seed=7"))[1:3] == (0, 3)
    assert store_line(run(pytester))[1:3] == (3, 3)  # the first seed's results are still there
    # an upgrade of dpaudit, as the project's conftest.py sees it
    (root / "tests" / "conftest.py").write_text("import dpaudit._version\n\ndpaudit._version.__version__ += '.post1'\n")
    assert store_line(run(pytester))[1:3] == (0, 3)


def test_fresh_and_its_ini_key_recompute_everything(pytester):
    project(pytester)
    run(pytester)
    assert store_line(run(pytester, "--dp-fresh"))[1:3] == (0, 3)
    assert store_line(run(pytester, "-o", "dp_fresh=true"))[1:3] == (0, 3)
    assert store_line(run(pytester))[1:3] == (3, 3)  # the fresh results were kept


def test_deleting_the_store_recomputes(pytester):
    project(pytester)
    folder = store_line(run(pytester))[0]
    shutil.rmtree(folder)
    assert store_line(run(pytester))[1:3] == (0, 3)
    assert store_line(run(pytester))[1:3] == (3, 3)


def test_a_truncated_or_foreign_store_file_is_said_in_one_line_and_recomputed(pytester):
    project(pytester)
    folder = Path(store_line(run(pytester))[0])
    files = sorted(folder.glob("audit-*.json"))
    assert len(files) == 3
    text = files[0].read_text(encoding="utf-8")
    files[0].write_text(text[: len(text) // 2], encoding="utf-8")  # cut in the middle
    files[1].write_text('{"hello": "a file of some other tool"}', encoding="utf-8")
    second = run(pytester)
    assert store_line(second)[1:3] == (1, 3)
    ignored = [line for line in second.stdout.lines if line.startswith("dpaudit: ignored the evidence file")]
    assert len(ignored) == 2, second.stdout.str()
    assert any(str(files[0]) in line and "(not valid JSON, truncated or corrupted:" in line
               and line.endswith("); recomputed") for line in ignored)
    assert any(str(files[1]) in line and "(not a dpaudit evidence file); recomputed" in line for line in ignored)
    assert "Traceback" not in second.stdout.str() + second.stderr.str()
    third = run(pytester)  # the recomputed results replaced the bad files
    assert store_line(third)[1:3] == (3, 3)
    assert not any(line.startswith("dpaudit: ignored") for line in third.stdout.lines)


def test_a_store_folder_of_ones_own_shared_by_xdist_workers(pytester):
    project(pytester)
    store = pytester.path / "evidence"
    first = run(pytester, f"--dp-store={store}", "-p", "no:cacheprovider", "-n", "2")
    assert store_line(first)[:3] == (str(store), 0, 3)
    assert len(list(store.glob("audit-*.json"))) == 3
    second = run(pytester, f"--dp-store={store}", "-p", "no:cacheprovider")
    assert store_line(second)[1:3] == (3, 3)
    assert verdicts(second) == verdicts(first)


def test_without_a_cache_or_a_store_folder_nothing_is_stored(pytester):
    project(pytester)
    result = run(pytester, "-p", "no:cacheprovider")
    assert not any(STORE_LINE.search(line) for line in result.stdout.lines)
    result.stdout.fnmatch_lines(["dpaudit: no evidence store (no pytest cache; --dp-store DIR names one); this run is *"])


# -- proofs and certificates (dp.assert_proved, dp.assert_certified) go through the same store

EXACT = '''
import random

import dpaudit

RR_KEEP = 0.5


def rr(bit, rng: random.Random):                      # randomized response, epsilon = ln 3 at RR_KEEP = 0.5
    return bit if rng.random() < RR_KEEP else rng.randrange(2)


def coin(bit, rng: random.Random):
    return bit if rng.random() < 0.5 else rng.randrange(2)


def test_proof(dp):
    dp.assert_proved(dpaudit.get("laplace"))


def test_refuted_proof(dp):
    dp.assert_proved(dpaudit.get("laplace-scale-epsilon"))


def test_rr_certified(dp):
    result = dp.assert_certified(rr, epsilon=1.0986122886681098, pair=(1, 0))
    assert result.certified and abs(result.epsilon_up - 1.0986122886681098) < 1e-9


def test_coin_certified(dp):
    assert dp.assert_certified(coin, epsilon=1.0986122886681098, pair=(1, 0)).verdict.value == "certified"


def test_rr_refuted(dp):
    dp.assert_certified("rr-miscalibrated")
'''
EXACT_LINE = re.compile(r"evidence store (\S+): (\d+) of (\d+) proof\(s\) and (\d+) of (\d+) certificate\(s\) read back"
                        r".*computed by this run (\S+)$")
RR = "test_exact.py::test_rr_certified"
COIN = "test_exact.py::test_coin_certified"


def run_exact(pytester, *args: str):
    result = pytester.runpytest_subprocess(*args)
    result.assert_outcomes(passed=3, failed=2)  # the same outcomes, computed or read back
    return result


def exact_line(result) -> tuple[int, int, int, int, str]:
    """(proofs read back, proofs, certificates read back, certificates, this run's id) from the summary."""
    match = next(EXACT_LINE.search(line) for line in result.stdout.lines if EXACT_LINE.search(line))
    return int(match.group(2)), int(match.group(3)), int(match.group(4)), int(match.group(5)), match.group(6)


def exact_rows(result) -> dict[str, str | None]:
    """Each proof's or certificate's node id -> the run it was read back from (None: computed now)."""
    lines = result.stdout.lines
    found: dict[str, str | None] = {}
    for i, line in enumerate(lines):
        if re.match(r"(proved|refuted|unknown|certified) +(proof|certificate) ", line):
            stored = re.match(r"  from the evidence store: run (\S+) \(", lines[i + 1] if i + 1 < len(lines) else "")
            found[line.rsplit("(", 1)[1].rstrip(")")] = stored.group(1) if stored else None
    return found


def failure(result, test: str) -> list[str]:
    """The lines of ``test``'s failure section."""
    lines = result.stdout.lines
    start = next(i for i, line in enumerate(lines) if re.match(rf"_+ {test} _+$", line))
    end = next(i for i in range(start + 1, len(lines)) if re.match(r"(_+ \w+ _+|=+ .* =+)$", lines[i]))
    return lines[start + 1:end]


def test_a_second_run_reads_back_the_proofs_and_the_certificates(pytester):
    pytester.makepyfile(test_exact=EXACT)
    first = run_exact(pytester)
    assert exact_line(first)[:4] == (0, 2, 0, 3)
    first_run = exact_line(first)[4]
    folder = pytester.path / ".pytest_cache" / "d" / "dpaudit-evidence"
    assert len(list(folder.glob("prove-*.json"))) == 2 and len(list(folder.glob("certify-*.json"))) == 3
    second = run_exact(pytester)
    assert exact_line(second)[:4] == (2, 2, 3, 3)
    assert f"(computed by run {first_run})" in second.stdout.str()
    assert set(exact_rows(second).values()) == {first_run}  # each row says which run computed it
    assert "proved       proof             laplace  (test_exact.py::test_proof)" in second.stdout.lines


def test_changing_one_samplers_constant_recertifies_that_sampler_only(pytester):
    path = pytester.makepyfile(test_exact=EXACT)
    first_run = exact_line(run_exact(pytester))[4]
    path.write_text(EXACT.replace("RR_KEEP = 0.5", "RR_KEEP = 0.6"), encoding="utf-8")  # epsilon ln 4 > ln 3
    second = pytester.runpytest_subprocess()
    second.assert_outcomes(passed=2, failed=3)  # rr, recertified, is refuted now
    assert exact_line(second)[:4] == (2, 2, 2, 3)
    rows = exact_rows(second)
    assert rows[RR] is None and rows[COIN] == first_run
    assert "dpaudit: rr is refuted by exact path enumeration" in second.stdout.str()


def test_fresh_recomputes_the_proofs_and_the_certificates(pytester):
    pytester.makepyfile(test_exact=EXACT)
    run_exact(pytester)
    assert exact_line(run_exact(pytester, "--dp-fresh"))[:4] == (0, 2, 0, 3)
    assert exact_line(run_exact(pytester))[:4] == (2, 2, 3, 3)  # the fresh results were kept


def test_a_stored_refuted_certificate_or_proof_still_fails_with_the_same_message(pytester):
    pytester.makepyfile(test_exact=EXACT)
    first = run_exact(pytester)
    first_run = exact_line(first)[4]
    second = run_exact(pytester)
    assert exact_line(second)[:4] == (2, 2, 3, 3)
    for test in ("test_rr_refuted", "test_refuted_proof"):
        computed, stored = failure(first, test), failure(second, test)
        provenance = [line for line in stored if line.startswith("  evidence: ")]
        assert len(provenance) == 1 and f"from the evidence store: run {first_run} (" in provenance[0]
        assert "(a stored result fails as it did; --dp-fresh recomputes)" in provenance[0]
        assert [line for line in stored if line not in provenance] == computed  # the same message, line for line
    assert "dpaudit: rr-miscalibrated is refuted by exact path enumeration" in failure(second, "test_rr_refuted")
    assert "  witness: output 0: P[. | 0] in [0.731059, 0.731059], P[. | 1] in [0.268941, 0.268941]" in \
        failure(second, "test_rr_refuted")
