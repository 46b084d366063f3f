"""Build the report document of one mechanism: prove, audit (with its leak checks), check sensitivity, plot.

:func:`build_report` is the ``report`` verb of the three: it calls :func:`dpaudit.prove` and
:func:`dpaudit.audit`, reads their results through ``as_dict()`` and assembles the document of
:mod:`.model` (:mod:`.document`); for a Mechanism with a one-run sampler it also calls
:func:`dpaudit.certify` on the audited pair (:mod:`.certificate`), the upper side of the bracket.  The floating-point and correlated-noise checks run inside the
audit (their findings are read back by :mod:`.checks`); the sensitivity falsification is the
report's own.  A stage that raises is recorded in its section (``status: "error"``) and the others
still run, so one broken mechanism never hides the rest of a catalogue run.
"""

from __future__ import annotations

import shlex
import time
from collections.abc import Callable
from typing import Any

from .._codec import to_json
from .._validation import (
    check_flag,
    check_positive_finite,
    check_positive_int,
)
from ..auditor import DEFAULT_CONFIDENCE, AuditConfig
from ..errors import InvalidArgument
from ._timeout import run_with_timeout
from .certificate import certificate_section
from .document import STAGE_ERRORS, assemble, plots_section
from .model import section

__all__ = ["STAGES", "build_report", "check_options"]

STAGES = ("proof", "audit", "checks", "plots")


def _proof_section(mechanism: Any, timeout: float | None, restated: bool) -> dict[str, Any]:
    """Run :func:`dpaudit.prove` (in a child process when ``timeout`` is set) and wrap its result.

    A claim restated by the report's ``epsilon``/``delta`` is passed to the prover as such (checked at
    the instance), not taken for the mechanism's own declaration.
    """
    from ..proofs import prove

    if mechanism.density is None and mechanism.structure is None and mechanism.program is None:
        return section("skipped", None,
                       "the mechanism declares no symbolic density, program or structure: nothing to prove from")
    claim = mechanism.claim if restated else None
    status, value = run_with_timeout(lambda: prove(mechanism, claim=claim).as_dict(), timeout)
    if status == "ok":
        return section("done", to_json(value))
    if status == "timeout":
        return section("error", None, f"the proof did not finish within {timeout:g} s and was stopped")
    return section("error", None, value)


def _stage(call: Callable[[], Any]) -> tuple[dict[str, Any], Any]:
    try:
        result = call()
    except STAGE_ERRORS as exc:
        return section("error", None, f"{type(exc).__name__}: {exc}"), None
    return section("done", to_json(result.as_dict())), result


def check_options(
    *,
    confidence: float = DEFAULT_CONFIDENCE,
    samples: int | None = None,
    seed: int | None = None,
    plots: bool = True,
    checks: bool = True,
    skip_checks: tuple[str, ...] = (),
    plot_samples: int | None = None,
    proof_timeout: float | None = None,
    progress: Callable[[str], None] | None = None,
    env: dict[str, Any] | None = None,
    **others: Any,
) -> float:
    """Refuse a bad report option (InvalidArgument naming it) before any work; returns the confidence.

    :func:`build_report` calls it first; a catalogue run calls it once before its first report.
    """
    from .checks import CHECKS

    # The audit's own options, checked as the audit checks them (the seed drawn there is not kept).
    confidence = AuditConfig.build(None, confidence=confidence, samples=samples, seed=seed).confidence
    if plot_samples is not None:
        check_positive_int("plot_samples", plot_samples)
    if proof_timeout is not None:
        check_positive_finite("proof_timeout", proof_timeout)
    if isinstance(skip_checks, str) or not isinstance(skip_checks, (tuple, list, set, frozenset)) or \
            not all(isinstance(name, str) for name in skip_checks):
        raise InvalidArgument(f"skip_checks={skip_checks!r} must be a tuple of check names among {', '.join(CHECKS)}")
    if set(skip_checks) - set(CHECKS):
        raise InvalidArgument(f"skip_checks={tuple(skip_checks)!r} must name checks among {', '.join(CHECKS)}")
    for name, flag in (("plots", plots), ("checks", checks), ("curve", others.get("curve", False))):
        check_flag(name, flag)
    if progress is not None and not callable(progress):
        raise InvalidArgument(f"progress={progress!r} must be None or a function called with each stage's name")
    if env is not None and not isinstance(env, dict):
        raise InvalidArgument(f"env={env!r} must be None or a dict of environment fields")
    return confidence


