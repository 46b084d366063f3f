"""Markdown rendering of a report document, for pull-request comments.

Reads only the report dict (:mod:`.model`).  Every string that came from a user or a mechanism is
passed through :func:`escape` (HTML-special characters become entities, Markdown punctuation is
backslash-escaped), and equations go into ``$$ ... $$`` blocks as LaTeX with ``<``, ``>`` and ``$``
rewritten as TeX commands.  Figures are not embedded (pull-request comments take no inline SVG);
the HTML report has them.  The output depends on the dict only, so a fixed document gives a fixed
text (the snapshot test relies on it).
"""

from __future__ import annotations

import html
import re
from typing import Any

from .checks import LEAK_CHECKS
from .model import in_process, support_status

__all__ = ["escape", "render_markdown"]

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]|~])")
_PLAIN_COMMAND = re.compile(r"[A-Za-z0-9 ._:/=,+-]*")  # shown as a code span; anything else is escaped


def escape(value: Any) -> str:
    """``value`` as inert Markdown text: one line, entities for < > &, inline-markup characters escaped.

    Only characters that open inline markup or a table cell are escaped (backslash, backtick, ``*``,
    ``_``, brackets, ``|``, ``~``); raw HTML cannot start because ``<`` becomes ``&lt;``.
    """
    text = " ".join(str(value).split())
    return _MARKDOWN_SPECIAL.sub(r"\\\1", html.escape(text, quote=False))


def _tex(latex: str) -> str:
    return latex.replace("$", r"\$").replace("<", r"\lt ").replace(">", r"\gt ")


def _equation(expression: dict[str, Any] | None) -> list[str]:
    if not expression:
        return []
    return ["", "$$", _tex(expression.get("latex", "")), "$$", ""]


def _number(value: Any, digits: int = 4) -> str:
    if isinstance(value, bool) or value is None:
        return escape(value)
    if isinstance(value, (int, float)):
        return f"{value:.{digits}g}"
    return escape(value)


def _table(rows: list[tuple[str, Any]]) -> list[str]:
    lines = ["| | |", "|---|---|"]
    lines += [f"| {label} | {value} |" for label, value in rows if value not in (None, "")]
    return lines + [""]


def _summary(doc: dict[str, Any]) -> list[str]:
    summary = doc["summary"]
    verdicts = " · ".join(f"{escape(k)}: **{escape(v)}**" for k, v in summary["verdicts"].items())
    return [f"**Overall: {escape(summary['overall'].upper())}** (exit code {summary['exit_code']}) — {verdicts}", ""]


def _claim(doc: dict[str, Any]) -> list[str]:
    mechanism, claim, unit = doc["mechanism"], doc["claim"], doc["unit_of_privacy"]
    lines = ["## 1. Claim and unit of privacy", ""]
    lines += _table([
        ("mechanism", escape(mechanism["name"]) + (f" — {escape(mechanism['description'])}"
                                                   if mechanism["description"] else "")),
        ("family", escape(mechanism["family"])),
        ("claim", f"{escape(claim['statement'])} ({escape(claim['kind'])}, ε = {_number(claim['epsilon'])}, "
                  f"δ = {_number(claim['delta'])})" if "epsilon" in claim and "delta" in claim  # curve claims state no point
         else f"{escape(claim['statement'])} ({escape(claim['kind'])})"),
        ("unit of privacy", f"{escape(unit['description'])} ({escape(unit['relation'])})"),
        ("declared sensitivity", _number(mechanism.get("sensitivity")) if mechanism.get("sensitivity") else None),
        ("known flaw", escape(mechanism["flaw"]) if mechanism.get("flaw") else None),
        ("true ε", _number(mechanism["true_epsilon"]) if mechanism.get("true_epsilon") is not None else None),
        ("source", escape(mechanism["source"])),
    ])
    for equation in claim["equations"]:
        lines += _equation(equation) + [f"where {escape(equation['legend'])}.", ""]
    density = doc.get("density")
    if density:
        lines += ["Declared output density:"] + _equation(density["equation"])
        if density.get("note"):
            lines += [f"({escape(density['note'])})", ""]
    return lines


