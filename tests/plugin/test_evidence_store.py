"""The evidence store from the user's side (issue 28): examples/ci_project run twice, changed, re-seeded,
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
