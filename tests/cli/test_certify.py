"""``dpaudit certify``: the lines seen, the JSON keys and the exit codes of the README's table (0 certified,
1 refuted, 2 bad input naming the option, 3 unknown), and the bracket ``dpaudit audit`` prints beside an
audit of a catalogue entry with a one-run sampler.  Every certification here is exact and takes well under
a second (rr: 10 paths; geometric: ~700 paths per input)."""

from __future__ import annotations

import re

import json

import pytest
from click.testing import CliRunner

from dpaudit.cli import main

RR = "import random\n\ndef rr(bit, rng: random.Random):\n    return bit if rng.random() < 0.5 else rng.randrange(2)\n"


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def test_a_certified_claim_exits_0_with_the_bracket_and_the_laws():
    result = run("certify", "rr")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "CERTIFIED: rr against 1.09861-DP (output observed)"
    assert "epsilon in [1.098612289, 1.098612289] (certified by exact path enumeration)" in result.output
    assert "  input 1: 1: [0.75, 0.75], 0: [0.25, 0.25]; unexplored mass 0" in result.output
    assert lines[-1] == "  reproduce: dpaudit certify rr"


def test_a_refuted_claim_exits_1_with_the_witness():
    result = run("certify", "rr-miscalibrated")
    assert result.exit_code == 1, result.output
    assert result.output.startswith("REFUTED: rr-miscalibrated against 0.5-DP")
    assert "  witness: output 0: P[. | 0] in [0.731059, 0.731059], P[. | 1] in [0.268941, 0.268941]" in result.output


def test_an_unknown_verdict_exits_3_with_the_reason():
    # The geometric's support is infinite: pure 1-DP needs the unexplored mass (~1e-14) closed.
    result = run("certify", "geometric")
    assert result.exit_code == 3, result.output
    assert result.output.startswith("UNKNOWN: geometric against 1-DP")
    assert "unexplored mass" in result.output.splitlines()[1]


def test_a_restated_claim_and_a_given_pair():
    result = run("certify", "geometric", "--a", "[1, 0]", "--b", "[1, 0, 1]", "--delta", "1e-12")
    assert result.exit_code == 0, result.output
    assert result.output.startswith("CERTIFIED: geometric against (1, 1e-12)-DP")
    assert "  input (1, 0): " in result.output
    assert result.output.splitlines()[-1] == "  reproduce: dpaudit certify geometric --a '[1, 0]' --b '[1, 0, 1]' --delta 1e-12"


def test_a_plain_function_in_a_file(tmp_path):
    (tmp_path / "mech.py").write_text(RR)
    target = f"{tmp_path / 'mech.py'}:rr"
    assert run("certify", target, "--a", "1", "--b", "0", "--epsilon", "1.0986122886681098").exit_code == 0
    refuted = run("certify", target, "--a", "1", "--b", "0", "--epsilon", "1")
    assert refuted.exit_code == 1 and refuted.output.startswith("REFUTED:")
    no_claim = run("certify", target, "--a", "1", "--b", "0")
    assert no_claim.exit_code == 3 and "no claim given" in no_claim.output


def test_the_draw_count_side_channel():
    result = run("certify", "geometric-by-trials", "--a", "[1, 0, 1]", "--b", "[1, 0, 1, 1]", "--observe", "draws")
    assert result.exit_code == 1, result.output
    assert "(output and number of draws observed)" in result.output.splitlines()[0]


def test_json_is_the_results_dict():
    result = run("certify", "rr", "--json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    assert set(document) == {"target", "claim", "pairs", "verdict", "reason", "epsilon_low", "epsilon_up", "delta_up",
                             "delta_at_claim", "observed", "laws", "witness", "seconds"}
    assert document["verdict"] == "certified"
    assert document["claim"]["kind"] == "pure" and document["claim"]["epsilon"] == pytest.approx(1.0986122886681098)
    # each interval rounded outward around the exact probability
    (one, low1, high1), (zero, low0, high0) = document["laws"][0]["outcomes"]
    assert (one, zero) == ("1", "0") and low1 <= 0.75 <= high1 and low0 <= 0.25 <= high0


@pytest.mark.parametrize(("args", "named"), [
    (("--tolerance", "1.5"), "--tolerance"),
    (("--tolerance", "nan"), "--tolerance"),
    (("--time-limit", "0"), "--time-limit"),
    (("--time-limit", "inf"), "--time-limit"),
    (("--max-paths", "0"), "--max-paths"),
    (("--observe", "time"), "--observe"),
    (("--a", "1"), "--a"),
    (("--a", "[1", "--b", "0"), "--a"),
    (("--rho", "0.5"), "--rho"),
    (("--epsilon", "nan"), "epsilon"),
])
def test_bad_input_exits_2_in_one_line_naming_the_option(args, named):
    result = run("certify", "rr", *args)
    assert result.exit_code == 2, result.output
    errors = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(errors) == 1 and named in errors[0], result.stderr


@pytest.mark.parametrize(("target", "named"), [
    ("laplace", "'laplace' has no one-run sampler"),       # a vectorised sampler only
    ("discrete-gaussian", "--delta or --epsilon"),                  # a curve claim: name its point
    ("no-such-mechanism", "'no-such-mechanism'"),
])
def test_targets_certify_cannot_take_exit_2(target, named):
    result = run("certify", target)
    assert result.exit_code == 2, result.output
    assert named in result.stderr


def test_help_states_the_certifiers_defaults():
    from dpaudit.certifier import DEFAULT_TIME_LIMIT, DEFAULT_TOLERANCE

    text = " ".join(run("certify", "--help").output.split())
    assert f"(default {DEFAULT_TOLERANCE:g})" in text and f"(default {DEFAULT_TIME_LIMIT:g})" in text


# -- the bracket beside an audit

def test_audit_of_a_one_run_entry_prints_the_bracket_and_keeps_its_verdict():
    result = run("audit", "geometric", "--samples", "20000", "--seed", "1")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    bracket = [line for line in lines if line.startswith("  bracket : ")]
    assert len(bracket) == 1, result.output
    # the certificate's delta is what the enumeration left (about 1e-18 here), far below the claim's 0 + rounding
    assert re.match(r"  bracket : epsilon in \[1, 1 with delta [0-9.]+e-1[0-9]\] -- audited >= 0\.", bracket[0])
    assert "certified by exact path enumeration of the one-run sampler" in bracket[0]
    assert lines[-1].startswith("  reproduce: dpaudit audit geometric")


def test_audit_json_carries_the_certificate():
    result = run("audit", "rr-miscalibrated", "--samples", "20000", "--seed", "1", "--json")
    assert result.exit_code == 1, result.output
    document = json.loads(result.output)
    assert document["verdict"] == "violation"
    assert document["certificate"]["verdict"] == "refuted"
    assert document["certificate"]["epsilon_up"] == pytest.approx(1.0)


def test_audit_of_a_vectorised_entry_prints_no_bracket():
    result = run("audit", "laplace", "--samples", "20000", "--seed", "1", "--json")
    assert "certificate" not in json.loads(result.output)
