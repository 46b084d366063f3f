"""Claims: frozen, self-validating, JSON round-trippable (unit + table-driven invalid arguments)."""

from __future__ import annotations

import ast
import dataclasses
import json
import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import dpaudit
from dpaudit import (
    ApproxDP,
    GaussianDP,
    InvalidArgument,
    PrivacyCurve,
    ProbabilisticDP,
    PureDP,
    RenyiDP,
    ZeroConcentratedDP,
)
from dpaudit.claims import CLAIM_KINDS, CURVE_KINDS, claim_class, claim_from_dict
from dpaudit.conversions import gdp_delta, zcdp_epsilon


def test_pure_dp_has_zero_delta_and_is_frozen():
    claim = PureDP(1)
    assert claim.epsilon == 1.0 and isinstance(claim.epsilon, float) and claim.delta == 0.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        claim.epsilon = 2.0  # type: ignore[misc]


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: PureDP(-0.1), "epsilon=-0.1 must be a finite number >= 0"),
        (lambda: PureDP(math.inf), "epsilon=inf must be a finite number >= 0"),
        (lambda: PureDP(math.nan), "epsilon=nan must be a finite number >= 0"),
        (lambda: PureDP("1"), "epsilon='1' must be a real number"),
        (lambda: PureDP(True), "epsilon=True must be a real number"),
        (lambda: ApproxDP(1.0, 1.0), r"delta=1.0 must lie in \[0, 1\)"),
        (lambda: ApproxDP(1.0, -1e-9), r"delta=-1e-09 must lie in \[0, 1\)"),
        (lambda: ProbabilisticDP(-1.0, 0.1), "epsilon=-1.0 must be a finite number >= 0"),
        (lambda: ProbabilisticDP(1.0, 2), r"delta=2 must lie in \[0, 1\)"),
    ],
)
def test_invalid_claims_name_the_argument_and_value(make, message):
    with pytest.raises(InvalidArgument, match=message):
        make()


def test_invalid_claim_is_a_value_error():
    with pytest.raises(ValueError):
        PureDP(-1)


@given(
    kind=st.sampled_from([PureDP, ApproxDP, ProbabilisticDP]),
    epsilon=st.floats(0, 1e6),
    delta=st.floats(0, 1, exclude_max=True),
)
def test_claims_round_trip_through_dicts(kind, epsilon, delta):
    claim = kind(epsilon) if kind is PureDP else kind(epsilon, delta)
    assert claim_from_dict(claim.as_dict()) == claim


def test_claim_from_dict_rejects_unknown_kind():
    with pytest.raises(InvalidArgument, match="kind"):
        claim_from_dict({"kind": "f-dp", "epsilon": 1})


# --- the curve claims: zCDP, RDP, GDP, tabulated privacy curves ---------------------------------

orders = st.lists(st.floats(1.001, 1e4), min_size=1, max_size=6, unique=True)
increasing = st.lists(st.floats(0, 50), min_size=1, max_size=8, unique=True).map(sorted)


@st.composite
def curve_claims(draw):
    kind = draw(st.sampled_from(CURVE_KINDS))
    if kind == "zcdp":
        return ZeroConcentratedDP(draw(st.floats(0, 1e6)))
    if kind == "gdp":
        return GaussianDP(draw(st.floats(0, 1e3)))
    if kind == "renyi":
        alpha = draw(orders)
        return RenyiDP(alpha, [draw(st.floats(0, 1e6)) for _ in alpha])
    epsilon = draw(increasing)
    delta = sorted((draw(st.floats(0, 1)) for _ in epsilon), reverse=True)
    return PrivacyCurve(epsilon, delta)


@given(claim=curve_claims())
def test_curve_claims_round_trip_through_json(claim):
    assert claim_from_dict(json.loads(json.dumps(claim.as_dict()))) == claim
    assert claim.kind in CLAIM_KINDS and str(claim)
    hash(claim)


