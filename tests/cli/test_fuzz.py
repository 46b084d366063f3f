"""The command line, fuzzed: whatever is typed, dpaudit answers with a verdict or one line naming the option.

Command lines are generated over every command of ``dpaudit`` and every parameter click knows of it
(``click.Command.params``: an option added to a command is fuzzed without touching this file).  Each
value is valid or malformed -- empty, negative, NaN, infinite, huge, unicode, wrong JSON, missing
files, paths that cannot be written, unknown mechanism names -- drawn from the parameter's click type,
refined by the parameter's meaning where it has one (``VALID``, ``MALFORMED``: what a valid value is for
``--samples`` is not in its type).  Every run must

* exit 0, 1, 2 or 3 (the README's table) -- never an exception escaping to click (which exits 1, the
  code of a violation);
* show no traceback (``--debug``, which asks for one, is left out);
* on exit 2, print exactly one line on standard error, naming an option or argument of the line --
  the malformed one, when the line has exactly one;
* finish within ``RUN_BUDGET_S``: sample counts are at most 1000 and the mechanisms cheap.

Profiles (``DPAUDIT_FUZZ_PROFILE``): ``ci`` (default) is derandomised with a bounded number of
examples, under a minute on one core; ``nightly`` draws fresh examples, 20x as many; ``explore``
draws ``DPAUDIT_FUZZ_EXAMPLES`` fresh ones (default 300)::

    DPAUDIT_FUZZ_PROFILE=nightly python -m pytest tests/cli/test_fuzz.py tests/test_api_fuzz.py -q

The session summary prints how many command lines were run and how many distinct error messages
they produced (in the terminal summary, section "dpaudit command-line fuzz").
"""

from __future__ import annotations

import os
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpaudit.cli import main

from .conftest import FUZZ_SUMMARY

PROFILE = os.environ.get("DPAUDIT_FUZZ_PROFILE", "ci")
EXAMPLES = {"ci": 150, "nightly": 3000, "explore": int(os.environ.get("DPAUDIT_FUZZ_EXAMPLES", "300"))}[PROFILE]
FUZZ = settings(
    max_examples=EXAMPLES,
    derandomize=PROFILE == "ci",
    database=None,
    deadline=None,
    # nested_given: --sensitivity-check runs dpaudit's own hypothesis search inside this test.
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much,
                           HealthCheck.nested_given],
)
# A valid line runs a proof, an audit of <= 1000 samples per side or a report of a finite mechanism:
# seconds on a loaded two-core machine; anything near this bound is a hang, not a slow run.
RUN_BUDGET_S = 60.0
# Left out: --debug asks for tracebacks.
NOT_FUZZED = {"debug"}
# Reports use `rr` only: ~3 s, where a dataset mechanism's sensitivity falsification takes ~30 s.
REPORT_TARGETS = ("rr",)


@dataclass
class Record:
    """What the session saw: the command lines run and the error lines they produced."""

    lines: int = 0
    exits: Counter = field(default_factory=Counter)
    errors: Counter = field(default_factory=Counter)


RECORD = Record()


def _pattern(message: str) -> str:
    """An error line with its values blanked (paths, numbers, quoted text): one entry per kind of error."""
    message = re.sub(r"'[^']*'|\"[^\"]*\"", "'_'", message)
    return re.sub(r"\d+(\.\d+)?(e[-+]?\d+)?", "N", message)


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    root = tmp_path_factory.mktemp("fuzz")
    (root / "out").mkdir()
    (root / "ck").mkdir()
    (root / "a-file.txt").write_text("not a folder")
    (root / "mech.py").write_text(
        "import numpy as np\n\n"
        "def noisy(data, n, rng):\n    return np.rint((sum(data) + rng.laplace(0.0, 1.0, n)) * 2.0**8) / 2.0**8\n\n"
        "def raises(data, n, rng):\n    raise RuntimeError('boom')\n\n"
        "def nan(data, n, rng):\n    return np.full(n, np.nan)\n\n"
        "number = 3\n"
    )
    (root / "broken.py").write_text("raise ImportError('cannot import this')\n")
    (root / "bad.json").write_text("{not json")
    with pytest.MonkeyPatch.context() as patch:  # relative paths ('-o x.json') land in the sandbox
        patch.chdir(root)
        yield root
    print_summary()


