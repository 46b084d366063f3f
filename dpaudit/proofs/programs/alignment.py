"""Randomness alignment: prove a program's pure epsilon-DP claim by shifting its noise.

Preconditions
    A program of :mod:`dpaudit.mechanisms.programs` (Laplace or exponential draws, comparisons of
    q_i + noise, outputs), neighbours with |q_i - q'_i| <= Delta for every i (the "ALL" relation,
    ``QueryDistance(Delta, "linf")``).

Claim
    If an alignment -- for each draw z a shift eta_z = a Delta + b (q'_z - q_z) that depends only on the
    path and the queries -- (i) keeps every comparison of the path true and every released value equal
    on q', and (ii) costs sum_z count_z max |eta_z| / b_z <= epsilon, then for every set S of outputs
    P[M(q) in S] <= e^epsilon P[M(q') in S].

Proof (LightDP, Zhang & Kifer POPL 2017; ShadowDP, Wang et al. PLDI 2019; Dwork & Roth 2014 Thm 3.23
and Claim 3.9 argue the same way by hand)
    Split the noise space by path (which branch each loop iteration takes).  On one path the alignment
    is a translation nu -> nu + eta (eta depends on q, q' and the path, not on the noise), so it is
    injective with Jacobian 1; by (i) it maps the noise of a path on q to noise of the same path on q'
    with the same output, so the images of different paths are disjoint and the output stays in S.
    A Laplace density satisfies f(z + eta) >= e^(-|eta|/b) f(z); an exponential one f(z + eta) =
    e^(-eta/b) f(z) when eta >= 0 (a negative shift could leave the support and is not allowed).  The
    draws are independent, so the density of the aligned noise is at least e^(-cost) times the
    original, and summing over paths gives the claim.  (ii) bounds the number of draws that take each
    branch by its ``count`` (the cutoff c for tops, k for bottoms; bottoms and tops together at most
    k, filled dearest first), which is sound: a path uses at most that many.  For monotone neighbours
    (every q'_i - q_i of one sign, declared by the program) each direction gets its own alignment.

Checking (CheckDP's idea, Wang et al. CCS 2020: a template with holes, filled from a finite set)
    The shift of a draw of query q_z is eta = a Delta + b d_z, d_z = q'_z - q_z = Delta w_z with
    a in {-2..2}, b in {-1, 0, 1}.  For a comparison L(q, noise) ~ 0 the aligned value is
    L + delta with delta = L(q + d, noise + eta) - L(q, noise), which is linear in w and free of the
    noise: the comparison is preserved for all w in [-1, 1]^m iff it is at the 2^m vertices, and a
    released value iff delta is identically 0.  Every candidate is tried; the cheapest feasible one is
    re-checked exactly with sympy and stated in the certificate, so a reader can check it by hand.
    No feasible alignment within the cost is not a refutation: the caller then searches for a
    counterexample (:mod:`.counterexamples`).
"""

from __future__ import annotations

import dataclasses
import itertools
from dataclasses import dataclass
from typing import Any

import sympy

from ...mechanisms.density import symbol
from ...mechanisms.programs import Noise, NoisyMaxProgram, ThresholdProgram
from ..budget import checkpoint
from ..result import Step

__all__ = ["Alignment", "Atom", "DrawSite", "PathTemplate", "find_alignment", "path_template"]

SHIFT_CONSTANTS = (0, 1, -1, 2, -2)
SHIFT_QUERY_COEFFICIENTS = (0, -1, 1)


@dataclass(frozen=True)
class DrawSite:
    """A draw of the program: its noise, the symbol it has in the atoms, the query it belongs to (if
    any), and how many such draws one run makes at most.  Draws with the same ``shares`` label come
    from one loop: together they are made at most ``PathTemplate.loop_total`` times (k queries are
    answered bottom or top, not both)."""

    name: str
    noise: Noise
    symbol: Any
    query: Any
    count: int
    shares: str = ""