def test_curve_claims_are_frozen_and_normalised():
    renyi = RenyiDP((8, 2), [4, 1])
    assert renyi.alpha == (2.0, 8.0) and renyi.epsilon == (1.0, 4.0) and RenyiDP(2, 1).alpha == (2.0,)
    assert str(RenyiDP(2, 1)) == "(2, 1)-RDP" and str(ZeroConcentratedDP(0.5)) == "0.5-zCDP" and str(GaussianDP(1)) == "1-GDP"
    for claim, field in [(ZeroConcentratedDP(0.5), "rho"), (GaussianDP(1.0), "mu"), (renyi, "alpha")]:
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(claim, field, 1.0)


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: ZeroConcentratedDP(-0.5), "rho=-0.5 must be a finite number >= 0"),
        (lambda: ZeroConcentratedDP(math.inf), "rho=inf must be a finite number >= 0"),
        (lambda: GaussianDP("1"), "mu='1' must be a real number"),
        (lambda: RenyiDP(1.0, 0.5), "alpha=1.0 must be a finite Rényi order > 1"),
        (lambda: RenyiDP(math.inf, 0.5), "alpha=inf must be a finite Rényi order > 1"),
        (lambda: RenyiDP((2, 3), 0.5), r"epsilon=0.5 must give one value per order in alpha=\(2, 3\) \(2\)"),
        (lambda: RenyiDP((2, 2), (1, 1)), r"alpha=\(2, 2\) must not repeat an order"),
        (lambda: RenyiDP((), ()), r"alpha=\(\) must hold at least one Rényi order"),
        (lambda: RenyiDP(2, -1), "epsilon=-1 must be a finite number >= 0"),
        (lambda: PrivacyCurve((1, 0), (0.1, 0.2)), r"epsilon=\(1, 0\) must be strictly increasing"),
        (lambda: PrivacyCurve((0, 1), (0.1, 0.2)), "must not increase with epsilon: delta=0.2 at epsilon=1.0"),
        (lambda: PrivacyCurve((0, 1), (0.1,)), "must give one value per epsilon"),
        (lambda: PrivacyCurve((0,), (1.5,)), r"delta=1.5 must lie in \[0, 1\]"),
        (lambda: PrivacyCurve(1.0, 0.1), "epsilon=1.0 must be a non-empty sequence"),
        (lambda: claim_from_dict({"kind": "zcdp"}), "rho=None must be a real number"),
    ],
)
def test_invalid_curve_claims_name_the_argument_and_value(make, message):
    with pytest.raises(InvalidArgument, match=message):
        make()


def test_zcdp_reads_its_curve_and_its_renyi_orders():
    claim = ZeroConcentratedDP(0.5)
    point = claim.to_approx(1e-5)
    assert point == ApproxDP(zcdp_epsilon(0.5, 1e-5), 1e-5) and point.epsilon == pytest.approx(4.7284, abs=1e-4)
    assert claim.renyi((2, 10)) == RenyiDP((2, 10), (1.0, 5.0))
    assert claim.delta_at_epsilon(point.epsilon) == pytest.approx(1e-5, rel=1e-6)


def test_gdp_reads_its_exact_curve():
    curve = GaussianDP(1.0).curve([0.0, 1.0, 2.0])
    assert curve.epsilon == (0.0, 1.0, 2.0) and curve.delta == tuple(gdp_delta(1.0, e) for e in (0.0, 1.0, 2.0))
    # Dong, Roth & Su (2022, Cor. 2.13) at mu = 1, epsilon = 0: delta = Phi(1/2) - Phi(-1/2) = 0.382924922548026.
    assert curve.delta[0] == pytest.approx(0.382924922548026, rel=1e-12)


def test_privacy_curve_is_read_as_the_step_its_points_imply():
    curve = PrivacyCurve((0.5, 1.0, 2.0), (0.3, 0.1, 0.01))
    assert curve.delta_at_epsilon(0.25) == 1.0 and curve.delta_at_epsilon(1.5) == 0.1 and curve.delta_at_epsilon(9) == 0.01
    assert curve.epsilon_at_delta(0.1) == 1.0 and curve.epsilon_at_delta(0.05) == 2.0 and curve.epsilon_at_delta(1e-3) == math.inf
    assert curve.to_approx(0.1) == ApproxDP(1.0, 0.1)
    with pytest.raises(InvalidArgument, match="implies no finite epsilon at delta=0.001"):
        curve.to_approx(1e-3)