def print_summary() -> None:
    text = (f"fuzzed command lines: {RECORD.lines}; exit codes {dict(sorted(RECORD.exits.items()))}; "
            f"distinct error messages: {len(RECORD.errors)} (profile {PROFILE})")
    FUZZ_SUMMARY.append(text)
    FUZZ_SUMMARY.extend(f"  {count:4d}  {pattern}" for pattern, count in RECORD.errors.most_common())


# -- values -------------------------------------------------------------------------------------------

EMPTY_AND_ODD = ["", " ", "é", "💥", "ʎ" * 3, "x" * 300, "-", "--", "None", "null"]
BAD_INTS = ["", "-1", "0", "nan", "1.5", "1e3", "abc", "9" * 40, "-" + "9" * 25, "١٢", "0x10", " 7", "inf"]
# "١" (Python's float reads it as 1) and "1e-400" (read as 0) are refused by the CLI's number type.
BAD_FLOATS = ["", "nan", "NaN", "inf", "-inf", "-1", "1e999", "-1e-300", "abc", "1,5", "١", "0x1p-3", "1e-400"]
BAD_JSON = ["[", "{}", "null", "true", '"text"', "[[1], [1, 2]]", "[1, [2]]", "[NaN]", "1e999", "[1e999]",
            '{"a": 1}', "[\"é\", 1]", "[[[]]]", "", "💥"]


def _paths(root: Path, suffix: str) -> dict[str, list[str]]:
    return {
        "valid_file": [str(root / "out" / f"x{suffix}"), str(root / "out" / f"é-ü{suffix}")],
        "valid_folder": [str(root / "out" / "reports"), str(root / "out")],
        "bad": [
            "/no/such/dir/x" + suffix, str(root / "a-file.txt" / f"x{suffix}"), "/proc/x" + suffix,
            "/sys/x" + suffix, "", " ", str(root / "missing" / "deeper" / f"x{suffix}"), "/",
            str(root / ("n" * 300) / f"x{suffix}"), str(root / ("n" * 300)),
        ],
    }


# What each valid target accepts: the pair it is audited on (--a, --b) and whether it needs --epsilon
# and takes --neighbours (a plain function does; a Mechanism carries its claim and relation).
PLAIN = "{root}/mech.py:noisy"
TARGETS = {
    "rr": {"a": "1", "b": "0"},
    "k-rr": {"a": "0", "b": "1"},
    "laplace": {"a": "[1, 0]", "b": "[1, 0, 1]"},
    "geometric": {"a": "[1, 0]", "b": "[1, 0, 1]"},
    PLAIN: {"a": "0", "b": "1", "plain": True},
}
ONLY_MALFORMED = ("d_in_json", "data_json", "randomness")  # valid only with targets the fuzzer does not use
# A restated claim is valid as a whole or not at all (tests/cli/test_claim_options.py tests each refusal):
# when none of its options, --epsilon or --delta is malformed, they are one of these combinations.
CLAIM_OPTIONS = ("claim_kind", "rho", "mu", "alpha")
VALID_CLAIMS = (
    {"rho": "0.5"}, {"mu": "1"}, {"alpha": "2", "epsilon": "1"}, {"claim_kind": "zcdp", "rho": "0.25"},
    {"rho": "0.5", "delta": "1e-05"}, {"rho": "0.5", "epsilon": "1"}, {"claim_kind": "pure", "epsilon": "1"},
    {"claim_kind": "approximate", "epsilon": "1", "delta": "0"},
)
OWN_CLAIM_ONLY = ({"claim_kind": "pure"}, {"claim_kind": "approximate"}, {"claim_kind": "probabilistic"})
VECTORISED_ONLY = ("laplace",)  # no Mechanism.one_run
PLAIN_UNDER_ADD_REMOVE = {"a": "[1, 0]", "b": "[1, 0, 1]", "plain": True}


