"""The catalogue as a whole: every entry builds, is documented, agrees with the registry and samples."""

from __future__ import annotations

import json
import math
import pkgutil
import re
import subprocess
import sys

import numpy as np
import pytest

import dpaudit
from dpaudit import UnknownMechanism
from dpaudit.claims import CURVE_KINDS
import dpaudit.mechanisms.catalogue as catalogue_package
from dpaudit.mechanisms import registry
from dpaudit.mechanisms.base import TRUE_EPSILON_DELTA
from dpaudit.mechanisms.registry import CATALOGUE, catalogue, get, names


def test_names_are_kebab_case_and_build_to_themselves():
    for name in names():
        assert name == name.lower() and " " not in name and "_" not in name, name
        assert get(name).name == name


def test_entries_come_from_the_catalogue_package_alone():
    # the registry imports that package and nothing else: every factory is defined in one of its modules, each
    # module but a private helper defines one, and the package's docstring lists every correct entry
    defined = {registry._FACTORIES[name].__module__ for name in names()}
    public = {info.name for info in pkgutil.walk_packages(catalogue_package.__path__, prefix=f"{CATALOGUE}.")
              if not info.ispkg and not info.name.rpartition(".")[2].startswith("_")}
    assert defined == public
    for mechanism in catalogue():
        if not mechanism.flawed:
            assert re.search(rf"(?<![\w-]){mechanism.name}(?![\w-])", catalogue_package.__doc__), mechanism.name


def test_unknown_name_suggests_close_ones():
    with pytest.raises(UnknownMechanism, match="did you mean laplace"):
        get("laplase")


@pytest.mark.parametrize("mechanism", catalogue(), ids=lambda m: m.name)
def test_every_entry_is_documented_and_samples(mechanism):
    assert mechanism.description and mechanism.source and mechanism.family != "custom"
    assert mechanism.domain is not None or mechanism.pairs, "an auditor needs a domain or pairs"
    if mechanism.flawed:
        assert mechanism.true_epsilon is not None, "a flawed entry states its true epsilon"
        assert mechanism.flaw
    data = mechanism.pairs[0][0] if mechanism.pairs else mechanism.domain
    out = mechanism.sample(data, 16, np.random.default_rng(0))
    assert out.shape[0] == 16
    again = mechanism.sample(data, 16, np.random.default_rng(0))
    assert np.array_equal(out, again), "sampling must be a function of the generator's state"
    for a, b in mechanism.pairs:
        mechanism.neighbours.check(a, b)
    json.dumps(mechanism.as_dict())


def test_flawed_entries_break_their_claim():
    # a curve claim (zCDP, RDP, ...) is compared at the delta its entry's true_epsilon is stated for
    for m in catalogue():
        if m.flawed:
            claimed = m.claim.to_approx(TRUE_EPSILON_DELTA).epsilon if m.claim.kind in CURVE_KINDS else m.claim.epsilon
            assert m.true_epsilon > claimed or math.isinf(m.true_epsilon), m.name


def test_public_face_lists_what_it_exports():
    for name in dpaudit.__all__:
        assert getattr(dpaudit, name) is not None


def test_import_is_light():
    code = (
        "import sys, dpaudit; dpaudit.catalogue(); "
        "heavy = [m for m in ('sympy', 'scipy', 'statsmodels', 'matplotlib', 'click', 'sklearn') if m in sys.modules]; "
        "print(heavy); sys.exit(1 if heavy else 0)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