def _proof(doc: dict[str, Any]) -> list[str]:
    lines = ["## 2. Proof", ""]
    envelope = doc["proof"]
    result = envelope["result"]
    if envelope["status"] != "done":
        return lines + [f"Not available ({escape(envelope['status'])}): {escape(envelope['note'])}", ""]
    lines += [
        f"**{escape(result['verdict'])}** — {escape(result['reason'])} "
        f"(method: {escape(result['method'])}; scope: {escape(result['scope'])}; {_number(result['elapsed_s'], 3)} s)",
        "",
    ]
    certificate = result.get("certificate")
    if certificate:
        lines += [f"Certificate: {escape(certificate['statement'])}"]
        if certificate["assumptions"]:
            lines += ["", "Assumptions: " + ", ".join(escape(a) for a in certificate["assumptions"])]
        lines.append("")
        for i, step in enumerate(certificate["steps"], 1):
            lines += [f"{i}. *{escape(step['name'])}* — {escape(step['justification'])}"] + _equation(step)
    counterexample = result.get("counterexample")
    if counterexample:
        lines += ["Counterexample:", ""] + _table([
            ("what goes wrong", escape(counterexample["description"])),
            ("inputs", escape(counterexample["inputs"])),
            ("output y", escape(counterexample["output"]) if counterexample.get("output") is not None else None),
            ("output set S", escape(counterexample["output_set"]) if counterexample.get("output_set") else None),
            (escape(counterexample["quantity"]), f"{_number(counterexample['value'])} > {_number(counterexample['bound'])}"),
            ("mass of S", _number(counterexample["mass"]) if counterexample.get("mass") is not None else None),
            ("parameters", escape(counterexample["parameters"]) if counterexample.get("parameters") else None),
        ])
    return lines


SHOWN_OUTCOMES = 10
"""Outputs listed per input in the certificate's table (the most probable first; the JSON has them all)."""


def _certificate(doc: dict[str, Any]) -> list[str]:
    """The certificate of the code (``dpaudit.certify`` on the audited pair), when the report has one."""
    envelope = doc.get("certificate")
    if not envelope:
        return []
    lines = ["## 2b. Certificate of the code (exact path enumeration)", ""]
    result = envelope["result"]
    if envelope["status"] != "done":
        return lines + [f"Not available ({escape(envelope['status'])}): {escape(envelope['note'])}", ""]
    bracket = envelope.get("bracket") or {}
    lines += [f"**{escape(result['verdict'])}** — {escape(result['reason'])}", ""]
    lines += _table([
        ("claim", escape(result["claim"]["kind"] if result.get("claim") else "none") + (
            f", ε = {_number(result['claim']['epsilon'])}, δ = {_number(result['claim']['delta'])}"
            if result.get("claim") else "")),
        ("bracket", f"**{escape(bracket['text'])}** — audited lower bound {_number(bracket['audited_low'])} at "
                    f"confidence {_number(bracket['confidence'], 6)}, certified upper bound "
                    f"{_number(bracket['certified_up'], 10)} at δ\\_up = {_number(bracket['delta_up'], 3)}"
         if bracket else None),
        ("certified ε", f"in \\[{_number(result['epsilon_low'], 10)}, {_number(result['epsilon_up'], 10)}\\]; "
                        f"(ε\\_up, δ\\_up) = ({_number(result['epsilon_up'], 10)}, {_number(result['delta_up'], 3)})"),
        ("δ at the claimed ε", f"in \\[{_number(result['delta_at_claim'][0], 3)}, "
                               f"{_number(result['delta_at_claim'][1], 3)}\\]" if result.get("delta_at_claim") else None),
        ("observed", escape(result["observed"])),
        ("time", f"{_number(result['seconds'], 3)} s"),
    ])
    lines += ["| input | output | P low | P high |", "|---|---|---|---|"]
    for law in result["laws"]:
        for outcome, low, high in law["outcomes"][:SHOWN_OUTCOMES]:
            lines.append(f"| {escape(law['input'])} | {escape(outcome)} | {_number(low, 6)} | {_number(high, 6)} |")
    lines.append("")
    for law in result["laws"]:
        more = len(law["outcomes"]) - SHOWN_OUTCOMES
        lines.append(f"- input {escape(law['input'])}: {len(law['outcomes'])} outputs"
                     + (f" ({more} more in the JSON)" if more > 0 else "")
                     + f", unexplored mass {_number(law['residual'], 3)} after {law['paths'] + law['summary_paths']} "
                       f"paths in {_number(law['seconds'], 3)} s"
                     + "".join(f"; set aside {_number(mass, 3)}: {escape(why)}" for mass, why in law["set_aside"][:2]))
    witness = result.get("witness")
    if witness and result["verdict"] == "refuted":
        lines.append(f"- witness: output {escape(witness['outcome'])}, P\\[· | {escape(witness['input_x'])}\\] in "
                     f"\\[{_number(witness['interval_x'][0], 6)}, {_number(witness['interval_x'][1], 6)}\\], "
                     f"P\\[· | {escape(witness['input_y'])}\\] in \\[{_number(witness['interval_y'][0], 6)}, "
                     f"{_number(witness['interval_y'][1], 6)}\\]")
    return lines + [""]