def valid_values(param: click.Parameter, command: str, root: Path, mode: str,
                 target: dict[str, Any]) -> st.SearchStrategy[list[str]]:
    """Values the option accepts on its own (its meaning, where known; else its click type)."""
    name = param.name
    if name in target.get("claim", {}):
        return st.just(target["claim"][name])
    if name == "method" and target.get("point_delta"):  # the joint bound is for delta = 0 only
        return st.sampled_from(["auto", "union"])
    if name in ("samples", "search_samples"):
        return st.integers(100, 1000).map(str)
    if name == "seed":
        return st.integers(0, 2**64).map(str)
    if name in ("confidence", "verdict_confidence"):
        return st.floats(0.5, 0.999999).map(repr)
    if name == "epsilon":
        return st.sampled_from(["0.5", "1", "1.0986122886681098", "2"])
    if name == "delta":  # a positive delta is valid alone but not with --method joint
        return st.just("0")
    if name == "alpha":  # a Rényi order: > 1
        return st.sampled_from(["1.5", "2", "4"])
    if name in ("rho", "mu"):
        return st.sampled_from(["0.25", "0.5", "1"])
    if name == "neighbours":
        return st.just("add-remove")
    if name == "executor":
        return st.sampled_from(["in-process", "threads", "auto"])
    if name == "workers":
        return st.sampled_from(["1", "2"])
    if name == "jobs":
        return st.just("1")
    if name in ("proof_timeout", "time_budget"):
        return st.sampled_from(["5", "30", "1.5"])
    if name == "tolerance":  # certify's unexplored mass to stop at: in [0, 1)
        return st.sampled_from(["1e-12", "0.5", "0"])
    if name == "store":  # an evidence store: a folder (created when its parent exists)
        return st.sampled_from([str(root / "store"), str(root / "out" / "é-ü-store")])
    if name == "time_limit" and command == "certify":  # seconds of enumeration per input: short here
        return st.sampled_from(["0.5", "1"])
    if name == "time_limit":  # longer than any fuzzed audit: a limit that passes is tests/auditor/test_time_limit.py's
        return st.sampled_from(["600", "3600.5"])
    if name == "connect_timeout":  # no fuzzed executor connects to a scheduler
        return st.sampled_from(["1", "5", "0.5"])
    if name == "checkpoint":  # its own file, removed after each run (a stale one is refused, rightly)
        return st.sampled_from([str(root / "ck" / name) for name in ("run.json", "é-ü.json")])
    if name == "output":
        if mode == "all":
            return st.sampled_from(_paths(root, "")["valid_folder"])
        return st.sampled_from([p for s in (".json", ".md", ".html") for p in _paths(root, s)["valid_file"]])
    if name in ("a_json", "b_json"):
        return st.just(target["a" if name == "a_json" else "b"])
    return _typed(param, root, valid=True)


