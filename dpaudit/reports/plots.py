"""Figures of a report, drawn with matplotlib (Agg backend) and returned as SVG text.

matplotlib is imported inside :func:`_pyplot` only, so importing this module costs nothing.  Every
figure is drawn from a fresh re-sample of the mechanism at the audited pair -- the verification
stage keeps counts, not samples -- seeded from the audit's recorded seed through
``SeedSequence([seed, PLOT_STREAM])``, a stream disjoint from the audit's own; each caption says so.

* :func:`output_distributions` -- the two output distributions with the audited event shaded;
* :func:`privacy_loss` -- the empirical privacy-loss distribution L(y) = ln p_a(y) - ln p_b(y),
  y ~ M(a), against the declared density's (when a density exists);
* :func:`bound_curve` -- the epsilon lower bound against the sample size, with its confidence band (and
  the certified upper bound of the code, when the report has a certificate);
* :func:`delta_curve` -- for (epsilon, delta) claims, the empirical delta(epsilon) against the claimed;
* :func:`privacy_curve` -- when the audit measured the empirical privacy curve (``audit(..., curve=True)``,
  and every audit of a zCDP, RDP, GDP or privacy-curve claim): its simultaneous lower bound on
  delta(epsilon) at both levels beside the claimed curve (no re-sample: the audit's own bounds);
* :func:`privacy_over_steps` -- for a mechanism releasing one column per step (``Mechanism.stepwise``,
  DP-SGD's white-box updates): the claim after t steps, the re-sample's lower bound after t steps
  (:mod:`dpaudit.auditor.stepwise`) and the audit's verified end-to-end bound.

The bounds are the auditor's (:func:`dpaudit.auditor.union_bound`, ...); no statistic is computed here.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._codec import from_json
from ..auditor import (
    as_audited,
    delta_lower_bound,
    step_bounds,
    union_bound,
    working_point,
)
from ..claims import claim_from_dict
from ..extend import Feature, event_from_dict

__all__ = ["PLOT_SAMPLES", "PLOT_STREAM", "Resample", "all_plots", "resample"]

PLOT_SAMPLES = 20_000
PLOT_STREAM = 7
_ATOMS = 40
_BINS = 60
_COLOURS = ("#1f77b4", "#d62728", "#7f7f7f", "#2ca02c")


@dataclass(frozen=True)
class Resample:
    """Fresh outputs of M(a) and M(b) (samples x coordinates) and how they were drawn."""

    rows_a: np.ndarray
    rows_b: np.ndarray
    seed: int
    how: str
    coding: Any = None  # how outputs that are not numbers were coded (:mod:`dpaudit.mechanisms.outputs`)


def resample(mechanism: Any, pair: tuple[Any, Any], seed: int, n: int) -> Resample:
    """n outputs per side, from ``SeedSequence([seed, PLOT_STREAM])`` (children 0: side a, 1: side b)."""
    side_a, side_b = np.random.SeedSequence([int(seed), PLOT_STREAM]).spawn(2)
    rows, coding = [], None
    for data, node in ((pair[0], side_a), (pair[1], side_b)):
        drawn = mechanism.draw(data, n, np.random.default_rng(node))
        coding = drawn.coding if coding is None else coding.merged(drawn.coding, mechanism.name)
        rows.append(np.asarray(drawn.values).reshape(n, -1).astype(float))
    how = (
        f"Re-sampled for this figure: {n} fresh outputs per side at the audited pair, seeded by "
        f"SeedSequence([{seed}, {PLOT_STREAM}]) (the audit seed, on a stream of its own); "
        "the audit's verification samples are not kept."
    )
    return Resample(rows[0], rows[1], int(seed), how, coding)


def _pyplot():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    plt.rcParams.update({"svg.hashsalt": "dpaudit", "svg.fonttype": "none", "font.size": 8})
    return plt


def _svg(fig: Any) -> str:
    plt = _pyplot()
    buffer = io.StringIO()
    fig.tight_layout()
    fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    plt.close(fig)
    text = buffer.getvalue()
    return text[text.index("<svg"):]


def _figure(title: str):
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(5.6, 3.0), dpi=100)
    ax.set_title(title)
    return fig, ax


def _plot(plot_id: str, title: str, caption: str, fig: Any) -> dict[str, Any]:
    return {"id": plot_id, "title": title, "caption": caption, "media_type": "image/svg+xml", "svg": _svg(fig)}


def _keys(rows: np.ndarray, event: Any) -> tuple[np.ndarray, str]:
    """The one-number view of each output the event is stated on (its feature), and its name."""
    if event is not None and hasattr(event, "feature"):
        return event.feature.values(rows).astype(float), event.feature.describe()
    if rows.shape[1] == 1:
        return rows[:, 0], "output"
    return rows.sum(axis=1), "sum of coordinates"


def _atoms(rows_a: np.ndarray, rows_b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """(unique rows, counts under a, counts under b, inverse index of a) when the outputs are discrete."""
    both = np.concatenate([rows_a, rows_b])
    unique, inverse = np.unique(both, axis=0, return_inverse=True)
    if len(unique) > _ATOMS * 5:
        return None
    inverse = inverse.reshape(-1)
    n_a = len(rows_a)
    counts_a = np.bincount(inverse[:n_a], minlength=len(unique))
    counts_b = np.bincount(inverse[n_a:], minlength=len(unique))
    return unique, counts_a, counts_b, inverse[:n_a]


def output_distributions(sample: Resample, event: Any, event_text: str, pair_text: str) -> dict[str, Any]:
    """Histograms (or atom frequencies) of M(a) and M(b), the audited event S shaded.

    An event that is no range of one feature (e.g. the float-support or lattice events, sets of
    exact doubles) cannot be shaded on continuous outputs: the outputs of each side that fall in S
    are drawn as filled histograms instead, on the same density scale.
    """
    fig, ax = _figure("Output distributions at the audited pair")
    rows_a, rows_b = sample.rows_a, sample.rows_b
    row_event = event is not None and (not hasattr(event, "feature") or hasattr(event, "atom_feature"))
    atoms = _atoms(rows_a, rows_b) if row_event else None
    members = None
    marked = "shaded: the audited event"
    coordinates: list[int | None] = list(range(rows_a.shape[1]))
    if atoms is not None:  # a set of whole output rows, drawn atom by atom
        member, xlabel = event.contains, "output"
    elif row_event:  # a set of rows on continuous outputs: its members' histograms are drawn filled
        (va, xlabel), vb = _keys(rows_a, event), _keys(rows_b, event)[0]
        members = (event.contains(rows_a), event.contains(rows_b))
        event, marked = None, "filled: the outputs of each side that lie in the audited event"
    else:
        (va, xlabel), vb = _keys(rows_a, event), _keys(rows_b, event)[0]
        atoms = _atoms(va[:, None], vb[:, None])
        coordinates = [_feature_coordinate(event, rows_a.shape[1])]
        member = (lambda u: _member_1d(event, u[:, 0])) if event is not None else (lambda u: np.zeros(len(u), bool))
    if atoms is not None:
        unique, ca, cb, _ = atoms
        top = np.sort(np.argsort(-(ca + cb), kind="stable")[:_ATOMS])
        x = np.arange(len(top))
        for i in np.flatnonzero(member(unique[top])):
            ax.axvspan(i - 0.5, i + 0.5, color="#ffd54f", alpha=0.5, lw=0)
        ax.bar(x - 0.2, ca[top] / len(rows_a), width=0.4, color=_COLOURS[0], label="M(a)")
        ax.bar(x + 0.2, cb[top] / len(rows_b), width=0.4, color=_COLOURS[1], label="M(b)")
        labels = [", ".join(_tick(sample.coding, c, v) for c, v in zip(coordinates, unique[i])) for i in top]
        ax.set_xticks(x, labels, rotation=60 if len(top) > 8 else 0, fontsize=6)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("frequency")
    else:
        pooled = np.concatenate([va, vb])
        lo, hi = np.quantile(pooled, [0.002, 0.998])
        if not hi > lo:
            lo, hi = lo - 0.5, hi + 0.5
        edges = np.linspace(lo, hi, _BINS + 1)
        if not np.all(np.diff(edges) > 0):  # a range of a few ulps (large outputs): widen it to separate the bins
            span = max(abs(lo), abs(hi)) * 1e-9
            lo, hi = lo - span, hi + span
            edges = np.linspace(lo, hi, _BINS + 1)
        ax.hist(va, bins=edges, histtype="step", density=True, color=_COLOURS[0], label="M(a)")
        ax.hist(vb, bins=edges, histtype="step", density=True, color=_COLOURS[1], label="M(b)")
        _shade_1d(ax, event, edges)
        for inside, values, colour, side in zip(members or (), (va, vb), _COLOURS, ("a", "b")):
            # weights 1 / (n * bin width): the filled area is the fraction of all n outputs that lie in S
            weights = np.full(int(inside.sum()), 1.0 / (len(values) * (edges[1] - edges[0])))
            ax.hist(values[inside], bins=edges, weights=weights, histtype="stepfilled", color=colour, alpha=0.3,
                    label=f"M({side}) in S: {inside.mean():.1%}")
        ax.set_xlim(lo, hi)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("density")
    ax.legend(loc="upper right", fontsize=7)
    caption = (
        f"Outputs of M(a) and M(b) for the pair {pair_text}; {marked} S = [{event_text}]. "
        + sample.how
    )
    return _plot("distributions", "Output distributions", caption, fig)


def _feature_coordinate(event: Any, width: int) -> int | None:
    """The output coordinate an event's feature reads (None for aggregates and scores)."""
    feature = getattr(event, "feature", None)
    if feature is None:
        return 0 if width == 1 else None
    return 0 if feature.kind == "value" else feature.index if feature.kind == "coordinate" else None


