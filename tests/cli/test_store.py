"""``dpaudit audit ... --store DIR``: the plugin's evidence store from the command line."""

from __future__ import annotations

from click.testing import CliRunner

from dpaudit.cli import main

AUDIT = ["audit", "laplace", "--samples", "20000", "--seed", "3"]


def run(*args: str):
    return CliRunner().invoke(main, [*AUDIT, *args])


def test_a_second_run_reads_the_result_back_and_says_from_which_run(tmp_path):
    store = str(tmp_path / "evidence")
    first = run("--store", store)
    assert first.exit_code == 0, first.output
    assert "from the evidence store" not in first.output
    (entry,) = (tmp_path / "evidence").glob("audit-*.json")
    second = run("--store", store)
    assert second.exit_code == 0
    head, *rest = second.output.splitlines()
    assert head.startswith("dpaudit: from the evidence store: run ") and head.endswith("(--fresh recomputes)")
    assert rest == first.output.splitlines()  # the same lines as when it was computed
    assert "from the evidence store" not in run("--store", store, "--fresh").output
    assert "from the evidence store" not in run("--store", store, "--seed", "4").output  # another seed misses
    assert entry.exists()


def test_a_truncated_store_file_is_one_line_on_stderr_and_recomputed(tmp_path):
    store = tmp_path / "evidence"
    run("--store", str(store))
    (entry,) = store.glob("audit-*.json")
    text = entry.read_text(encoding="utf-8")
    entry.write_text(text[: len(text) // 2], encoding="utf-8")
    again = CliRunner().invoke(main, [*AUDIT, "--store", str(store)])
    assert again.exit_code == 0
    assert again.stderr.count("\n") == 1 and "dpaudit: ignored the evidence file" in again.stderr
    assert "from the evidence store" not in again.stdout
    assert "from the evidence store" in run("--store", str(store)).output  # rewritten


def test_a_store_that_is_a_file_is_refused_before_any_work(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    result = CliRunner().invoke(main, [*AUDIT, "--store", str(blocker)])
    assert result.exit_code == 2
    assert result.stderr.strip().startswith("dpaudit: error: --store=") and "is a file, not a folder" in result.stderr


def test_a_store_without_a_seed_says_which_seed_reads_it_back(tmp_path):
    store = str(tmp_path / "evidence")
    first = CliRunner().invoke(main, ["audit", "laplace", "--samples", "2000", "--store", store])  # a drawn seed
    (line,) = [x for x in first.stderr.splitlines() if "--store without --seed" in x]
    seed = line.split("only a rerun with --seed ")[1].split()[0]
    assert f"--seed {seed}" in first.stdout  # the same seed as the reproduce line
    again = CliRunner().invoke(main, ["audit", "laplace", "--samples", "2000", "--store", store, "--seed", seed])
    assert again.output.startswith("dpaudit: from the evidence store: run ") and again.exit_code == first.exit_code