@given(claim=curve_claims(), low=st.floats(0, 30), gap=st.floats(1e-3, 10))
def test_every_curve_claim_is_non_increasing_in_epsilon(claim, low, gap):
    assert claim.delta_at_epsilon(low + gap) <= claim.delta_at_epsilon(low)


@given(rho=st.floats(1e-3, 20), delta=st.floats(1e-10, 0.3))
def test_zcdp_of_the_gaussian_is_looser_than_its_exact_gdp(rho, delta):
    # The Gaussian mechanism with Delta/sigma = sqrt(2 rho) is exactly sqrt(2 rho)-GDP (Dong, Roth & Su
    # 2022, Thm. 2.7) and rho-zCDP (Bun & Steinke 2016, Prop. 1.6): the zCDP conversion bounds the exact curve.
    exact = GaussianDP(math.sqrt(2 * rho)).to_approx(delta).epsilon
    assert exact <= ZeroConcentratedDP(rho).to_approx(delta).epsilon + 1e-9


# --- what differs between the kinds: behaviours of the classes, not comparisons of ``kind`` -----------

POINTS = [PureDP(1.0), ApproxDP(1.0, 1e-5), ProbabilisticDP(1.0, 1e-5)]
CURVES = [ZeroConcentratedDP(0.5), RenyiDP((2, 4), (1.0, 2.0)), GaussianDP(1.0), PrivacyCurve((1.0, 2.0), (0.1, 0.0))]


@pytest.mark.parametrize(
    "claim, behaviour",
    [
        # is_curve, bounds_loss_per_output, closed_under_post_processing, bounds_renyi_divergence,
        # bounds_trade_off_function
        (POINTS[0], (False, False, True, False, False)),
        (POINTS[1], (False, False, True, False, False)),
        (POINTS[2], (False, True, False, False, False)),  # Meiser 2018, Def. 2 and Sect. 3
        (CURVES[0], (True, False, True, True, False)),
        (CURVES[1], (True, False, True, True, False)),
        (CURVES[2], (True, False, True, False, True)),
        (CURVES[3], (True, False, True, False, False)),
    ],
    ids=str,
)
def test_each_claim_states_what_its_definition_bounds(claim, behaviour):
    assert (claim.is_curve, claim.bounds_loss_per_output, claim.closed_under_post_processing,
            claim.bounds_renyi_divergence, claim.bounds_trade_off_function) == behaviour
    assert claim_class(claim.kind) is type(claim) and claim.definition()


def test_a_point_claim_states_delta_unless_pure_and_keeps_its_definition():
    assert [c.states_delta for c in POINTS] == [False, True, True] and ApproxDP(1.0, 0.0).states_delta
    assert PureDP(1.0).with_parameters(2.0, 0.0) == PureDP(2.0)
    assert PureDP(1.0).with_parameters(2.0, 0.1) == ApproxDP(2.0, 0.1)
    assert ProbabilisticDP(1.0, 0.1).with_parameters(2.0, 0.0) == ProbabilisticDP(2.0, 0.0)