def _tick(coding: Any, coordinate: int | None, value: float) -> str:
    """An atom as the mechanism returned it: its label, True / False, or the number."""
    text = coding.text(coordinate, value) if coding is not None and coordinate is not None else None
    return f"{value:g}" if text is None else text


def _member_1d(event: Any, values: np.ndarray) -> np.ndarray:
    """Membership of feature values in an event stated on a feature (the feature is the identity here)."""
    shadow = type(event)(Feature("value"), *[getattr(event, f) for f in event.__dataclass_fields__ if f != "feature"])
    return shadow.contains(values[:, None])


def _shade_1d(ax: Any, event: Any, edges: np.ndarray) -> None:
    if event is None:
        return
    centres = 0.5 * (edges[1:] + edges[:-1])
    inside = _member_1d(event, centres)
    for lo, hi, hit in zip(edges[:-1], edges[1:], inside):
        if hit:
            ax.axvspan(lo, hi, color="#ffd54f", alpha=0.5, lw=0)


def privacy_loss(sample: Resample, mechanism: Any, pair: tuple[Any, Any], epsilon: float) -> dict[str, Any] | None:
    """Empirical privacy loss of y ~ M(a) against the declared density's; None without a density.

    Empirical: ln(p^_a / p^_b) of the atom (discrete outputs) or histogram bin (scalar continuous
    outputs) y falls in.  Declared: ln p(y | q_a) - ln p(y | q_b) at the sampled y, with q = f(D).
    """
    if mechanism.density is None:
        return None
    fig, ax = _figure("Privacy loss L(y) = ln p_a(y) - ln p_b(y), y ~ M(a)")
    notes = []
    declared = _declared_loss(sample.rows_a, mechanism, pair)
    empirical = _empirical_loss(sample.rows_a, sample.rows_b)
    curves = []
    for values, colour, label in ((declared, _COLOURS[2], "declared density"), (empirical, _COLOURS[0], "empirical")):
        if values is None:
            notes.append(f"the {label} loss could not be evaluated for these outputs")
            continue
        finite = values[np.isfinite(values)]
        if len(finite) < len(values):
            notes.append(f"{label}: {len(values) - len(finite)} of {len(values)} outputs have infinite loss (not drawn)")
        if len(finite):
            curves.append((finite, colour, label))
    if curves:  # one set of bins for both, so the two histograms compare bin by bin
        pooled = np.concatenate([c[0] for c in curves])
        lo, hi = float(pooled.min()), float(pooled.max())
        edges = np.linspace(lo - 0.5, hi + 0.5, 2) if hi <= lo else np.linspace(lo, hi, _BINS + 1)
        for finite, colour, label in curves:
            ax.hist(finite, bins=edges, histtype="step", density=True, color=colour, label=label)
    ax.axvline(epsilon, color=_COLOURS[1], ls="--", lw=1, label=f"claimed epsilon = {epsilon:g}")
    ax.set_xlabel("privacy loss L(y)")
    ax.set_ylabel("density")
    ax.legend(loc="upper left", fontsize=7)
    caption = (
        "Distribution of the privacy loss under M(a): empirical (log ratio of the two re-sampled histograms, "
        "per atom or bin) against the declared density evaluated at the same outputs. "
        + " ".join(n[0].upper() + n[1:] + "." for n in notes)
        + " " + sample.how
    )
    return _plot("privacy-loss", "Privacy-loss distribution", caption, fig)