def malformed_values(param: click.Parameter, command: str, root: Path) -> st.SearchStrategy[list[str]]:
    """Values the option must refuse."""
    name = param.name
    if name == "target":
        return st.sampled_from([
            "no-such-mechanism", "", "LAPLACE", "lapláce", "💥", "x.py:y", f"{root}/missing.py:noisy",
            f"{root}/broken.py:anything", f"{root}/mech.py:nothing_here", f"{root}/mech.py:number",
            f"{root}/mech.py:", ":noisy", "os:path", "no.such.module:x", "dpaudit:PureDP", "dpaudit.claims:PureDP",
        ])
    if name in ("samples", "search_samples"):
        return st.sampled_from(BAD_INTS + ["99", "1"])
    if name == "seed":
        return st.sampled_from(["-1", "", "x", "1.5", "nan", "-" + "9" * 30])
    if name in ("confidence", "verdict_confidence"):
        return st.sampled_from(BAD_FLOATS + ["0", "1", "1.5"])
    if name in ("epsilon", "delta"):
        return st.sampled_from(BAD_FLOATS + (["1", "1.5"] if name == "delta" else []))
    if name in ("alpha", "rho", "mu"):
        return st.sampled_from(BAD_FLOATS + (["1", "0.5"] if name == "alpha" else []))
    if name == "neighbours":
        return st.sampled_from(["nope", "", "query-distance:x", "query-distance:-1", "query-distance:nan",
                                "query-distance:1:l7", "query-distance:1:l1:extra", "add-remove:3", "💥"])
    if name == "executor":
        return st.sampled_from(["nope", "", "dask", "dask://", "dask://:x", "process-pool:3", "💥"])
    if name in ("workers", "jobs"):
        return st.sampled_from(["0", "-1", "", "x", "nan"])
    if name in ("proof_timeout", "time_budget", "time_limit", "connect_timeout"):
        return st.sampled_from(["0", "-1", "nan", "inf", "", "x", "1e999"])
    if name == "tolerance":
        return st.sampled_from(BAD_FLOATS + ["1", "1.5"])
    if name == "checkpoint":
        return st.sampled_from(_paths(root, ".json")["bad"] + [str(root / "out"), str(root / "bad.json")])
    if name == "store":
        # "/" is a folder that accepts files when run as root: a valid store there, so not among the malformed
        return st.sampled_from([p for p in _paths(root, "")["bad"] if p != "/"] + [str(root / "a-file.txt")])
    if name == "output":
        return st.sampled_from(_paths(root, ".json")["bad"] + [str(root / "out" / "x.pdf"), str(root / "out" / "x")])
    if name in ("a_json", "b_json", "data_json"):
        return st.sampled_from(BAD_JSON)
    if name == "d_in_json":
        return st.sampled_from(["", "x", "-1", "nan", "[1, 0]", "💥"])
    return _typed(param, root, valid=False)


def _typed(param: click.Parameter, root: Path, valid: bool) -> st.SearchStrategy[list[str]]:
    """Values from the click type alone (options this file knows nothing about)."""
    kind = param.type
    if isinstance(kind, click.Choice):
        return st.sampled_from(list(kind.choices)) if valid else st.sampled_from(["", "bogus", "💥"] + [
            str(c).upper() for c in kind.choices if str(c).upper() != str(c)])
    if isinstance(kind, (click.types.IntParamType, click.IntRange)):
        return st.sampled_from(["1", "2"]) if valid else st.sampled_from(BAD_INTS)
    if isinstance(kind, (click.types.FloatParamType, click.FloatRange)):
        return st.sampled_from(["0.5", "1"]) if valid else st.sampled_from(BAD_FLOATS)
    if isinstance(kind, click.Path):
        paths = _paths(root, ".json")
        return st.sampled_from(paths["valid_file"] if valid else paths["bad"])
    return st.sampled_from(["1", "[1, 0]", "a"]) if valid else st.sampled_from(EMPTY_AND_ODD + BAD_JSON)


def _is_flag(param: click.Parameter) -> bool:
    return isinstance(param, click.Option) and (param.is_flag or param.count)


@dataclass(frozen=True)
class Line:
    args: tuple[str, ...]
    present: tuple[click.Parameter, ...]
    malformed: tuple[click.Parameter, ...]
    positional: tuple[str, ...] = ()


