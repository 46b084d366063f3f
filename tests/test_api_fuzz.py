"""The Python API, fuzzed: a bad argument raises TypeError or a DPAuditError that names it, never an
error from deep inside numpy, scipy or sympy.

Each public function is called with valid baseline arguments and one argument replaced by a value
from ``BAD`` (none, empty, NaN, infinite, negative, huge, unicode, wrong types, arrays, unknown names).
The parameters come from the function's signature, so a parameter added later is fuzzed too.  A call
may succeed (several bad-looking values are valid somewhere: ``0`` as a seed, ``None`` as "default");
if it raises, the exception must be one of dpaudit's (or a TypeError) and its message must name the
argument.  Budgets are tiny: 200 samples per side, the finite mechanism ``rr``.
"""

from __future__ import annotations

import inspect
import math
import os
import traceback
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dpaudit
from dpaudit.errors import DPAuditError

BAD: list[Any] = [
    None, "", " ", "x", "💥", "lapláce", float("nan"), float("inf"), -float("inf"), -1, 0, -0.5, 1.5, 10**400,
    -(10**30), True, False, [], {}, (), (1,), ((1,), (2,)), object(), 1j, np.nan, np.float64("nan"), np.int64(-3),
    np.array([1.0, 2.0]), np.array([]), b"bytes", {"kind": "pure"}, [float("nan")], "/no/such/dir/x.json",
    dpaudit.PureDP(1.0), dpaudit.AddRemove(), print, type,
]

RR = {"target": "rr", "samples": 200, "seed": 1, "executor": "in-process", "progress": False}
FUNCTIONS = {
    "audit": (dpaudit.audit, RR),
    "report": (dpaudit.report, {"target": "rr", "samples": 200, "seed": 1, "executor": "in-process", "plots": False,
                                "checks": False}),
    "prove": (dpaudit.prove, {"mechanism": "rr"}),
    "get": (dpaudit.get, {"name": "rr"}),
    "PureDP": (dpaudit.PureDP, {"epsilon": 1.0}),
    "ApproxDP": (dpaudit.ApproxDP, {"epsilon": 1.0, "delta": 1e-6}),
    "ProbabilisticDP": (dpaudit.ProbabilisticDP, {"epsilon": 1.0, "delta": 1e-6}),
    "QueryDistance": (dpaudit.QueryDistance, {"sensitivity": 1.0, "norm": "l1"}),
    "from_callable": (dpaudit.Mechanism.from_callable,
                      {"function": lambda data, n, rng: rng.random(n), "claim": dpaudit.PureDP(1.0)}),
}
# Where a message may name an argument by what it is made of (a pair's two inputs).
ALIASES = {"pair": ("pair", "a=", "b=", "data=")}
# Libraries whose internals must never be where an error comes from.
DEEP = ("numpy", "scipy", "sympy", "statsmodels", "matplotlib", "mpmath")

# DPAUDIT_FUZZ_PROFILE=nightly: fresh examples, 20x as many (as for tests/cli/test_fuzz.py).
NIGHTLY = os.environ.get("DPAUDIT_FUZZ_PROFILE", "ci") == "nightly"
PROFILE = settings(max_examples=4000 if NIGHTLY else 200, derandomize=not NIGHTLY, database=None, deadline=None,
                   suppress_health_check=[HealthCheck.too_slow])


def _parameters(function: Any) -> list[str]:
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return [p.name for p in inspect.signature(function).parameters.values() if p.kind in kinds]


def _origin(exc: BaseException) -> str:
    """The file the exception was raised in."""
    frames = traceback.extract_tb(exc.__traceback__)
    return frames[-1].filename if frames else ""


def _call(name: str, parameter: str, value: Any) -> None:
    function, baseline = FUNCTIONS[name]
    arguments = {**baseline, parameter: value}
    try:
        function(**arguments)
    except (DPAuditError, TypeError) as exc:
        message = str(exc)
        origin = _origin(exc)
        assert isinstance(exc, DPAuditError) or not any(f"/{lib}/" in origin for lib in DEEP), (
            f"{name}({parameter}={value!r}): {type(exc).__name__} from {origin}: {message}")
        assert any(word in message for word in ALIASES.get(parameter, (parameter,))), (
            f"{name}({parameter}={value!r}): the message does not name {parameter!r}: {message}")
    except Exception as exc:  # noqa: BLE001 - what the test is about
        pytest.fail(f"{name}({parameter}={value!r}) raised {type(exc).__name__} from {_origin(exc)}: {exc}")


CHEAP = [n for n in FUNCTIONS if n not in ("audit", "report")]


@pytest.fixture(scope="module", autouse=True)
def in_a_scratch_folder(tmp_path_factory):
    """Relative paths among the values (a checkpoint named 'x') land in a scratch folder, not the checkout."""
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path_factory.mktemp("api-fuzz"))
        yield


@PROFILE
@given(data=st.data())
def test_constructors_and_lookups_refuse_bad_arguments_by_name(data):
    name = data.draw(st.sampled_from(CHEAP))
    parameter = data.draw(st.sampled_from(_parameters(FUNCTIONS[name][0])))
    _call(name, parameter, data.draw(st.sampled_from(BAD)))


@settings(PROFILE, max_examples=3000 if NIGHTLY else 150)
@given(data=st.data())
def test_audit_and_report_refuse_bad_arguments_by_name(data):
    name = data.draw(st.sampled_from(["audit", "audit", "audit", "report"]))
    parameter = data.draw(st.sampled_from(_parameters(FUNCTIONS[name][0])))
    _call(name, parameter, data.draw(st.sampled_from(BAD)))


@pytest.mark.parametrize("value", [10**400, -(10**400)])
def test_a_huge_integer_is_refused_by_name_not_by_an_overflow(value):
    with pytest.raises(dpaudit.InvalidArgument, match="epsilon="):
        dpaudit.PureDP(value)
    assert not math.isfinite(float("inf"))