def _declared_loss(rows: np.ndarray, mechanism: Any, pair: tuple[Any, Any]) -> np.ndarray | None:
    try:
        import sympy

        density = mechanism.density().at_instance()
        log_density = sympy.lambdify(
            (*density.outputs, *density.inputs), sympy.log(density.expr), modules=["numpy", "scipy"]
        )
        queries = [np.asarray(mechanism.query(d) if mechanism.query else d, dtype=float).reshape(-1) for d in pair]
        if rows.shape[1] != len(density.outputs) or any(len(q) != len(density.inputs) for q in queries):
            return None
        columns = [rows[:, i] for i in range(rows.shape[1])]
        with np.errstate(all="ignore"):
            value_a = np.broadcast_to(log_density(*columns, *queries[0]), len(rows)).astype(float)
            value_b = np.broadcast_to(log_density(*columns, *queries[1]), len(rows)).astype(float)
            loss = value_a - value_b
        return np.where(np.isnan(loss), -np.inf, loss) if np.any(np.isfinite(loss)) else None
    except Exception:  # noqa: BLE001 - a density numpy cannot evaluate is reported in the caption
        return None


def _empirical_loss(rows_a: np.ndarray, rows_b: np.ndarray) -> np.ndarray | None:
    atoms = _atoms(rows_a, rows_b)
    if atoms is not None:
        _, ca, cb, index = atoms
        counts_a, counts_b = ca[index], cb[index]
        edges_a = None
    elif rows_a.shape[1] == 1:
        pooled = np.concatenate([rows_a[:, 0], rows_b[:, 0]])
        edges_a = np.unique(np.quantile(pooled, np.linspace(0, 1, _BINS + 1)))
        bin_a = np.clip(np.searchsorted(edges_a, rows_a[:, 0], side="right") - 1, 0, len(edges_a) - 2)
        bin_b = np.clip(np.searchsorted(edges_a, rows_b[:, 0], side="right") - 1, 0, len(edges_a) - 2)
        ha, hb = np.bincount(bin_a, minlength=len(edges_a) - 1), np.bincount(bin_b, minlength=len(edges_a) - 1)
        counts_a, counts_b = ha[bin_a], hb[bin_a]
    else:
        return None
    with np.errstate(divide="ignore"):
        return np.log(counts_a / len(rows_a)) - np.log(counts_b / len(rows_b))