def build_report(
    target: Any,
    *,
    epsilon: float | None = None,
    delta: float | None = None,
    samples: int | None = None,
    seed: int | None = None,
    confidence: float = DEFAULT_CONFIDENCE,
    plots: bool = True,
    checks: bool = True,
    skip_checks: tuple[str, ...] = (),
    plot_samples: int | None = None,
    proof_timeout: float | None = None,
    executor: Any = "auto",
    env: dict[str, Any] | None = None,
    progress: Callable[[str], None] | None = None,
    d_in: Any = None,
    pair: tuple[Any, Any] | None = None,
    data: Any = None,
    neighbours: Any = None,
    curve: bool = False,
    output: Any = None,
) -> dict[str, Any]:
    """The report document of ``target`` (a Mechanism, catalogue name, ``module:attr`` or plain function).

    Parameters
    ----------
    epsilon, delta : float, optional
        Restate the claim (default: the mechanism's own).
    samples, seed, confidence : as in :func:`dpaudit.audit`
        The seed is drawn and recorded when absent, so every report can be reproduced.
    plots : bool
        Draw the figures.
    checks : bool
        Run the implementation checks: the audit's leak event families (lattice, float-support,
        correlated-noise) and the report's sensitivity falsification.  False audits without them.
    skip_checks : tuple of str
        Implementation checks not to run (names from :data:`.checks.CHECKS`); listed as skipped.
    plot_samples : int, optional
        Re-sampled outputs per side for the figures (default :data:`.plots.PLOT_SAMPLES`).
    proof_timeout : float, optional
        Seconds after which the proof is abandoned (recorded as an error); no limit by default.
    executor : str or executor object
        Where the audit's sampling runs (as in :func:`dpaudit.audit`); the result does not depend on it.
    env : dict, optional
        Environment fields to record instead of the live ones (for reproducible snapshots).
    progress : callable, optional
        Called with the name of each stage of :data:`STAGES` when it is done.
    d_in : number, optional
        For an OpenDP measurement: the input distance at which its privacy map gives the claim.
    pair, data, neighbours : optional
        The audit's inputs, as in :func:`dpaudit.audit` (a plain function's pair is audited as given,
        under the relation its shapes state).
    curve : bool
        Also measure the empirical privacy curve (``dpaudit.audit(..., curve=True)``) and plot it beside
        the claimed curve (always done for a zCDP, RDP, GDP or privacy-curve claim).
    output : str or os.PathLike, optional
        Where the report will be written (``dpaudit report -o``): the path its reproduce line names
        (default ``report.html``).  Nothing is written here.

    Returns
    -------
    dict
        JSON-ready, valid against :func:`.model.load_schema`.
    """
    from ..auditor import (
        check_pair,
        fresh_seed,
        not_reproducible_suffix,
        parse_relation,
        run_audit,
    )
    from ..targets import is_plain_callable, load_target, resolve
    from .checks import CHECKS, audit_checks, implementation_checks
    from .plots import PLOT_SAMPLES

    started = time.perf_counter()
    # The user's arguments are checked before any work: a bad one is an error, not a report section.
    confidence = check_options(confidence=confidence, samples=samples, seed=seed, plots=plots, checks=checks,
                               skip_checks=skip_checks, plot_samples=plot_samples, proof_timeout=proof_timeout,
                               progress=progress, env=env, curve=curve)
    if pair is not None:
        check_pair(pair)
    neighbours = parse_relation(neighbours) if neighbours is not None else None
    skip = tuple(skip_checks) if checks else CHECKS
    tick = progress or (lambda stage: None)
    loaded = load_target(target)  # once: a file.py:attr target is imported here, not again for the audit
    mechanism = resolve(loaded, epsilon=epsilon, delta=delta, d_in=d_in,
                        named=f"target={target!r}" if isinstance(target, str) else None)
    seed = fresh_seed() if seed is None else seed

    proof_section = _proof_section(mechanism, proof_timeout, epsilon is not None or delta is not None)
    tick("proof")
    audited, claim = (loaded, dict(epsilon=epsilon, delta=delta)) if is_plain_callable(loaded) else (mechanism, {})
    # the audit's configuration is built as audit(), the CLI and the plugin build theirs (AuditConfig.build)
    audit_section, audit_result = _stage(lambda: run_audit(AuditConfig.build(
        audited, **claim, samples=samples, seed=seed, confidence=confidence, checks=audit_checks(skip),
        executor=executor, pair=pair, data=data, neighbours=neighbours, curve=curve)))
    tick("audit")
    audit_dict = audit_section["result"]
    certificate = certificate_section(mechanism, audit_result)  # the upper side of the bracket, where it exists
    implementation = to_json(implementation_checks(mechanism, audit_dict, skip=skip)) if checks else []
    tick("checks")
    figures = plots_section(mechanism, audit_dict, plots, plot_samples or PLOT_SAMPLES,
                            certificate=certificate["result"] if certificate else None)
    tick("plots")

    settings = {
        "samples": audit_dict["samples"] if audit_dict else samples,
        "seed": seed,
        "confidence": confidence,
        "plot_samples": min(plot_samples or PLOT_SAMPLES, audit_dict["samples"]) if audit_dict else None,
        "elapsed_s": round(time.perf_counter() - started, 3),
        "reproduce": _reproduce(mechanism.name, target, epsilon, delta, audit_dict, seed, confidence, skip, d_in,
                                {"pair": pair, "data": data, "neighbours": neighbours}, curve, output)
        + (not_reproducible_suffix(audit_dict) if audit_dict else ""),
    }
    return assemble(mechanism, proof=proof_section, audit=audit_section, implementation=implementation,
                    plots=figures, settings=settings, env=env, certificate=certificate)