@st.composite
def command_lines(draw: Any, root: Path, single_malformed: bool = False) -> Line:
    """A command line: the command, a valid baseline, then options each valid or malformed.

    With ``single_malformed`` exactly one parameter is malformed and every other valid.
    """
    name = draw(st.sampled_from(sorted(main.commands)))
    command = main.commands[name]
    params = [p for p in command.params if p.name not in NOT_FUZZED]
    by_name = {p.name: p for p in params}
    mode = draw(st.sampled_from(["one", "one", "all"])) if name == "report" else "one"
    chosen = [p for p in params if p.required or (p.name == "target" and mode == "one")
              or (p.name in ("samples",) and name in ("audit", "report"))
              or (p.name == "time_limit" and name == "certify")]  # certify's default is 30 s per input
    optional = [p for p in params if p not in chosen and p.name != "all_"]
    chosen += draw(st.lists(st.sampled_from(optional), unique_by=lambda p: p.name, max_size=5)) if optional else []
    if mode == "all":
        chosen.append(by_name["all_"])
        chosen = [p for p in chosen if p.name not in ("epsilon", "delta", "target", "a_json", "b_json", "data_json",
                                                      "neighbours")]
    # --d-in applies to OpenDP targets and --data excludes a pair: with the targets here only their
    # malformed values are fuzzed (tests/thirdparty and tests/cli/test_audit_neighbours.py use them).
    chosen = [p for p in chosen if p.name not in ONLY_MALFORMED or draw(st.booleans())]
    if any(p.name in ("a_json", "b_json") for p in chosen):  # the pair comes together
        chosen += [p for p in params if p.name in ("a_json", "b_json") and p not in chosen]
    candidates = [p for p in chosen if p.name != "all_"]
    if single_malformed:
        bad = {draw(st.sampled_from(candidates)).name} if candidates else set()
        chosen = [p for p in chosen if p.name not in ONLY_MALFORMED or p.name in bad]
    else:  # a flag given a value is one kind of mistake; values are where the variety is
        bad = {p.name for p in candidates if draw(st.booleans()) and (not _is_flag(p) or draw(st.integers(0, 9)) == 0)}
        bad |= {p.name for p in candidates if p.name in ONLY_MALFORMED}
    # The target decides what else is valid: a plain function needs --epsilon and takes --neighbours.
    # certify enumerates one-run samplers: laplace (vectorised only) is not a valid target of it.
    names = REPORT_TARGETS if name == "report" else tuple(t for t in TARGETS if (name == "audit" or t != PLAIN)
                                                          and (name != "certify" or t not in VECTORISED_ONLY))
    target_name = draw(st.sampled_from(names))
    if "neighbours" in {p.name for p in chosen} - bad:
        target_name = PLAIN
    elif "sensitivity_check" in {p.name for p in chosen} - bad:
        # Falsifying a dataset mechanism's sensitivity takes from 30 s to minutes; on `rr` and `k-rr` (no
        # query to falsify) the check is skipped with a note.  tests/auditor/test_sensitivity.py tests it.
        target_name = draw(st.sampled_from(["rr", "k-rr"]))
    target = dict(TARGETS.get(target_name, {}))
    if target.get("plain"):
        if "neighbours" in {p.name for p in chosen} - bad:
            target = dict(PLAIN_UNDER_ADD_REMOVE)
        # ... and a pair: a plain function has no domain to search pairs in.
        chosen += [by_name[n] for n in ("epsilon", "a_json", "b_json") if by_name[n] not in chosen]
    if {p.name for p in chosen} & set(CLAIM_OPTIONS) and not bad & {*CLAIM_OPTIONS, "epsilon", "delta"}:
        claims = VALID_CLAIMS
        if name == "certify":  # certify decides one (epsilon, delta) point: a whole curve alone is refused
            claims = tuple(c for c in claims if "alpha" not in c and ({"epsilon", "delta"} & set(c) or "rho" not in c
                                                                      and "mu" not in c))
        combo = draw(st.sampled_from(claims + (() if target.get("plain") else OWN_CLAIM_ONLY)))
        chosen = [p for p in chosen if p.name not in (*CLAIM_OPTIONS, "epsilon", "delta")] + [by_name[n] for n in combo]
        target["claim"] = combo
        # A curve claim's audit works at delta = 1e-5.
        target["point_delta"] = bool({"rho", "mu", "alpha"} & set(combo)) or combo.get("delta", "0") != "0"
    args: list[str] = [name]
    positional: list[str] = []
    for param in chosen:
        wrong = param.name in bad
        if isinstance(param, click.Argument):
            value = draw(malformed_values(param, name, root)) if wrong else target_name.format(root=root)
            positional.append(value)
            continue
        opts = list(param.opts) + list(param.secondary_opts)
        opt = draw(st.sampled_from(opts))
        if _is_flag(param):
            args += [f"{opt}={draw(st.sampled_from(['x', '1', '']))}"] if wrong else [opt]
            continue
        values = malformed_values(param, name, root) if wrong else valid_values(param, name, root, mode, target)
        for _ in range(draw(st.integers(1, 2)) if param.multiple else 1):
            args += [opt, draw(values)]
    # A positional value starting with '-' would read as an option: put it after '--', as a user must.
    if any(v.startswith("-") for v in positional):
        args += ["--", *positional]
    else:
        args += positional
    return Line(tuple(args), tuple(chosen), tuple(p for p in chosen if p.name in bad), tuple(positional))