def bound_curve(sample: Resample, event: Any, audit: dict[str, Any], true_epsilon: float | None,
                certificate: dict[str, Any] | None = None) -> dict[str, Any] | None:
    """The verified-style bound on the re-sample's first n outputs, n growing, with its band.

    Lower edge: the auditor's Clopper-Pearson union bound ln((LCB(p_a) - delta) / UCB(p_b));
    upper edge: ln(UCB(p_a) / LCB(p_b)); both at the audit's confidence.  With a ``certificate``
    (``CertifyResult.as_dict()``), its certified upper bound ``epsilon_up`` is drawn too: the audited
    lower bound and the certified upper bound bracket the epsilon of the pair.
    """
    if event is None:
        return None
    claim = audit["claim"]
    confidence, delta = float(audit["confidence"]), float(claim.get("delta") or 0.0)
    hit_a = np.cumsum(event.contains(sample.rows_a))
    hit_b = np.cumsum(event.contains(sample.rows_b))
    n_max = len(hit_a)
    sizes = np.unique(np.geomspace(min(100, n_max), n_max, 24).astype(int))
    ka, kb = hit_a[sizes - 1], hit_b[sizes - 1]
    with np.errstate(all="ignore"):
        lower = union_bound(ka, sizes, kb, sizes, confidence, delta)
        upper = -union_bound(kb, sizes, ka, sizes, confidence, 0.0)
        estimate = np.log(ka / sizes) - np.log(kb / sizes)
    fig, ax = _figure("epsilon lower bound against the sample size")
    cap = lambda v: np.clip(np.where(np.isfinite(v), v, np.nan), -1.0, None)  # noqa: E731
    ax.fill_between(sizes, cap(lower), cap(upper), color=_COLOURS[0], alpha=0.2, lw=0, label=f"{confidence:g} band")
    ax.plot(sizes, cap(estimate), color=_COLOURS[0], lw=1, label="ln(p^_a / p^_b)")
    ax.plot(sizes, cap(lower), color=_COLOURS[0], lw=1.5, ls="-", marker=".", ms=3, label="lower bound")
    ax.axhline(float(claim["epsilon"]), color=_COLOURS[1], ls="--", lw=1, label="claimed epsilon")
    if true_epsilon is not None and math.isfinite(true_epsilon):
        ax.axhline(true_epsilon, color=_COLOURS[2], ls=":", lw=1, label="true epsilon")
    ax.plot([audit["samples"]], [float(audit["epsilon_lower_bound"])], marker="*", ms=9, color=_COLOURS[3],
            ls="none", label="audit (verification)")
    certified = _certified_up(certificate)
    if certified is not None:
        ax.axhline(certified, color=_COLOURS[3], ls="-.", lw=1.2, label="certified upper bound")
    ax.set_xscale("log")
    ax.set_xlabel("samples per side")
    ax.set_ylabel("epsilon")
    ax.legend(loc="lower right", fontsize=6)
    caption = (
        f"Bound on the audited event as the sample size grows: Clopper-Pearson union bound (lower edge) "
        f"and upper bound at confidence {confidence:g}, on the first n re-sampled outputs; the star is the "
        f"audit's own verified bound ({audit['method']} method, {audit['samples']} samples per side). "
        + (f"Dash-dotted: the certified upper bound epsilon <= {certified:.10g} (at delta = "
           f"{float(certificate['delta_up']):.3g}) of the code's one-run sampler on the same pair, by exact path "
           f"enumeration; the epsilon of the pair lies between the star and this line. " if certified is not None else "")
        + sample.how
    )
    return _plot("bound-curve", "Bound against sample size", caption, fig)