def _reproduce(name: str, target: Any, epsilon, delta, audit_dict, seed: int, confidence: float,
               skip: tuple[str, ...], d_in: Any = None, inputs: dict[str, Any] | None = None,
               curve: bool = False, output: Any = None) -> str:
    """The command (a named target, written to ``output``: default report.html) or the call (a Mechanism object, or a relation of the user's own, which
    no option names) that makes this report again."""
    from ..neighbours import relation_spec

    options = {"seed": seed, "confidence": confidence, "samples": audit_dict["samples"] if audit_dict else None,
               "epsilon": epsilon, "delta": delta, "d-in": d_in}
    given = {k: v for k, v in options.items() if v is not None}
    inputs = {k: v for k, v in (inputs or {}).items() if v is not None}
    if not isinstance(target, str) or ("neighbours" in inputs and relation_spec(inputs["neighbours"]) is None):
        arguments = ", ".join(f"{k.replace('-', '_')}={v!r}"
                              for k, v in [*given.items(), *inputs.items(), *([("skip_checks", skip)] if skip else []),
                                           *([("curve", True)] if curve else [])])
        shown = repr(target) if isinstance(target, str) else f"<the Mechanism {name!r}>"
        return f"dpaudit.reports.build_report({shown}, {arguments})"
    flags = [f"--{k} {v!r}" for k, v in given.items()]  # repr: floats exactly
    if "pair" in inputs:
        a, b = (_as_option(x) for x in inputs["pair"])
        flags += [f"--a {a}", f"--b {b}"]
    if "data" in inputs:
        flags.append(f"--data {_as_option(inputs['data'])}")
    if "neighbours" in inputs:
        flags.append(f"--neighbours {shlex.quote(relation_spec(inputs['neighbours']))}")
    flags += [f"--skip-check {s}" for s in skip]
    flags += ["--curve"] if curve else []
    return f"dpaudit report {target} {' '.join(flags)} -o {shlex.quote(str(output or 'report.html'))}"


def _as_option(value: Any) -> str:
    """``value`` as a shell-quoted JSON option value (its repr when JSON cannot state it)."""
    import json

    try:
        text = json.dumps(to_json(value))
    except (TypeError, ValueError):
        text = repr(value)
    return shlex.quote(text)