def _audit(doc: dict[str, Any]) -> list[str]:
    lines = ["## 3. Empirical audit", ""]
    envelope = doc["audit"]
    result = envelope["result"]
    if envelope["status"] != "done":
        return lines + [f"Not available ({escape(envelope['status'])}): {escape(envelope['note'])}", ""]
    (ka, kb), (na, nb) = result["hits"], result["sample_sizes"]
    lines += _table([
        ("verdict", f"**{escape(result['verdict'])}** — {escape(result['reason'])}"),
        ("pair", f"a = {escape(result['pair'][0])}, b = {escape(result['pair'][1])}"),
        ("neighbours", escape(result["neighbours"]["statement"]) if result.get("neighbours") else None),
        ("event S", escape(result["event"])),
        ("counts", f"{ka} of {na} outputs of M(a) in S; {kb} of {nb} outputs of M(b) in S"),
        ("ε lower bound", f"{_number(result['epsilon_lower_bound'])} (claimed {_claimed(result)})"),
        ("privacy curve", _curve(result)),
        ("δ lower bound", _number(result["delta_lower_bound"]) if result.get("delta_lower_bound") is not None else None),
        ("method", f"{escape(result['method'])} bound at confidence {_number(result['confidence'], 6)}"
                   + (" (the estimate)" if _two_levels(result) else "")),
        ("verdict's bound", _verdict_bound(result)),
        ("implementation bound", _scope(result, "implementation")),
        ("algorithmic bound", _scope(result, "algorithmic")),
        ("reach", f"{_number(result['epsilon_reach'])} (best bound a mechanism exactly at its claim could give)"),
        ("samples", f"{result['samples']} verification + {result['search_samples']} search per side"),
        ("seed", str(result["seed"])),
        ("reproducible", _reproducible(result)),
        ("stopping", _stopping(result["stopping"])),
        ("run", _run(result["run"])),
        ("leak checks", _leak_checks(result)),
        ("time", f"{_number(result['elapsed_s'], 3)} s ({_number(result['mechanism_s'], 3)} s in the mechanism)"
                 + _stage_times(result["run"])),
    ])
    lines += [f"Sequential procedure: {escape(result['stopping']['procedure'])}", ""]
    for note in result.get("notes", []):
        lines.append(f"- {escape(note)}")
    return lines + ([""] if result.get("notes") else [])


def _reproducible(result: dict[str, Any]) -> str | None:
    """The row only when the seed cannot reproduce the audit (the mechanism's own randomness)."""
    if result.get("reproducible", True):
        return None
    return f"**no** — {escape(result.get('reproducibility', ''))}"
def _two_levels(result: dict[str, Any]) -> bool:
    """Whether the verdict was taken at a stricter level than the estimate's (older documents: no)."""
    return result.get("verdict_confidence") is not None and result["verdict_confidence"] != result["confidence"]


def _verdict_bound(result: dict[str, Any]) -> str | None:
    if not _two_levels(result):
        return None
    decided = f"; decided by the {escape(result['decided_by'])}" if result.get("decided_by") else ""
    return (f"ε ≥ {_number(result['verdict_epsilon_lower_bound'])} at confidence "
            f"{_number(result['verdict_confidence'], 6)}, the level the verdict is taken at (claimed "
            f"{_claimed(result)}){decided}")


def _claimed(result: dict[str, Any]) -> str:
    """The claimed epsilon, or for a curve claim (zCDP, RDP, GDP, a curve) its kind: it has no single epsilon."""
    claim = result["claim"]
    return _number(claim["epsilon"]) if "epsilon" in claim and "delta" in claim else f"{escape(claim['kind'])} curve"


def _curve(result: dict[str, Any]) -> str | None:
    """The empirical curve's headline figures (:class:`dpaudit.EmpiricalCurve`), when the audit measured it."""
    curve = result.get("curve")
    if not curve:
        return None
    return (f"μ ≥ {_number(curve['mu_lower_bound'])} (Gaussian DP), ρ ≥ {_number(curve['rho_lower_bound'])} (zCDP) at "
            f"confidence {_number(curve['confidence'], 6)}; {escape(curve['method'])}")


def _scope(result: dict[str, Any], name: str) -> str | None:
    """One scope's bounds (:mod:`dpaudit.auditor.scopes`), and whether it decided the verdict."""
    scopes = result.get("bounds_by_scope") or {}
    entry = scopes.get(name)
    if not entry:
        return None
    what = "every event family" if name == "implementation" else "the mechanism's own events, leak families off"
    decided = " — **decided the verdict**" if scopes.get("decided_by") == name else ""
    return (f"ε ≥ {_number(entry['epsilon_lower_bound'])} at {_number(entry['confidence'], 6)}, ≥ "
            f"{_number(entry['verdict_epsilon_lower_bound'])} at {_number(entry['verdict_confidence'], 6)} on "
            f"\\[{escape(entry['family'])}\\] {escape(entry['event'])} ({what}){decided}")


