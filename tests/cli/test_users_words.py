"""Issue 27, items 3 and 4, from the user's side: the command typed, the line seen.

Every message names the target as it was typed (``mine.py:noisy_sum``, never ``<function ... at 0x...>``) and
the options as the command line spells them (``--epsilon``, not ``epsilon=``); ``prove`` on a plain function says
it has nothing to prove and points to ``audit`` and ``certify``; the report's reproduce line names the ``-o`` path
given; ``--search-samples`` says one true thing; a Dask scheduler that is not there is one line, exit 2.
"""

from __future__ import annotations

import json
import re
import time

import pytest
from click.testing import CliRunner

MINE = """
import numpy as np


def noisy_sum(data, rng):
    return round((sum(data) + rng.laplace(0, 1.0)) * 2**16) / 2**16


def noisy_sum_vectorised(data, n, rng):
    return np.rint((sum(data) + rng.laplace(0, 1.0, size=n)) * 2**16) / 2**16
"""
PAIR = ["--a", "[1, 0, 1]", "--b", "[1, 0, 1, 1]"]


@pytest.fixture()
def in_my_folder(tmp_path, monkeypatch):
    """A user's folder holding the README's mine.py, as the working folder: targets are typed `mine.py:...`."""
    (tmp_path / "mine.py").write_text(MINE)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def typed(command: str):
    """Run ``command`` as typed after ``dpaudit``; the result and its standard error's lines."""
    import shlex

    from dpaudit.cli import main

    result = CliRunner().invoke(main, shlex.split(command))
    return result, result.stderr.strip().splitlines()


def test_prove_on_a_plain_function_says_it_declares_nothing_and_points_to_audit_and_certify(in_my_folder):
    result, lines = typed("prove mine.py:noisy_sum --epsilon 1")
    assert result.exit_code == 2 and len(lines) == 1, result.output
    assert lines[0] == (
        "dpaudit: error: 'mine.py:noisy_sum' is a plain function: it declares no density, program or structure to "
        "prove; audit it (a sampled lower bound on its epsilon) or certify it (exact bounds from its code, for "
        "discrete samplers) instead: dpaudit audit mine.py:noisy_sum --epsilon 1.0 --a JSON --b JSON")
    assert "required" not in lines[0]


def test_prove_without_epsilon_says_the_same(in_my_folder):
    result, lines = typed("prove mine.py:noisy_sum")
    assert result.exit_code == 2 and len(lines) == 1
    assert "declares no density, program or structure" in lines[0] and "--epsilon EPSILON" in lines[0]


@pytest.mark.parametrize("command", ["audit mine.py:noisy_sum --a '[1]' --b '[1, 1]'",
                                     "audit mine.py:noisy_sum --delta 0.1 --a '[1]' --b '[1, 1]'",
                                     "report mine.py:noisy_sum -o out.html"])
def test_a_plain_function_without_a_claim_is_named_as_typed_and_asked_for_epsilon(in_my_folder, command):
    result, lines = typed(command)
    assert result.exit_code == 2 and len(lines) == 1, result.output
    assert lines[0] == ("dpaudit: error: 'mine.py:noisy_sum' is a plain function, which carries no claim: give "
                        "--epsilon (or --claim/--rho/--mu/--alpha)")


def test_options_are_spelled_as_on_the_command_line(in_my_folder):
    result, lines = typed("audit mine.py:noisy_sum --epsilon -1 --a '[1]' --b '[1, 1]'")
    assert result.exit_code == 2 and lines == ["dpaudit: error: --epsilon=-1.0 must be a finite number >= 0"]
    result, lines = typed("audit laplace --samples 5")
    assert result.exit_code == 2 and lines == ["dpaudit: error: --samples=5 must be at least 100 and at most 1e+15"]
    result, lines = typed("audit laplace --method joint --delta 0.1")
    assert result.exit_code == 2 and lines[0].startswith("dpaudit: error: --method='joint' bounds epsilon")


def test_no_message_shows_a_memory_address(in_my_folder):
    for command in ("prove mine.py:noisy_sum", "audit mine.py:noisy_sum --a '[1]' --b '[1, 1]'",
                    "audit mine.py:noisy_sum_vectorised --claim pure --a '[1]' --b '[1, 1]'"):
        result, lines = typed(command)
        assert result.exit_code == 2 and len(lines) == 1
        assert not re.search(r"0x[0-9a-f]+|<function", lines[0]), lines[0]


def test_the_report_reproduce_line_names_the_path_given(in_my_folder):
    result = typed("report laplace -o laplace.json --samples 2000 --seed 1 --no-plots --skip-check sensitivity "
                   "--json")[0]
    assert result.exit_code == 0, result.output
    reproduce = json.loads(result.stdout)["settings"]["reproduce"]
    assert reproduce.endswith(" -o laplace.json") and "report.html" not in reproduce


def test_search_samples_help_is_one_statement_read_from_the_code():
    from dpaudit.auditor import SEARCH_FLOOR, SEARCH_ROWS, SEARCH_VALUES, search_budget

    help_text = " ".join(typed("audit --help")[0].output.split())
    start = help_text.index("--search-samples")
    said = help_text[start: help_text.index("--seed", start)]
    assert f"at least {SEARCH_FLOOR:,} or all of --samples when fewer" in said
    assert f"at most {SEARCH_ROWS[1]:,} rows or {SEARCH_VALUES:,} numbers per side, whichever is fewer" in said
    assert f"that cap is never below {SEARCH_ROWS[0]:,} rows" in said
    # ... and what it says is what the code does.
    for samples in (100, 5_000, 30_000, 10**6, 10**7):
        for width in (1, 10, 100, 1000):
            n, cap = search_budget(samples, width), max(SEARCH_ROWS[0], min(SEARCH_ROWS[1], SEARCH_VALUES // width))
            assert n == min(max(samples // 2, min(samples, SEARCH_FLOOR)), cap) and cap >= SEARCH_ROWS[0]


def test_an_unreachable_dask_scheduler_is_one_line_exit_2_and_quick():
    started = time.perf_counter()
    result, lines = typed("audit laplace --executor dask://127.0.0.1:1 --connect-timeout 1 --seed 1")
    elapsed = time.perf_counter() - started
    assert result.exit_code == 2, result.output  # a fault of where it runs, never 1 (violation)
    assert len(lines) == 1 and "Traceback" not in result.output
    assert lines[0].startswith("dpaudit: error: --executor='dask://127.0.0.1:1': no Dask scheduler answered at "
                               "tcp://127.0.0.1:1 within --connect-timeout=1 s")
    assert elapsed < 10


def test_the_connect_timeout_default_is_short_and_read_from_the_configuration():
    from dpaudit.auditor import DEFAULT_CONNECT_TIMEOUT

    help_text = " ".join(typed("audit --help")[0].output.split())
    assert DEFAULT_CONNECT_TIMEOUT <= 10 and f"[default: {DEFAULT_CONNECT_TIMEOUT}]" in help_text


def test_a_curve_verdict_carries_no_futility_note(in_my_folder):
    result = typed("audit mine.py:noisy_sum_vectorised --rho 0.1 --a '[1, 0, 1]' --b '[1, 0, 1, 1]' "
                   "--samples 20000 --seed 1 --executor in-process")[0]
    assert result.exit_code == 1 and "decided by the curve" in result.stdout, result.output
    assert "futility" not in result.stdout
