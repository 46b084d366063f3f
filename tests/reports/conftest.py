"""Shared report documents: built once per test session with small, fixed budgets.

Budgets: 20 000 verification samples per side and 4 000 re-sampled outputs per side for the
figures keep each report to a few seconds; every seed is fixed so the documents are deterministic
(up to wall-clock fields, which the tests that compare documents strip).
"""

from __future__ import annotations

import pytest

# The environment recorded in documents that tests compare: fixed so that they do not depend on the
# machine or the time of the run.
FIXED_ENVIRONMENT = {
    "dpaudit": "0.1.0",
    "python": "3.11.7",
    "implementation": "CPython",
    "numpy": "2.0.0",
    "scipy": None,
    "sympy": None,
    "statsmodels": None,
    "matplotlib": None,
    "platform": "Linux-x86_64",
    "machine": "x86_64",
    "byteorder": "little",
    "datetime_utc": "2026-01-01T00:00:00+00:00",
}

# Confidence 1 - 1e-6: by the auditor's guarantee a mechanism that keeps its claim is reported as a
# violation with probability at most 1e-6, whatever the seed, so the expectations below do not depend
# on a lucky seed.  (At this budget the audit of a correct entry is then "underpowered"; its proof
# carries the verdict.)
# The sensitivity search (hypothesis, 300 examples) is skipped here to keep the tests fast; it has a
# test of its own in test_checks.py.
SMALL = {"samples": 20_000, "seed": 20260101, "confidence": 1 - 1e-6, "plot_samples": 4_000,
         "skip_checks": ("sensitivity",)}

# A known-broken catalogue entry whose claim is both refuted by the prover and violated in the audit:
# Laplace with noise scale epsilon instead of Delta/epsilon, claiming 0.1-DP with true epsilon 10.
FLAWED = "laplace-scale-epsilon"


@pytest.fixture(scope="session")
def laplace_report() -> dict:
    from dpaudit.reports import build_report

    return build_report("laplace", env=FIXED_ENVIRONMENT, **SMALL)


@pytest.fixture(scope="session")
def flawed_report() -> dict:
    from dpaudit.reports import build_report

    return build_report(FLAWED, env=FIXED_ENVIRONMENT, **SMALL)


@pytest.fixture(scope="session")
def schema_validator():
    jsonschema = pytest.importorskip("jsonschema")
    from dpaudit.reports import load_schema

    schema = load_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)
