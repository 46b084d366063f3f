"""``dpaudit audit``: exit codes, JSON output, reproducibility line, one-line errors (CliRunner)."""

from __future__ import annotations

import json
import textwrap

import pytest
from click.testing import CliRunner

from dpaudit.cli import main

TARGETS = textwrap.dedent(
    """
    import numpy as np
    from dpaudit import Mechanism, PureDP, QueryDistance

    def good(q, n, rng):  # released on a 2^-16 grid: no float-lattice leak
        return np.rint((q + rng.laplace(0.0, 1.0, size=n)) * 65536.0) / 65536.0

    def leaky(q, n, rng):
        return q + rng.laplace(0.0, 0.5, size=n)

    def raises(q, n, rng):
        raise ZeroDivisionError("division by zero in the mechanism")

    def nan(q, n, rng):
        return np.full(n, np.nan)

    def shape(q, n, rng):
        return rng.random((n, 1 + int(q > 0.5)))

    def unhashable(q, rng):
        return {"a"} if rng.random() < 0.5 else {2}

    mechanism = Mechanism(name="file-laplace", claim=PureDP(1.0), neighbours=QueryDistance(1.0), sampler=good, domain=0.0)
    """
)


@pytest.fixture()
def targets(tmp_path):
    path = tmp_path / "targets.py"
    path.write_text(TARGETS)
    return str(path)


def run(*args: str):
    return CliRunner().invoke(main, ["audit", *args])


def test_pass_prints_bound_event_and_reproduction(targets):
    result = run(f"{targets}:mechanism", "--samples", "20000", "--seed", "5")
    assert result.exit_code == 0, result.output
    assert "PASS" in result.output and "epsilon >=" in result.output
    assert f"dpaudit audit {targets}:mechanism --seed 5 --samples 20000" in result.output


def test_violation_exit_1_and_json(targets):
    result = run(f"{targets}:leaky", "--epsilon", "1", "--a", "0", "--b", "1", "--samples", "20000", "--seed", "5", "--json")
    assert result.exit_code == 1, result.output
    document = json.loads(result.output)
    assert document["verdict"] == "violation" and document["seed"] == 5 and sorted(document["pair"]) == [0, 1]


def test_an_estimate_above_a_tight_claim_passes_with_both_bounds_printed():
    # The exactly 1-DP geometric mechanism, seed 23: its 0.95 estimate lands above the claim, the bound
    # at the verdict's 0.999 does not, even after extending to 4 x 5 000 samples per side
    # (tests/auditor/test_validity.py has the API's twin of this).
    args = ["geometric", "--a", "[1, 0, 1]", "--b", "[1, 0, 1, 1]", "--samples", "5000", "--seed", "23",
            "--executor", "in-process"]
    result = run(*args)
    assert result.exit_code == 0, result.output
    assert "epsilon >= 1.0024 with confidence 0.95 (joint bound; the estimate)" in result.output
    assert "verdict : epsilon >= 0.9713 with confidence 0.999, <= claimed 1" in result.output
    assert "not significant" in result.output
    strict = run(*args, "--verdict-confidence", "0.95", "--json")
    assert strict.exit_code == 1 and json.loads(strict.output)["decided_by"] == "bound"
    assert "--verdict-confidence 0.95" in run(*args, "--verdict-confidence", "0.95").output  # reproduction line


def test_underpowered_exit_3():
    result = run("laplace", "--epsilon", "5", "--samples", "200", "--seed", "1")
    assert result.exit_code == 3, result.output
    assert "UNDERPOWERED" in result.output


def test_seed_is_drawn_and_printed_when_absent():
    result = run("laplace", "--samples", "2000")
    assert result.exit_code in (0, 3)
    assert "--seed " in result.output


@pytest.mark.parametrize(
    "attr,args,words",
    [
        ("raises", ["--epsilon", "1"], "ZeroDivisionError"),
        ("nan", ["--epsilon", "1"], "NaN"),
        ("shape", ["--epsilon", "1"], "varying shapes"),
        ("unhashable", ["--epsilon", "1"], "type set"),
        ("good", [], "is a plain function, which carries no claim: give --epsilon"),
        ("good", ["--epsilon", "-1"], "epsilon=-1.0 must be"),
        ("good", ["--epsilon", "1", "--a", '{"x": 1}', "--b", "[1]"], "must be a dataset"),
        ("good", ["--epsilon", "1", "--a", "[1, 2", "--b", "[1]"], "not valid JSON"),
        ("good", ["--epsilon", "1", "--a", "0"], "--a and --b must be given together"),
        ("missing", ["--epsilon", "1"], "has no attribute"),
        ("leeky", ["--epsilon", "1"], "has no attribute 'leeky'; did you mean leaky?"),
    ],
)
def test_bad_input_is_one_line_exit_2(targets, attr, args, words):
    result = run(f"{targets}:{attr}", *args, "--samples", "1000", "--seed", "1")
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("dpaudit: error:") and words in lines[0]
    assert "Traceback" not in result.output


def test_unknown_name_and_dataset_not_neighbouring():
    unknown = run("no-such-mechanism", "--samples", "1000")
    assert unknown.exit_code == 2 and "is not a catalogue mechanism" in unknown.output
    far = run("laplace", "--a", "[1, 1, 1]", "--b", "[1]", "--samples", "1000", "--seed", "1")
    assert far.exit_code == 2 and "not add/remove neighbours" in far.output


def test_debug_shows_the_exception(targets):
    told = run(f"{targets}:raises", "--epsilon", "1", "--samples", "1000", "--seed", "1")
    assert "--debug shows the mechanism's traceback" in told.output  # the one line says how to see it
    result = run(f"{targets}:raises", "--epsilon", "1", "--samples", "1000", "--seed", "1", "--debug")
    assert result.exit_code != 0 and result.exception is not None
    assert not isinstance(result.exception, SystemExit)


def test_executor_checkpoint_and_check_options(targets, tmp_path):
    checkpoint = tmp_path / "audit.ckpt"
    args = [f"{targets}:mechanism", "--samples", "5000", "--seed", "2", "--executor", "in-process",
            "--checkpoint", str(checkpoint), "--no-float-checks", "--no-early-stop", "--no-progress", "--json"]
    first = run(*args)
    assert first.exit_code in (0, 3), first.output
    document = json.loads(first.output)
    assert document["checks"] == ["correlated-noise", "draw-count"] and document["stopping"]["looks"] == [5000]
    assert document["run"]["executor"] == "in-process" and checkpoint.exists()
    again = json.loads(run(*args).output)
    assert again["run"]["resumed_chunks"] > 0 and again["epsilon_lower_bound"] == document["epsilon_lower_bound"]
    other = run(*[a if a != "2" else "3" for a in args])
    assert other.exit_code == 2 and "was made for a different audit: --seed=2 there, 3 now" in other.output
    bad = run(f"{targets}:mechanism", "--samples", "1000", "--executor", "gpu")
    assert bad.exit_code == 2 and "executor='gpu' must be one of" in bad.output


def test_float_leak_finding_is_printed():
    result = run("laplace-numpy", "--a", "[]", "--b", "[1]", "--samples", "20000", "--search-samples", "2000",
                 "--seed", "1")
    assert result.exit_code == 1, result.output
    assert "(20000 verification + 2000 search samples per side; sizes Poisson around 20000)" in result.output
    assert "--search-samples 2000" in result.output
    assert "finding : [float-support]" in result.output or "finding : [lattice]" in result.output
    assert "infinite privacy loss" in result.output