def _certified_up(certificate: dict[str, Any] | None) -> float | None:
    """The certificate's finite upper bound on epsilon (``CertifyResult.as_dict()``), else None."""
    if not certificate:
        return None
    value = float(from_json(certificate["epsilon_up"]))
    return value if math.isfinite(value) else None


def claimed_delta(epsilon: np.ndarray, epsilon0: float, delta0: float) -> np.ndarray:
    """The largest delta(epsilon) an (epsilon0, delta0)-DP mechanism can have.

    From P_a(S) <= e^epsilon0 P_b(S) + delta0 and P_a(S) <= 1: for epsilon < epsilon0,
    P_a(S) - e^epsilon P_b(S) <= (1 - e^(epsilon - epsilon0)) + e^(epsilon - epsilon0) delta0; for
    epsilon >= epsilon0 it is delta0 (Dwork & Roth 2014, Def. 2.4; tight for the four-output
    mechanism of Kairouz, Oh & Viswanath 2015, Thm. 2.1).
    """
    below = 1.0 - np.exp(epsilon - epsilon0) * (1.0 - delta0)
    return np.where(epsilon < epsilon0, below, delta0)


def _delta_axes(ax: Any, linthresh: float) -> None:
    """delta against epsilon, delta on a symlog scale linear below ``linthresh`` (at least 1e-12)."""
    ax.set_yscale("symlog", linthresh=max(linthresh, 1e-12))
    ax.set_xlabel("epsilon")
    ax.set_ylabel("delta")
    ax.legend(loc="upper right", fontsize=6)


