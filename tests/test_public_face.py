"""The front door: ``dpaudit.__version__`` and the two verdict enums, listed in ``__all__``."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version

import dpaudit
from dpaudit import ProofVerdict, Verdict
from dpaudit._version import __version__


def test_version_is_read_from_its_module() -> None:
    assert dpaudit.__version__ == __version__
    assert "__version__" in dpaudit.__all__
    assert version("dpaudit") == __version__  # pyproject reads it there too


def test_verdicts_are_the_audits_and_the_proofs() -> None:
    import dpaudit.auditor
    import dpaudit.proofs

    assert Verdict is dpaudit.auditor.Verdict and ProofVerdict is dpaudit.proofs.Verdict
    assert {"Verdict", "ProofVerdict"} <= set(dpaudit.__all__) <= set(dir(dpaudit))
    assert [v.value for v in Verdict] == ["pass", "violation", "underpowered"]
    assert [v.value for v in ProofVerdict] == ["proved", "refuted", "unknown"]
    assert dpaudit.audit("laplace", samples=2_000, seed=1, executor="in-process").verdict in Verdict


def test_version_loads_nothing_else() -> None:
    code = "import sys, dpaudit; dpaudit.__version__; print(sorted(m for m in sys.modules if m.startswith('dpaudit')))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "['dpaudit', 'dpaudit._version']"


def test_the_extension_api_has_a_namespace_of_its_own() -> None:
    import pytest

    import dpaudit.extend
    from dpaudit.auditor.events import family

    assert {"BaseFamily", "Scored", "SearchContext", "register_family"} <= set(dpaudit.extend.__all__)
    assert not {"BaseFamily", "register_family"} & set(dpaudit.__all__)
    with pytest.warns(DeprecationWarning, match="dpaudit.register_family is deprecated: import it from dpaudit.extend"):
        assert dpaudit.register_family is family.register_family


def test_the_configuration_of_an_audit_is_public() -> None:
    config = dpaudit.AuditConfig.build("laplace", samples=2_000, seed=1)
    assert config.samples == 2_000 and "AuditConfig" in dpaudit.__all__
