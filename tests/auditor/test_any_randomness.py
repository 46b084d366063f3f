"""Audits of functions that take a RandomState, a random.Random, or no randomness argument at all.

A seedable source is seeded from the audit's seed, so the audit reproduces; a function that draws
its own randomness cannot be seeded, and the result, the terminal, the JSON, the report and every
reproduce line say so.
"""

from __future__ import annotations

import json
import textwrap
from dataclasses import replace

import numpy as np
import pytest
from click.testing import CliRunner

import dpaudit
from dpaudit import InvalidArgument
from dpaudit.cli import main as cli_main


def laplace_random_state(q, random_state: np.random.RandomState):
    """A diffprivlib-style sampler: numpy's legacy RandomState (released on a grid: no float leak)."""
    return round(q + random_state.laplace(0.0, 1.0), 3)


def laplace_python_random(q, source):
    """Takes a random.Random, which its signature does not say: the audit is told randomness="python-random"."""
    return round(q + source.expovariate(1.0) - source.expovariate(1.0), 3)


def laplace_own(q):
    """Draws from numpy's global generator: nothing the audit hands over can seed it."""
    return round(q + np.random.laplace(0.0, 1.0), 3)


def _same(r1, r2) -> bool:
    return replace(r1, elapsed_s=0.0, mechanism_s=0.0) == replace(r2, elapsed_s=0.0, mechanism_s=0.0)


@pytest.mark.parametrize("function, randomness", [(laplace_random_state, None),
                                                  (laplace_python_random, "python-random")])
def test_a_seedable_source_makes_the_audit_reproducible(function, randomness):
    first = dpaudit.audit(function, epsilon=1.0, pair=(0.0, 1.0), samples=5_000, seed=3, randomness=randomness)
    again = dpaudit.audit(function, epsilon=1.0, pair=(0.0, 1.0), samples=5_000, seed=3, randomness=randomness)
    other = dpaudit.audit(function, epsilon=1.0, pair=(0.0, 1.0), samples=5_000, seed=4, randomness=randomness)
    assert _same(first, again) and not _same(first, other)
    assert first.reproducible and "SeedSequence(3)" in first.reproducibility
    assert "not reproducible" not in first.reproduce()


def test_a_function_with_its_own_randomness_audits_and_says_it_is_not_reproducible():
    # Unseeded, so validity rests on the confidence: Laplace at scale 1/epsilon (on a grid) is flagged
    # with probability at most 1e-6.
    result = dpaudit.audit(laplace_own, epsilon=1.0, pair=(0.0, 1.0), samples=5_000, seed=3, confidence=1 - 1e-6)
    assert result.verdict is not dpaudit.auditor.Verdict.VIOLATION
    assert result.reproducible is False
    assert "draws its own randomness" in result.reproducibility and "seed 3" in result.reproducibility
    assert result.as_dict()["reproducible"] is False
    assert result.reproduce().endswith("# not reproducible: the mechanism draws its own randomness, which the seed "
                                       "does not fix")
    assert dpaudit.AuditResult.from_dict(json.loads(json.dumps(result.as_dict()))) == result


def test_randomness_is_for_plain_functions_only():
    with pytest.raises(InvalidArgument, match="randomness='own' applies to a plain function"):
        dpaudit.audit("laplace", samples=1_000, randomness="own")
    with pytest.raises(InvalidArgument, match="randomness='numpy' must be one of"):
        dpaudit.audit(laplace_own, epsilon=1.0, pair=(0.0, 1.0), samples=1_000, randomness="numpy")