def delta_curve(sample: Resample, event: Any, audit: dict[str, Any]) -> dict[str, Any] | None:
    """Empirical delta(epsilon) (plug-in over atoms or bins, and the event's lower bound) vs the claim."""
    claim = claim_from_dict(audit["claim"])
    if claim.is_curve or claim.delta <= 0:  # a pure claim's delta is 0
        return None
    eps0, delta0 = claim.epsilon, claim.delta
    grid = np.linspace(0.0, max(2.0 * eps0, 1.0), 60)
    rows_a, rows_b = sample.rows_a, sample.rows_b
    atoms = _atoms(rows_a, rows_b)
    if atoms is not None:
        pa, pb = atoms[1] / len(rows_a), atoms[2] / len(rows_b)
    else:
        va, vb = _keys(rows_a, event)[0], _keys(rows_b, event)[0]
        edges = np.unique(np.quantile(np.concatenate([va, vb]), np.linspace(0, 1, _BINS + 1)))
        pa = np.histogram(va, edges)[0] / len(va)
        pb = np.histogram(vb, edges)[0] / len(vb)
    plug_in = np.maximum(pa[None, :] - np.exp(grid)[:, None] * pb[None, :], 0.0).sum(axis=1)
    fig, ax = _figure("delta(epsilon): empirical against the claim")
    ax.plot(grid, claimed_delta(grid, eps0, delta0), color=_COLOURS[1], ls="--", lw=1, label="claimed (envelope)")
    ax.plot(grid, plug_in, color=_COLOURS[0], lw=1, label="plug-in estimate")
    if audit.get("event_spec"):
        ka, kb = audit["hits"]
        na, nb = audit["sample_sizes"]
        lower = [float(delta_lower_bound(ka, na, kb, nb, float(e), float(audit["confidence"]))) for e in grid]
        ax.plot(grid, lower, color=_COLOURS[3], lw=1.5, label="lower bound (audited event)")
    ax.plot([eps0], [delta0], marker="o", color=_COLOURS[1], ls="none")
    _delta_axes(ax, delta0 / 10)
    caption = (
        f"Hockey-stick divergence delta(epsilon) of M(a) from M(b). Claimed: the envelope every "
        f"({eps0:g}, {delta0:g})-DP mechanism stays under. Plug-in: sum over atoms or bins of "
        f"max(0, p^_a - e^epsilon p^_b) on the re-sample (biased upwards by sampling noise, not a bound). "
        f"Lower bound: the auditor's Clopper-Pearson bound on the audited event, from the audit's own counts. "
        + sample.how
    )
    return _plot("delta-curve", "delta(epsilon)", caption, fig)


