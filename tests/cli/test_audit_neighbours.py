"""`dpaudit audit --neighbours`: a plain function audited under the relation its pair needs."""

from __future__ import annotations

from click.testing import CliRunner

from dpaudit.cli import main

MECHANISM = """
import numpy as np


def noisy_sum(data, n, rng):
    # Laplace(0.5) on a sum, released on a 2^-16 grid: true epsilon 2 for records in {0, 1}
    return np.rint((sum(data) + rng.laplace(0.0, 0.5, n)) * 2.0**16) / 2.0**16
"""


ROWS = """

def noisy_rows(data, n, rng):
    return np.rint((np.sum(np.asarray(data, dtype=float)) + rng.laplace(0.0, 0.5, n)) * 2.0**16) / 2.0**16
"""


def test_plain_function_under_add_remove(tmp_path):
    path = tmp_path / "mech.py"
    path.write_text(MECHANISM)
    args = [
        "audit", f"{path}:noisy_sum", "--epsilon", "1", "--neighbours", "add-remove",
        "--a", "[1, 0]", "--b", "[1, 0, 1]", "--samples", "20000", "--seed", "4",
    ]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1, result.output
    assert "VIOLATION" in result.output
    assert "--neighbours add-remove" in result.output  # the reproduce line carries the relation


def test_pair_of_datasets_without_the_relation_is_audited_as_add_remove(tmp_path):
    # The pair is the user's statement: sizes 2 and 3, one record added, say add/remove; the output says so.
    path = tmp_path / "mech.py"
    path.write_text(MECHANISM)
    args = ["audit", f"{path}:noisy_sum", "--epsilon", "1", "--a", "[1, 0]", "--b", "[1, 0, 1]", "--samples", "20000",
            "--seed", "4", "--executor", "in-process"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1, result.output
    assert "neighbours: add/remove one record (inferred from the pair: sizes 2 and 3, one record added)" in result.output


def test_data_starts_the_pair_search(tmp_path):
    # No pair: --data gives the size and value range of the searched datasets (add/remove by default).
    path = tmp_path / "mech.py"
    path.write_text(MECHANISM)
    args = ["audit", f"{path}:noisy_sum", "--epsilon", "1", "--data", "[1, 0, 1]", "--samples", "20000", "--seed", "4",
            "--executor", "in-process"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1, result.output
    assert "neighbours: add/remove one record (default for an example dataset)" in result.output
    assert "--data '[1, 0, 1]'" in result.output  # the reproduce line carries it


def test_a_search_that_cannot_start_names_the_options_to_give(tmp_path):
    path = tmp_path / "mech.py"
    path.write_text(MECHANISM)
    for extra in ([], ["--neighbours", "add-remove"]):
        result = CliRunner().invoke(main, ["audit", f"{path}:noisy_sum", "--epsilon", "1", "--samples", "1000", *extra])
        assert result.exit_code == 2, result.output
        assert result.output.count("\n") == 1 and "give --a JSON --b JSON or --data JSON" in result.output


def test_unknown_relation_is_a_usage_error(tmp_path):
    path = tmp_path / "mech.py"
    path.write_text(MECHANISM)
    result = CliRunner().invoke(main, ["audit", f"{path}:noisy_sum", "--epsilon", "1", "--neighbours", "nope"])
    assert result.exit_code == 2
    assert "neighbours='nope' must be add-remove" in result.output


def test_json_output_records_the_relation_used(tmp_path):
    import json

    path = tmp_path / "mech.py"
    path.write_text(MECHANISM)
    args = ["audit", f"{path}:noisy_sum", "--epsilon", "1", "--a", "[1, 0]", "--b", "[1, 1, 1]", "--samples", "2000",
            "--seed", "4", "--executor", "in-process", "--json"]
    result = CliRunner().invoke(main, args)
    document = json.loads(result.output)
    assert document["neighbours"]["relation"] is None and document["neighbours"]["source"] == "unchecked"
    assert document["neighbours"]["statement"].startswith("pair given, relation unchecked")


def test_a_canary_relation_is_quoted_in_the_reproduce_line_so_it_pastes_into_a_shell(tmp_path):
    import shlex

    path = tmp_path / "mech.py"
    path.write_text(MECHANISM + ROWS)
    args = ["audit", f"{path}:noisy_sum", "--epsilon", "1", "--neighbours", "canary:1", "--a", "[1, 0]",
            "--b", "[1, 0, 1]", "--samples", "2000", "--seed", "4", "--executor", "in-process"]
    result = CliRunner().invoke(main, args)
    line = next(text for text in result.output.splitlines() if "reproduce:" in text)
    words = shlex.split(line.split("reproduce:", 1)[1])
    assert words[words.index("--neighbours") + 1] == "canary:1"
    spaced = ["audit", f"{path}:noisy_rows", "--epsilon", "1", "--neighbours", "canary:[1, 0]", "--a", "[[1, 0]]",
              "--b", "[[1, 0], [1, 0]]", "--samples", "2000", "--seed", "4", "--executor", "in-process"]
    line = next(text for text in CliRunner().invoke(main, spaced).output.splitlines() if "reproduce:" in text)
    words = shlex.split(line.split("reproduce:", 1)[1])
    assert words[words.index("--neighbours") + 1] == "canary:[1, 0]"