@dataclass(frozen=True)
class Atom:
    """A path condition ``expr relation 0`` (``<``, ``>=``, ``>``) or a released value (``=``: expr is output)."""

    relation: str
    expr: Any
    where: str


@dataclass(frozen=True)
class PathTemplate:
    draws: tuple[DrawSite, ...]
    atoms: tuple[Atom, ...]
    queries: tuple[Any, ...]
    loop_total: int = 0


@dataclass(frozen=True)
class Alignment:
    """A checked alignment: the shift of each draw, the cost, and the derivation steps."""

    shifts: dict[str, Any]
    cost: Any
    steps: tuple[Step, ...]
    independent_of_k: bool
    at_instance: bool


def path_template(program: Any) -> PathTemplate:
    """The comparisons and released values of one path, written for a representative iteration of each branch.

    Sparse vector: a bottom iteration (q_b, nu_b) has q_b + nu_b - T - rho < 0, a top one (q_t, nu_t)
    has q_t + nu_t - T - rho >= 0 (and releases q_t + nu_t for ``release="value"``); rho is shared.
    Noisy max: the winner (q_w, Z_w) beats each loser (q_l, Z_l): q_w + Z_w - q_l - Z_l > 0.
    """
    if isinstance(program, ThresholdProgram):
        return _threshold_template(program)
    if isinstance(program, NoisyMaxProgram):
        return _noisy_max_template(program)
    raise TypeError(f"no path template for {type(program).__name__}")


def _threshold_template(p: ThresholdProgram) -> PathTemplate:
    k = p.queries
    tops = k if p.cutoff is None else min(p.cutoff, k)
    q_b, q_t = symbol("q_b"), symbol("q_t")
    rho = sympy.Symbol("rho", real=True)
    nu_b, nu_t = sympy.Symbol("nu_b", real=True), sympy.Symbol("nu_t", real=True)
    draws = []
    threshold = p.threshold
    if p.threshold_noise is not None:
        draws.append(DrawSite("rho", p.threshold_noise, rho, None, p.threshold_draws))
        threshold = threshold + rho
    noisy_b, noisy_t = q_b, q_t
    if p.query_noise is not None:
        draws += [
            DrawSite("nu_bottom", p.query_noise, nu_b, q_b, k, shares="loop"),
            DrawSite("nu_top", p.query_noise, nu_t, q_t, tops, shares="loop"),
        ]
        noisy_b, noisy_t = q_b + nu_b, q_t + nu_t
    atoms = [Atom("<", noisy_b - threshold, "bottom answer"), Atom(">=", noisy_t - threshold, "top answer")]
    if p.release == "value":
        atoms.append(Atom("=", noisy_t, "released value of a top"))
    return PathTemplate(tuple(draws), tuple(atoms), (q_b, q_t), loop_total=k)


def _noisy_max_template(p: NoisyMaxProgram) -> PathTemplate:
    q_w, q_l = symbol("q_w"), symbol("q_l")
    z_w, z_l = sympy.Symbol("Z_w", real=True), sympy.Symbol("Z_l", real=True)
    draws = (DrawSite("Z_winner", p.noise, z_w, q_w, 1), DrawSite("Z_loser", p.noise, z_l, q_l, p.queries - 1))
    atoms = [Atom(">", q_w + z_w - q_l - z_l, "the winner beats a loser")]
    if p.release == "value":
        atoms.append(Atom("=", q_w + z_w, "released maximum"))
    return PathTemplate(draws, tuple(atoms), (q_w, q_l))


def _shift(draw: DrawSite, a: int, b: int, sens: Any, w: dict[Any, Any]) -> Any:
    return a * sens + (b * sens * w[draw.query] if draw.query is not None else 0)


def _delta(atom: Atom, template: PathTemplate, choice: dict[str, tuple[int, int]], sens: Any, w: dict) -> Any:
    """L(q + Delta w, noise + eta) - L(q, noise), expanded."""
    moved = {q: q + sens * w[q] for q in template.queries}
    moved.update({d.symbol: d.symbol + _shift(d, *choice[d.name], sens, w) for d in template.draws})
    return sympy.expand(atom.expr.xreplace(moved) - atom.expr)