def _stopping(stopping: dict[str, Any]) -> str:
    # The reason names the look a violation was certified at (``decided_at``) when it differs.
    return (
        f"stopped at look {stopping['stopped_at']} of {stopping.get('planned_looks', len(stopping['looks']))} after "
        f"{stopping['samples_used']} "
        f"samples per side ({_number(100 * stopping['fraction_used'], 3)} % of the budget): {escape(stopping['reason'])}"
    )


def _run(run: dict[str, Any]) -> str:
    text = f"executor {escape(run['executor'])}"
    if not in_process(run):
        text += f", {run['workers']} worker(s)"
    if run.get("checkpoint"):
        text += f"; checkpoint {escape(run['checkpoint'])} ({run['resumed_chunks']} chunks resumed)"
    return text + (f"; {escape(run['note'])}" if run.get("note") else "")


def _stage_times(run: dict[str, Any]) -> str:
    times = run.get("times")
    if not times:
        return ""
    return "; " + ", ".join(f"{name.removesuffix('_s')} {_number(seconds, 3)} s" for name, seconds in times.items())


def _leak_checks(result: dict[str, Any]) -> str:
    ran = ", ".join(escape(c) for c in result["checks"]) or "none"
    found = result["findings"]
    return f"{ran}; {len(found)} finding(s)" + (" (section 4)" if found else "")


def _checks(doc: dict[str, Any]) -> list[str]:
    lines = ["## 4. Implementation checks", ""]
    if not doc["implementation"]:
        return lines + ["None run.", ""]
    lines += ["| check | run by | verdict | P\\_b(S) = 0 | finding |", "|---|---|---|---|---|"]
    for check in doc["implementation"]:
        result = check.get("result") or {}
        verdict = result.get("verdict", check["status"])
        finding = result.get("reason") or check.get("note", "")
        lines.append(
            f"| {escape(check['name'])} | {escape(check['source'])} | {escape(verdict)} | "
            f"{escape(support_status(result)) if result and check['name'] in LEAK_CHECKS else '—'} | {escape(finding)} |"
        )
    lines.append("")
    audit = doc["audit"]["result"] or {}
    for finding in audit.get("findings", []):
        if "event" not in finding:
            continue
        (ka, kb), (na, nb) = finding["hits"], finding["sample_sizes"]
        lines.append(
            f"- **{escape(finding['check'])}**: event S = [{escape(finding['event'])}], {ka} of {na} outputs of M(a) "
            f"and {kb} of {nb} of M(b) in S, verified ε ≥ {_number(finding['epsilon_lower_bound'])} at confidence "
            f"{_number(finding['confidence'], 6)}{_finding_verdict(finding)}; P\\_b(S) = 0: {escape(support_status(finding))}"
        )
    return lines + ([""] if audit.get("findings") else [])


def _finding_verdict(finding: dict[str, Any]) -> str:
    """The finding's bound at the verdict's level (when stricter) and what decided it (older documents: nothing)."""
    text = ""
    if finding.get("verdict_confidence") is not None and finding["verdict_confidence"] != finding["confidence"]:
        text += (f", ≥ {_number(finding['verdict_epsilon_lower_bound'])} at the verdict's "
                 f"{_number(finding['verdict_confidence'], 6)}")
    return text + (f" (decided by the {escape(finding['decided_by'])})" if finding.get("decided_by") else "")


def _environment(doc: dict[str, Any]) -> list[str]:
    settings = doc["settings"]
    command = settings["reproduce"]
    shown = f"`{command}`" if _PLAIN_COMMAND.fullmatch(command) else escape(command)
    lines = ["## 5. Reproduce", "", shown, ""]
    figures = doc["plots"]["figures"]
    if figures:
        lines += [f"Figures ({', '.join(escape(f['title']) for f in figures)}) are in the HTML report.", ""]
    rows = [(escape(k), escape(v)) for k, v in doc["environment"].items()]
    return lines + _table(rows)


def render_markdown(document: dict[str, Any]) -> str:
    """The report as GitHub-flavoured Markdown (a pull-request comment)."""
    lines = [f"# Privacy audit of {escape(document['mechanism']['name'])}", ""]
    lines += _summary(document) + _claim(document) + _proof(document) + _certificate(document) + _audit(document)
    lines += _checks(document) + _environment(document)
    lines.append(f"<sub>dpaudit report schema {escape(document['schema_version'])}</sub>")
    return "\n".join(lines).rstrip() + "\n"
