"""``dpaudit catalog``: list every catalogue entry."""

from __future__ import annotations

import math

import click

from .. import catalogue
from ..claims import PrivacyCurve, RenyiDP
from ._common import debug_option, echo_json, guarded, json_option


def _fmt_epsilon(value: float | None) -> str:
    if value is None:
        return "-"
    return "inf" if math.isinf(value) else f"{value:.4g}"


def _curve_label(claim) -> str:
    """A curve claim in at most 16 characters: 0.5-zCDP, 1-GDP, RDP (6 orders), curve (4 points)."""
    if isinstance(claim, RenyiDP) and len(claim.alpha) > 1:
        return f"RDP ({len(claim.alpha)} orders)"
    if isinstance(claim, PrivacyCurve):
        return f"curve ({len(claim.epsilon)} points)"
    return str(claim)


@click.command("catalog")
@json_option
@click.option("--flawed/--all", "only_flawed", default=None, help="Only the flawed gallery (--flawed).")
@debug_option
@guarded
def catalog(as_json: bool, only_flawed: bool | None, debug: bool) -> None:
    """List the catalogue: name, family, claim, flawed, true epsilon, description."""
    entries = [m for m in catalogue() if only_flawed is None or not only_flawed or m.flawed]
    if as_json:
        echo_json([m.as_dict() for m in entries])
        return
    header = f"{'name':<34} {'family':<20} {'claim':<16} {'flawed':<6} {'true eps':>8}  description"
    click.echo(header)
    click.echo("-" * len(header))
    for m in entries:
        claim = _curve_label(m.claim) if m.claim.is_curve else (
            f"{m.claim.kind[:5]} {m.claim.epsilon:.3g}" + (f"/{m.claim.delta:.0e}" if m.claim.delta else ""))
        click.echo(
            f"{m.name:<34} {m.family:<20} {claim:<16} {'yes' if m.flawed else 'no':<6} "
            f"{_fmt_epsilon(m.true_epsilon):>8}  {m.description}"
        )


COMMAND = catalog