FULL_BOX = (-1, 1)
MONOTONE_BOXES = ((0, 1), (-1, 0))


def _vertices(template: PathTemplate, w: dict, box: tuple[int, int]) -> list[dict]:
    """The corners of the box of w = d / Delta: [-1, 1]^m, or [0, 1]^m / [-1, 0]^m for monotone neighbours."""
    return [dict(zip((w[q] for q in template.queries), corner)) for corner in itertools.product(box, repeat=len(template.queries))]


def _holds(relation: str, value: Any) -> bool:
    if relation == "<":
        return bool(value <= 0)
    return bool(value >= 0)


def _feasible(template: PathTemplate, deltas: list[Any], vertices: list[dict]) -> bool:
    for atom, delta in zip(template.atoms, deltas):
        if atom.relation == "=":
            if any(delta.xreplace(v) != 0 for v in vertices):
                return False
            continue
        if not all(_holds(atom.relation, delta.xreplace(v)) for v in vertices):
            return False
    return True


def _size(draw: DrawSite, a: int, b: int, box: tuple[int, int]) -> int:
    """max |eta| / Delta = max over w in the box of |a + b w| (the shift is linear in w)."""
    return max(abs(a + b * w) for w in box) if draw.query is not None else abs(a)


def _one_sided_ok(template: PathTemplate, choice: dict[str, tuple[int, int]], box: tuple[int, int]) -> bool:
    """Exponential draws may only move up: a + b w >= 0 on the box."""
    return all(
        d.noise.distribution != "exponential" or min(choice[d.name][0] + choice[d.name][1] * w for w in box) >= 0
        for d in template.draws
    )


def _candidates(template: PathTemplate):
    options = [
        [(a, b) for a in SHIFT_CONSTANTS for b in (SHIFT_QUERY_COEFFICIENTS if d.query is not None else (0,))]
        for d in template.draws
    ]
    for combo in itertools.product(*options):
        yield {d.name: c for d, c in zip(template.draws, combo)}


def _synthesise(template: PathTemplate, fast: list, units: dict, box: tuple[int, int], width: int) -> tuple | None:
    """(cost / epsilon, size, choice) of the cheapest candidate that keeps every path on the box, or None."""
    corners = list(itertools.product(box, repeat=width))
    best = None
    for choice in _candidates(template):
        checkpoint("alignment synthesis")
        if not _one_sided_ok(template, choice, box):
            continue
        flat = [x for d in template.draws for x in choice[d.name]]
        ok = True
        for atom, f in zip(template.atoms, fast):
            values = [f(*flat, *corner) for corner in corners]
            if atom.relation == "=":
                ok = all(v == 0 for v in values)  # a linear function zero at every corner is zero
            elif atom.relation == "<":
                ok = all(v <= 0 for v in values)
            else:
                ok = all(v >= 0 for v in values)
            if not ok:
                break
        if not ok:
            continue
        sizes = {d.name: _size(d, *choice[d.name], box) for d in template.draws}
        cost = _total_cost(template, {name: sizes[name] * units[name] for name in sizes})[0]
        size = sum(abs(a) + abs(b) for a, b in choice.values())
        if best is None or (cost, size) < (best[0], best[1]):
            best = (cost, size, choice)
    return best