@pytest.mark.parametrize(
    "stronger, weaker, holds",
    [
        (PureDP(1.0), ApproxDP(1.0, 0.0), True),
        (ApproxDP(1.0, 1e-5), PureDP(1.0), False),
        (ProbabilisticDP(1.0, 1e-5), ApproxDP(1.0, 1e-5), True),  # Meiser 2018
        (ApproxDP(1.0, 1e-5), ProbabilisticDP(1.0, 1e-5), False),
        (PureDP(1.0), ZeroConcentratedDP(0.5), False),
        (GaussianDP(1.0), ZeroConcentratedDP(0.5), True),  # mu-GDP implies (mu^2/2)-zCDP
        (GaussianDP(1.0), RenyiDP((2, 4), (1.0, 2.0)), True),
        (ZeroConcentratedDP(0.5), RenyiDP((2, 4), (1.0, 2.0)), True),
        (ZeroConcentratedDP(0.5), RenyiDP(3, 1.0), False),
        (RenyiDP((2, 4), (1.0, 2.0)), RenyiDP(2, 1.0), True),
        (RenyiDP((2, 4), (1.0, 2.0)), RenyiDP(3, 9.0), False),  # no claim at order 3
        (RenyiDP((2, 4), (1.0, 2.0)), ZeroConcentratedDP(9.0), False),
        (ZeroConcentratedDP(0.5), ApproxDP(zcdp_epsilon(0.5, 1e-5), 1e-5), True),
        (ZeroConcentratedDP(0.5), ApproxDP(1.0, 1e-5), False),
        (ZeroConcentratedDP(0.5), ApproxDP(100.0, 0.0), False),
        (GaussianDP(1.0), GaussianDP(1.0).curve((0.0, 1.0)), True),
        (GaussianDP(1.1), GaussianDP(1.0).curve((0.0, 1.0)), False),
        (PrivacyCurve((1.0, 2.0), (0.1, 0.0)), ApproxDP(2.0, 0.05), True),
        (PrivacyCurve((1.0, 2.0), (0.1, 0.0)), PureDP(2.0), False),
    ],
    ids=str,
)
def test_implication_between_claims(stronger, weaker, holds):
    assert stronger.implies(weaker) is holds


def test_curve_claims_compare_through_their_conversion_and_give_a_working_point():
    curve = PrivacyCurve((1.0, 2.0), (0.1, 0.001))
    assert curve.working_point(1e-5) == ApproxDP(2.0, 0.001) and curve.working_point(0.1) == ApproxDP(1.0, 0.1)
    with pytest.raises(InvalidArgument, match=r"delta=1.0 must lie in \[0, 1\)"):  # promises nothing anywhere
        PrivacyCurve((1.0,), (1.0,)).working_point(1e-5)
    assert ZeroConcentratedDP(0.5).working_point(1e-5) == ZeroConcentratedDP(0.5).to_approx(1e-5)
    gdp = GaussianDP(1.0)
    assert gdp.compares_through_conversion(ApproxDP(1.0, 1e-5)) and gdp.compares_through_conversion(curve)
    assert not gdp.compares_through_conversion(ApproxDP(1.0, 0.0)) and not gdp.compares_through_conversion(gdp)
    assert gdp.delta_excess(curve) == max(gdp_delta(1.0, e) - d for e, d in zip(curve.epsilon, curve.delta))
    assert [c.conversion_is_exact for c in CURVES] == [False, False, True, True]


def test_zcdp_and_rdp_bound_renyi_divergences_at_their_orders():
    assert ZeroConcentratedDP(0.5).renyi_orders is None and ZeroConcentratedDP(0.5).renyi_bound(3.0) == 1.5
    renyi = RenyiDP((2, 4), (1.0, 2.0))
    assert renyi.renyi_orders == (2.0, 4.0) and renyi.renyi_bound(4.0) == 2.0 and renyi.renyi_bound(3.0) is None


def test_claim_class_names_the_kinds():
    assert [claim_class(kind).kind for kind in CLAIM_KINDS] == list(CLAIM_KINDS)
    with pytest.raises(InvalidArgument, match="kind='f-dp' must be one of"):
        claim_class("f-dp")


# Where ``kind`` may still be compared with a claim kind outside claims.py, and why: none.
KIND_COMPARISONS_LEFT: set[tuple[str, str]] = set()


def _kind_access(node: ast.AST) -> bool:
    """``x.kind``, ``x["kind"]``, ``x.get("kind", ...)`` or ``getattr(x, "kind", ...)``."""
    if isinstance(node, ast.Attribute):
        return node.attr == "kind"
    if isinstance(node, ast.Subscript):
        return isinstance(node.slice, ast.Constant) and node.slice.value == "kind"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr":
        name = node.args[1] if len(node.args) > 1 else None
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
        name = node.args[0] if node.args else None
    else:
        return False
    return isinstance(name, ast.Constant) and name.value == "kind"


def _mentions_kind(node: ast.AST, derived: set[str]) -> bool:
    """Whether ``node`` reads a ``kind`` or a name assigned from one (``kinds = {c.kind for c in claims}``)."""
    return any(_kind_access(n) or (isinstance(n, ast.Name) and n.id in derived) for n in ast.walk(node))