def test_cli_shows_that_own_randomness_is_not_reproducible(tmp_path):
    target = tmp_path / "own.py"
    target.write_text(textwrap.dedent(
        """
        import secrets

        def coin(bit):
            return bit if secrets.randbelow(4) else 1 - bit
        """
    ))
    result = CliRunner().invoke(cli_main, ["audit", f"{target}:coin", "--epsilon", "2", "--a", "0", "--b", "1",
                                           "--samples", "5000", "--seed", "8"])
    # True epsilon ln 3 = 1.10 against the claim 2 (unseeded): a violation needs the 95 % bound on the
    # log-ratio of the best event to overshoot ln 3 by 0.9: over 15 standard errors even at the first look.
    assert result.exit_code in (0, 3), result.output
    lines = result.output.splitlines()
    assert any(line.startswith("  reproducible: no -- 'coin' draws its own randomness") for line in lines)
    reproduce = next(line for line in lines if line.startswith("  reproduce: "))
    assert "--seed 8" in reproduce and reproduce.endswith("# not reproducible: the mechanism draws its own "
                                                          "randomness, which the seed does not fix")
    document = json.loads(CliRunner().invoke(cli_main, ["audit", f"{target}:coin", "--epsilon", "2", "--a", "0",
                                                        "--b", "1", "--samples", "5000", "--json"]).output)
    assert document["reproducible"] is False and "draws its own randomness" in document["reproducibility"]


def test_cli_randomness_option_is_used_and_repeated_in_the_reproduce_line(tmp_path):
    target = tmp_path / "rr.py"
    target.write_text(textwrap.dedent(
        """
        def rr(bit, source):  # a random.Random, which the signature does not say
            return bit if source.random() < 0.75 else 1 - bit
        """
    ))
    args = ["audit", f"{target}:rr", "--epsilon", "0.5", "--a", "0", "--b", "1", "--samples", "5000", "--seed", "8"]
    result = CliRunner().invoke(cli_main, [*args, "--randomness", "python-random"])
    assert result.exit_code == 1, result.output
    assert "--randomness python-random" in result.output and "not reproducible" not in result.output
    # Without the option the function is handed a numpy Generator, whose .random() serves as well.
    assert CliRunner().invoke(cli_main, args).exit_code == 1


def test_the_plugin_reproduce_line_says_when_the_seed_cannot_reproduce():
    from dpaudit.pytest_plugin.session import _reproduce_line

    result = dpaudit.audit(laplace_own, epsilon=1.0, pair=(0.0, 1.0), samples=2_000, seed=3)
    line = _reproduce_line(laplace_own, result, "tests/test_x.py::test_y", 3)
    assert "--seed 3" in line and "# not reproducible: the mechanism draws its own randomness" in line


def test_reports_say_when_the_audit_is_not_reproducible():
    from dpaudit.reports.from_audit import report_from_audit
    from dpaudit.reports.model import load_schema
    from dpaudit.reports.render_html import render_html
    from dpaudit.reports.render_markdown import render_markdown

    result = dpaudit.audit(laplace_own, epsilon=1.0, pair=(0.0, 1.0), samples=2_000, seed=3)
    mechanism = dpaudit.Mechanism.from_callable(laplace_own, claim=dpaudit.PureDP(1.0))
    document = report_from_audit(result, mechanism, plots=False)
    assert document["audit"]["result"]["reproducible"] is False
    assert "# not reproducible" in document["settings"]["reproduce"]
    row = next(line for line in render_markdown(document).splitlines() if line.startswith("| reproducible |"))
    assert row.startswith("| reproducible | **no** — ") and "draws its own randomness" in row
    assert "<tr><th>reproducible</th><td><strong>no</strong> — &#39;laplace_own&#39; draws its own" in render_html(document)
    import jsonschema

    jsonschema.Draft202012Validator(load_schema()).validate(document)


def test_a_function_that_expects_a_random_state_is_told_how_to_say_so():
    def noisy_bit(bit, rng):  # no annotation: taken for a Generator, which has no random_sample
        return bit if rng.random_sample() < 0.75 else 1 - bit

    with pytest.raises(dpaudit.MechanismError, match="randomness='random-state'"):
        dpaudit.audit(noisy_bit, epsilon=2.0, pair=(1, 0), samples=1000, seed=1, executor="in-process")
    result = dpaudit.audit(noisy_bit, epsilon=2.0, pair=(1, 0), samples=1000, seed=1, executor="in-process",
                           randomness="random-state")
    assert result.reproducible and not result.violation