def claimed_curve(claim: dict[str, Any], epsilon: np.ndarray) -> tuple[np.ndarray, str]:
    """The claim's delta(epsilon) on ``epsilon`` and its label: a curve claim's own curve
    (:mod:`dpaudit.conversions`), else the envelope of :func:`claimed_delta` (pure: delta0 = 0)."""
    stated = claim_from_dict(claim)
    if stated.is_curve:
        return np.array([stated.delta_at_epsilon(float(e)) for e in epsilon]), f"claimed: {stated}"
    return claimed_delta(epsilon, stated.epsilon, stated.delta), "claimed (envelope)"


def privacy_curve(audit: dict[str, Any]) -> dict[str, Any] | None:
    """The audit's empirical privacy curve (lower bounds at both levels, the band between) beside the claimed curve."""
    curve = audit.get("curve")
    if not curve:
        return None
    epsilon = np.asarray(curve["epsilons"], dtype=float)
    lower, verdict_lower = np.asarray(curve["delta_lower"], float), np.asarray(curve["verdict_delta_lower"], float)
    claimed, label = claimed_curve(audit["claim"], epsilon)
    fig, ax = _figure("privacy curve: empirical lower bound against the claim")
    ax.fill_between(epsilon, verdict_lower, lower, color=_COLOURS[0], alpha=0.25, lw=0,
                    label=f"between the two levels ({curve['verdict_confidence']:g} and {curve['confidence']:g})")
    ax.plot(epsilon, lower, color=_COLOURS[0], lw=1.5, label=f"lower bound, confidence {curve['confidence']:g}")
    ax.plot(epsilon, verdict_lower, color=_COLOURS[0], lw=1, ls=":", label=f"lower bound, verdict {curve['verdict_confidence']:g}")
    ax.plot(epsilon, claimed, color=_COLOURS[1], ls="--", lw=1, label=label)
    check = audit.get("curve_check") or {}
    witness = check.get("witness") if check.get("refuted") else None
    if witness is not None and "epsilon" in witness:
        ax.plot([witness["epsilon"]], [witness["delta_lower_bound"]], marker="x", color=_COLOURS[1], ls="none",
                label="where the claim fails")
    positive = np.r_[lower[lower > 0], claimed[claimed > 0]]
    _delta_axes(ax, float(positive.min()) if positive.size else 1e-6)
    caption = (
        f"Empirical privacy curve of the pair a = {audit['pair'][0]!r}, b = {audit['pair'][1]!r}: for every epsilon, "
        f"a lower confidence bound on delta(epsilon) = sup_S P_a(S) - e^epsilon P_b(S) over both orders, "
        f"simultaneous over the whole curve ({curve['method']}; {curve['sample_sizes'][0]} fresh samples per side). "
        f"mu >= {curve['mu_lower_bound']:.4g} (Gaussian DP) and rho >= {curve['rho_lower_bound']:.4g} (zCDP) at "
        f"{curve['confidence']:g}. A claimed curve below the lower bound anywhere is refuted there."
    )
    return _plot("privacy-curve", "Privacy curve", caption, fig)


_STEP_POINTS = 16


