"""The pytest plugin's ``dp`` fixture on library objects: the call a CI user writes.

Each audit runs at the plugin's default confidence 1 - 1e-6, so a mechanism that keeps its claim
fails here with probability at most 1e-6.  At 2 x 10^4 samples per side the reach (a deterministic
function of N and the confidence) is 0.93 of a pure claim, above the 0.9 that makes a pass a pass, so
no UnderpoweredWarning (an error under the suite's filterwarnings) is raised.
"""

import pytest

pytest.importorskip("opendp")
pytest.importorskip("diffprivlib")

import opendp.prelude as dp_lib  # noqa: E402
from diffprivlib.mechanisms import Geometric  # noqa: E402

pytestmark = [pytest.mark.thirdparty, pytest.mark.statistical]

dp_lib.enable_features("contrib")


def test_fixture_audits_a_diffprivlib_object(dp):
    result = dp.assert_private(Geometric(epsilon=1.0), samples=20_000)
    assert result.verdict.value == "pass" and result.reproducible


def test_fixture_audits_an_opendp_measurement_at_d_in(dp):
    measurement = dp_lib.m.make_laplace(dp_lib.atom_domain(T=int), dp_lib.absolute_distance(T=int), scale=1.0)
    result = dp.assert_private(measurement, d_in=1, samples=20_000)
    assert result.verdict.value == "pass" and not result.reproducible
    assert str(result.claim) == "1-DP"