def find_alignment(program: Any, epsilon: Any, instance: dict | None = None) -> tuple[Alignment | None, str]:
    """The cheapest alignment among the template's candidates, if its cost is at most ``epsilon``.

    For a program declared ``monotone`` (neighbours move every query the same way) the two directions
    are aligned separately and the dearer one is the cost.  ``instance`` (parameter -> value) is
    substituted when the cost is not a constant multiple of epsilon (then the result holds at the
    instance only).  Returns (alignment or None, reason).
    """
    template = path_template(program)
    sens = program.sensitivity
    w = {q: sympy.Symbol(f"w_{q.name}", real=True) for q in template.queries}
    # cost of one unit of |shift| (in Delta) for one draw, relative to epsilon
    units = {d.name: sympy.simplify(sens / (d.noise.scale * epsilon)) for d in template.draws}
    scope_instance = any(not u.is_number for u in units.values())
    if scope_instance:
        units = {name: sympy.nsimplify(u.subs(instance or {}), rational=True) for name, u in units.items()}
        if any(not u.is_number for u in units.values()):
            return None, "the alignment cost is not a number at the instance"
    holes = {d.name: (sympy.Symbol(f"a_{d.name}", integer=True), sympy.Symbol(f"b_{d.name}", integer=True)) for d in template.draws}
    symbolic = [_delta(atom, template, holes, sens, w) for atom in template.atoms]
    for delta in symbolic:
        stray = delta.free_symbols - set(w.values()) - {sens} - {h for pair in holes.values() for h in pair}
        if stray:
            return None, f"an alignment shift would have to depend on {sorted(map(str, stray))} (not a translation)"
    scaled = [sympy.expand(delta / sens) for delta in symbolic]
    fast = [sympy.lambdify([*(h for pair in holes.values() for h in pair), *w.values()], s, modules=[{}]) for s in scaled]
    boxes = MONOTONE_BOXES if program.monotone else (FULL_BOX,)
    found = [_synthesise(template, fast, units, box, len(w)) for box in boxes]
    if any(best is None for best in found):
        return None, "no alignment in the template keeps every path (shifts a Delta + b d, |a| <= 2, |b| <= 1)"
    cost_ratio = max(best[0] for best in found)
    if cost_ratio > 1:
        return None, f"the cheapest alignment that keeps every path costs {sympy.sstr(cost_ratio)} epsilon > epsilon (" + "; ".join(
            _describe(template, best[2], sens, w) for best in found) + ")"
    cases = [_certify(program, template, best[2], sens, w, epsilon, units, box) for best, box in zip(found, boxes)]
    cost = max(cases, key=lambda case: case[4])[2]
    if len(cases) == 1:
        steps, shifts = cases[0][0], cases[0][1]
    else:
        steps, shifts = [], {}
        for case, label in zip(cases, ("q' >= q", "q' <= q")):
            steps += [dataclasses.replace(step, name=f"{label}: {step.name}") for step in case[0]]
            shifts.update({f"{name} ({label})": eta for name, eta in case[1].items()})
    longer = path_template(dataclasses.replace(program, queries=program.queries + 1))
    independent = all(
        _total_cost(longer, sizes)[0] == _total_cost(template, sizes)[0] for sizes in (case[3] for case in cases)
    )
    return Alignment(shifts, cost, tuple(steps), independent, scope_instance), ""


def _total_cost(template: PathTemplate, per_draw: dict[str, Any]) -> tuple[Any, dict[str, int]]:
    """max over the draws a run can make of the summed cost, and how many of each draw attain it.

    Independent draws count ``count`` times; draws that share a loop are filled greedily, dearest
    first, up to their own count and the loop's total (optimal for unit-weight allocations).
    """
    counts = {d.name: d.count for d in template.draws if not d.shares}
    left = template.loop_total
    for d in sorted((d for d in template.draws if d.shares), key=lambda d: per_draw[d.name], reverse=True):
        counts[d.name] = min(d.count, left)
        left -= counts[d.name]
    return sum((counts[d.name] * per_draw[d.name] for d in template.draws), sympy.Integer(0)), counts


def _describe(template: PathTemplate, choice: dict, sens: Any, w: dict) -> str:
    return ", ".join(f"eta_{d.name} = {sympy.sstr(_display_shift(d, choice, sens, w))}" for d in template.draws)