def privacy_over_steps(sample: Resample, stepwise: Any, audit: dict[str, Any]) -> dict[str, Any] | None:
    """Claimed epsilon(delta) after t steps, the re-sample's lower bound after t steps, and the audit's own bound.

    Claimed: ``stepwise.claimed_epsilon(t, delta)`` at the claim's delta.  Audited: the lower bounds of
    :func:`dpaudit.auditor.stepwise.step_bounds` on the first t columns of the re-sample (events chosen
    on one half, verified on the other, simultaneous over the plotted t at the audit's confidence).
    """
    claim = audit["claim"]
    if stepwise is None or stepwise.steps < 2 or sample.rows_a.shape[1] != stepwise.steps or "delta" not in claim:
        return None
    delta, confidence = float(claim["delta"]), float(audit["confidence"])
    steps = tuple(int(t) for t in np.unique(np.geomspace(1, stepwise.steps, _STEP_POINTS).round().astype(int)))
    found = step_bounds(sample.rows_a, sample.rows_b, steps, delta, confidence)
    claimed = [stepwise.claimed_epsilon(t, delta) for t in steps]
    fig, ax = _figure("privacy over the steps")
    ax.plot(steps, claimed, color=_COLOURS[1], ls="--", lw=1, marker=".", ms=3, label="claimed epsilon after t steps")
    shown = np.asarray(found.epsilon_lower)
    ax.plot(steps, np.where(np.isfinite(shown), shown, np.nan), color=_COLOURS[0], lw=1.5, marker="o", ms=3,
            label="lower bound after t steps (re-sample)")
    ax.plot([stepwise.steps], [float(audit["epsilon_lower_bound"])], marker="*", ms=10, color=_COLOURS[3],
            ls="none", label="audit's verified bound (all T steps)")
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_xlabel("steps t")
    ax.set_ylabel(f"epsilon at delta = {delta:g}")
    ax.set_ylim(bottom=0.0)
    ax.legend(loc="upper left", fontsize=6)
    caption = (
        f"Privacy after the first t of T = {stepwise.steps} steps, epsilon at delta = {delta:g}. Dashed: the claim "
        f"after t steps ({stepwise.how or 'the mechanism accountant'}). Line: a lower bound on epsilon after t steps "
        f"from this figure's re-sample, on the event Z_t > c with Z_t the likelihood-ratio statistic of a Gaussian "
        f"composition (the sum of the first t step outputs, weighted by shift / variance estimated on a held-out "
        f"selection half, which also chooses the order and c among 64 quantiles in each order); Clopper-Pearson union bound on "
        f"the other half ({found.verification_size} outputs per side), each point at {found.per_step_confidence:.6g} "
        f"so that all {len(steps)} hold together at {confidence:g} (Bonferroni); an estimate from the re-sample, "
        f"not the audit's verified result. Star: the audit's own verified bound on all T steps "
        f"({audit['method']} method, {audit['samples']} samples per side, confidence {confidence:g}). " + sample.how
    )
    return _plot("privacy-over-steps", "Privacy over the steps", caption, fig)


def _at_working_point(audit: dict[str, Any]) -> dict[str, Any]:
    """``audit`` with a curve claim replaced by the (epsilon, delta) point its stages worked at, for the
    figures that read one epsilon (:func:`dpaudit.auditor.working_point`)."""
    claim = claim_from_dict(audit["claim"])
    return {**audit, "claim": working_point(claim).as_dict()} if claim.is_curve else audit


def all_plots(mechanism: Any, audit: dict[str, Any], n: int = PLOT_SAMPLES,
              certificate: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """Every figure that applies to this mechanism and audit (audit given as ``AuditResult.as_dict()``, the
    certificate, when there is one, as ``CertifyResult.as_dict()``)."""
    pair = from_json(audit["pair"])
    mechanism = as_audited(mechanism, tuple(audit.get("checks", ())))  # events may read the run's draw count
    # The float-support event replays the mechanism's own noise: it needs it to test membership.
    spec = audit.get("event_spec")
    event = event_from_dict(spec, noise=getattr(mechanism, "noise", None)) if spec else None
    sample = resample(mechanism, pair, int(audit["seed"]), min(n, int(audit["samples"])))
    pair_text = f"a = {audit['pair'][0]!r}, b = {audit['pair'][1]!r}"
    point = _at_working_point(audit)
    figures = [
        output_distributions(sample, event, audit.get("event", ""), pair_text),
        privacy_loss(sample, mechanism, pair, float(point["claim"]["epsilon"])),
        bound_curve(sample, event, point, mechanism.true_epsilon, certificate),
        delta_curve(sample, event, point),
        privacy_curve(audit),
        privacy_over_steps(sample, getattr(mechanism, "stepwise", None), point),
    ]
    return [f for f in figures if f is not None]