def _names(param: click.Parameter, line: Line) -> list[str]:
    """How a message may name ``param``: its long options, ``name=``, or the argument's name or value
    (``mechanism 'rr' raised ...`` names the TARGET)."""
    names = [o for o in [*param.opts, *param.secondary_opts] if o.startswith("--")]
    names += [f"{o[2:]}=" for o in list(names)]  # the API's spelling: --a is a=, --search-samples search_samples=
    names += [f"{o[2:].replace('-', '_')}=" for o in list(names) if o.startswith("--")]
    names += [f"{param.name}=", f"'{param.name}'"]
    if isinstance(param, click.Argument):
        names += [param.name.upper(), f"{param.name}="] + [repr(v) for v in line.positional if v]
    return names


# tqdm's bar (--progress forces it onto standard error): drawn, not printed, in a terminal.
PROGRESS_BAR = re.compile(r"\d+%\|.*\|")


def check(line: Line) -> None:
    started = time.perf_counter()
    result = CliRunner().invoke(main, list(line.args))
    elapsed = time.perf_counter() - started
    for stale in Path.cwd().joinpath("ck").glob("*.json"):  # the sandbox is the working folder
        stale.unlink()
    RECORD.lines += 1
    RECORD.exits[result.exit_code] += 1
    shown = f"dpaudit {' '.join(repr(a) for a in line.args[1:])}"
    escaped = result.exception if not isinstance(result.exception, SystemExit) else None
    assert escaped is None, f"{shown}: {type(escaped).__name__}: {escaped} escaped to click"
    assert result.exit_code in (0, 1, 2, 3), f"{shown}: exit {result.exit_code}\n{result.output}"
    assert "Traceback" not in result.output, f"{shown}: a traceback\n{result.output}"
    assert elapsed < RUN_BUDGET_S, f"{shown}: {elapsed:.1f} s"
    if result.exit_code != 2:
        return
    errors = [text for text in result.stderr.splitlines() if text.strip() and not PROGRESS_BAR.search(text)]
    assert len(errors) == 1, f"{shown}: the error is not one line:\n{result.stderr}"
    message = errors[0]
    RECORD.errors[_pattern(message)] += 1
    named = line.malformed if line.malformed else line.present
    assert any(n in message for p in named for n in _names(p, line)), (
        f"{shown}: the error names none of {[p.name for p in named]}: {message}")


@pytest.fixture(scope="module")
def quick_catalogue():
    """`report --all` over one cheap entry (the catalogue's full run is minutes); everything else unchanged."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("dpaudit.mechanisms.registry.names", lambda: list(REPORT_TARGETS))
        yield


@FUZZ
@given(data=st.data())
def test_every_command_line_exits_with_a_table_code_and_at_most_one_line_of_error(sandbox, quick_catalogue, data):
    check(data.draw(command_lines(sandbox)))


@FUZZ
@given(data=st.data())
def test_a_single_malformed_value_is_named_in_the_error(sandbox, quick_catalogue, data):
    check(data.draw(command_lines(sandbox, single_malformed=True)))


def test_no_run_created_a_path_outside_the_sandbox():
    assert not Path("/no").exists()