def _claim_kind_literal(node: ast.AST) -> bool:
    """A claim kind ("pure", ..., "curve"), a tuple, list or set holding one, or CLAIM_KINDS / CURVE_KINDS."""
    if isinstance(node, ast.Constant):
        return node.value in CLAIM_KINDS
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_claim_kind_literal(e) for e in node.elts)
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None
    return name in ("CLAIM_KINDS", "CURVE_KINDS")


def _claim_kind_table(node: ast.AST) -> bool:
    """A dict display keyed by claim kinds (``{"zcdp": ..., "renyi": ...}``)."""
    return isinstance(node, ast.Dict) and any(k is not None and _claim_kind_literal(k) for k in node.keys)


def _kind_tables(node: ast.AST) -> set[str]:
    """The names assigned a dict keyed by claim kinds (``_CONVERSION = {"zcdp": ..., ...}``)."""
    return {t.id for n in ast.walk(node) if isinstance(n, ast.Assign) and _claim_kind_table(n.value)
            for t in n.targets if isinstance(t, ast.Name)}


def claim_kind_comparisons(source: str) -> set[str]:
    """Comparisons of a ``kind`` with a claim kind or another ``kind``, and lookups by ``kind`` in a dict keyed by
    claim kinds.  A ``kind`` compared with other words (an event feature's, a dtype's) is not one of them."""
    tree = ast.parse(source)
    tables = _kind_tables(tree)
    found = set()
    for scope in [tree, *(n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))]:
        derived = {x.id for n in ast.walk(scope) if isinstance(n, (ast.Assign, ast.AnnAssign)) and n.value is not None
                   and _mentions_kind(n.value, set())
                   for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) for x in ast.walk(t)
                   if isinstance(x, ast.Name)}
        for n in ast.walk(scope):
            if isinstance(n, ast.Compare):
                operands = [n.left, *n.comparators]
                if any(_mentions_kind(a, derived) and any(_claim_kind_literal(b) or _mentions_kind(b, derived)
                                                          for b in operands if b is not a) for a in operands):
                    found.add(ast.unparse(n))
            elif isinstance(n, ast.Subscript) and _mentions_kind(n.slice, derived) and (
                    (isinstance(n.value, ast.Name) and n.value.id in tables) or _claim_kind_table(n.value)):
                found.add(ast.unparse(n))
    return found


def test_the_scan_finds_comparisons_of_claim_kinds_and_only_those():
    source = '''
def f(claim, claims, feature, out, spec):
    kinds = {c.kind for c in claims}
    a = claim.kind == "pure" or claim.kind in CURVE_KINDS or getattr(claim, "kind", None) in ("zcdp", "renyi")
    b = spec.get("kind") == "gdp" or kinds == {"probabilistic"} or claim.kind == other.kind
    c = {"zcdp": 1, "renyi": 2}[claim.kind]
    d = feature.kind == "value" or out.dtype.kind in "biuf" or spec["type"] == "renyi" or claim.kind
    return a, b, c, d
'''
    assert claim_kind_comparisons(source) == {
        "claim.kind == 'pure'", "claim.kind in CURVE_KINDS", "getattr(claim, 'kind', None) in ('zcdp', 'renyi')",
        "spec.get('kind') == 'gdp'", "kinds == {'probabilistic'}", "claim.kind == other.kind",
        "{'zcdp': 1, 'renyi': 2}[claim.kind]"}


def test_no_claim_kind_is_compared_outside_the_claims_module():
    root = Path(dpaudit.__file__).parent
    found = {(path.relative_to(root).as_posix(), comparison)
             for path in sorted(root.rglob("*.py")) if path != root / "claims.py"
             for comparison in claim_kind_comparisons(path.read_text(encoding="utf-8"))}
    assert found == KIND_COMPARISONS_LEFT, (
        "compare claims by their behaviours (dpaudit/claims.py: is_curve, states_delta, bounds_loss_per_output, "
        f"implies, ...), not by kind: {sorted(found - KIND_COMPARISONS_LEFT)}; no longer found, so delete from "
        f"KIND_COMPARISONS_LEFT: {sorted(KIND_COMPARISONS_LEFT - found)}")