def _display_shift(draw: DrawSite, choice: dict, sens: Any, w: dict) -> Any:
    a, b = choice[draw.name]
    change = _change_symbol(draw.query) if draw.query is not None else 0
    return a * sens + b * change


def _change_symbol(query: Any) -> Any:
    """d_b for q_b: the change q'_b - q_b of that query."""
    return sympy.Symbol(f"d_{query.name[2:]}", real=True)


def _certify(program, template, choice, sens, w, epsilon, units, box) -> tuple[list[Step], dict, Any, dict]:
    """Re-check the chosen alignment exactly on the box and write it down step by step.

    Returns (steps, shifts, cost expression, per-draw cost / epsilon, total cost / epsilon)."""
    deltas = [_delta(atom, template, choice, sens, w) for atom in template.atoms]
    vertices = _vertices(template, w, box)
    if not _feasible(template, deltas, vertices):  # the fast check and the exact one must agree
        raise AssertionError("alignment check disagreement")
    steps: list[Step] = []
    shifts = {}
    interval = {FULL_BOX: "[-Delta, Delta]", (0, 1): "[0, Delta]", (-1, 0): "[-Delta, 0]"}[box]
    for d in template.draws:
        eta = _display_shift(d, choice, sens, w)
        shifts[d.name] = eta
        steps.append(Step(
            f"align {d.name}",
            sympy.Eq(sympy.Symbol(f"eta_{d.name}"), eta),
            f"{d.name} ~ {d.noise} (at most {d.count} per run) is drawn as {d.name} + eta_{d.name} in the run on q'"
            + (f"; {_change_symbol(d.query)} = q'_{d.query.name[2:]} - q_{d.query.name[2:]} in {interval}" if d.query is not None else ""),
        ))
    readable = {w[q]: _change_symbol(q) / sens for q in template.queries}
    for atom, delta in zip(template.atoms, deltas):
        shown = sympy.expand(delta.xreplace(readable))
        if atom.relation == "=":
            steps.append(Step(atom.where, sympy.Eq(shown, 0, evaluate=False), "the aligned run releases the same value (the change is identically 0)"))
        else:
            rel = sympy.Le(shown, 0, evaluate=False) if atom.relation == "<" else sympy.Ge(shown, 0, evaluate=False)
            word = "below" if atom.relation == "<" else "at or above"
            steps.append(Step(
                atom.where,
                rel,
                f"{sympy.sstr(atom.expr)} {atom.relation} 0 changes by this amount in the aligned run, so it stays {word} 0 "
                f"for every d in {interval} (linear in d: checked at the {len(vertices)} corners)",
            ))
    sizes = {d.name: _size(d, *choice[d.name], box) for d in template.draws}
    per_draw = {name: sizes[name] * units[name] for name in sizes}
    total, counts = _total_cost(template, per_draw)
    cost = sympy.simplify(sympy.Add(*(counts[d.name] * sizes[d.name] * sens / d.noise.scale for d in template.draws)))
    shared = [d.name for d in template.draws if d.shares]
    steps.append(Step(
        "alignment cost",
        sympy.Eq(sympy.Symbol("cost"), cost),
        "sum over draws of (draws per run) * max |eta| / scale, with "
        + ", ".join(f"{counts[d.name]} x {d.name}" for d in template.draws)
        + (f" ({' and '.join(shared)} together at most {template.loop_total}: the dearest first)" if shared else "")
        + ": a Laplace density gives f(z + eta) >= e^(-|eta|/b) f(z), an exponential one f(z + eta) = e^(-eta/b) f(z) "
        "for eta >= 0",
    ))
    steps.append(Step(
        "final inequality",
        sympy.Le(cost, epsilon, evaluate=False),
        f"cost = {sympy.sstr(total)} epsilon <= epsilon: the shift is a translation on each path that keeps the path and "
        "the output, so P[M(q) in S] <= e^cost P[M(q') in S] for every set S (LightDP, Zhang & Kifer 2017)",
    ))
    return steps, shifts, cost, per_draw, total
