"""The pytest plugin's options, header, marker validation and seed policy (no audit runs here)."""

from __future__ import annotations

import pytest

from dpaudit.pytest_plugin import DEFAULT_SEED, test_seed as derive_seed


def test_header_prints_the_run_seed(pytester):
    pytester.makepyfile("def test_nothing():\n    pass\n")
    result = pytester.runpytest("--dp-seed=1234")
    result.stdout.fnmatch_lines(["dpaudit: --dp-seed=1234 (confidence 0.999999, samples auditor default)"])
    result.assert_outcomes(passed=1)


def test_default_seed_is_fixed(pytester):
    pytester.makepyfile("def test_nothing():\n    pass\n")
    result = pytester.runpytest()
    result.stdout.fnmatch_lines([f"dpaudit: --dp-seed={DEFAULT_SEED} *"])


def test_last_seed_is_remembered(pytester):
    pytester.makepyfile("def test_nothing():\n    pass\n")
    pytester.runpytest("--dp-seed=99")
    result = pytester.runpytest("--dp-seed=last")
    result.stdout.fnmatch_lines(["dpaudit: --dp-seed=99 *"])


def test_ini_options_are_read(pytester):
    pytester.makeini("[pytest]\ndp_seed = 7\ndp_confidence = 0.99\ndp_samples = 1e5\n")
    pytester.makepyfile("def test_nothing():\n    pass\n")
    result = pytester.runpytest()
    result.stdout.fnmatch_lines(["dpaudit: --dp-seed=7 (confidence 0.99, samples 100000)"])


@pytest.mark.parametrize(
    "option, message",
    [
        ("--dp-seed=-3", "--dp-seed='-3' must be a non-negative integer"),
        ("--dp-seed=abc", "--dp-seed='abc' must be a non-negative integer, 'random' or 'last'"),
        ("--dp-samples=0", "--dp-samples='0' must be a positive integer"),
        ("--dp-samples=1.5", "--dp-samples='1.5' must be a positive integer"),
        ("--dp-samples=50", "--dp-samples='50' must be at least 100 and at most 1e+15"),
        ("--dp-confidence=1", "--dp-confidence='1' must be a number in (0, 1)"),
        ("--dp-confidence=x", "--dp-confidence='x' must be a number in (0, 1)"),
    ],
)
def test_bad_options_are_usage_errors(pytester, option, message):
    pytester.makepyfile("def test_nothing():\n    pass\n")
    result = pytester.runpytest(option)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert message in result.stderr.str()


def test_bad_ini_value_is_a_usage_error(pytester):
    pytester.makeini("[pytest]\ndp_confidence = 2\n")
    pytester.makepyfile("def test_nothing():\n    pass\n")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "dp_confidence" in result.stderr.str()


@pytest.mark.parametrize(
    "marker, message",
    [
        ("@pytest.mark.dp(1.0)", "takes keyword arguments only"),
        ("@pytest.mark.dp(epsilom=1.0)", "unknown keyword(s) epsilom"),
        ("@pytest.mark.dp(epsilon=1.0, pair=3)", "pair=3) must be a pair (a, b)"),
    ],
)
def test_marker_arguments_are_validated(pytester, marker, message):
    pytester.makepyfile(f"import pytest\n\n{marker}\ndef test_m():\n    return None\n")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert message in result.stderr.str()


def test_per_test_seed_depends_only_on_run_seed_and_node_id():
    assert derive_seed(1, "t.py::a") == derive_seed(1, "t.py::a")
    assert derive_seed(1, "t.py::a") != derive_seed(1, "t.py::b")
    assert derive_seed(1, "t.py::a") != derive_seed(2, "t.py::a")
    assert 0 <= derive_seed(5, "x") < 2**64


def test_plugin_module_imports_nothing_heavy():
    import subprocess
    import sys

    code = (
        "import sys, dpaudit.pytest_plugin; "
        "heavy = [m for m in ('numpy', 'sympy', 'scipy', 'statsmodels', 'matplotlib') if m in sys.modules]; "
        "print(heavy); sys.exit(1 if heavy else 0)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
