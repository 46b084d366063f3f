"""Every example in README.md runs as written and does what the README says it does.

* ```python blocks run in order in one namespace (each test runs the blocks before it first); a line
  ``print(...)  # text`` must print that text ("..." for anything) and ``expression  # value`` must
  give that value when the comment is a Python expression.  Blocks
  that define pytest tests (``def test_``) are saved as a test file and run by pytest
  with the dpaudit plugin, and every test in them must pass.
* ``dpaudit ...`` commands -- lines of indented code blocks and of ```bash / ```console blocks, the
  part after ``&&`` when a line installs first -- run through the CLI.  The comment after the command
  states the outcome: "violation" or "refuted" means exit code 1, "underpowered" 3, anything else 0.
  ``mine.py``, which the README says holds the tour's functions, is written from the tour's ``def``s.
  ``pip install``, the whole test suite (``python -m pytest``) and the commands in :data:`NOT_RUN`
  (reported as skipped, with the reason) are not run here.

New blocks and commands are picked up as they are added.  Audits run at a budget of
:data:`SAMPLES` per side instead of the README's 10^6 (the ``samples`` argument is capped and the
default lowered): the README states verdicts, and every verdict it states holds at this budget with
a wide margin (the violations it shows have true epsilon >= 2 at a claim of 1).
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import io
import re
import shlex
import tokenize
from pathlib import Path

import pytest
from click.testing import CliRunner

import dpaudit

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
SAMPLES = 20_000
# Not quick: the whole catalogue takes minutes; its output is reports/, which
# tests/reports/test_reports_folder.py checks is current and valid.
NOT_RUN = {"dpaudit report --all": "the whole catalogue takes minutes; tests/reports/test_reports_folder.py checks its output"}

_FENCE = re.compile(r"^```([\w-]*)[^\n]*\n(.*?)^```[ \t]*$", re.M | re.S)


def _line_of(offset: int) -> int:
    return README.count("\n", 0, offset) + 1


def python_blocks() -> list[tuple[int, str]]:
    """(README line, code) of every ```python block, in order."""
    return [(_line_of(m.start(2)), m.group(2)) for m in _FENCE.finditer(README) if m.group(1) == "python"]


def _runs_pytest(code: str) -> bool:
    return re.search(r"^def test_", code, re.M) is not None


def shell_commands() -> list[tuple[int, str, str]]:
    """(README line, command, comment) of every ``dpaudit`` command in a code block."""
    fenced = [(m.start(), m.end(), m.group(1)) for m in _FENCE.finditer(README)]
    commands = []
    offset = 0
    for line in README.splitlines(keepends=True):
        inside = [lang for start, end, lang in fenced if start <= offset < end]
        indented = not inside and line.startswith("    ")
        shell = inside and inside[0] in ("bash", "sh", "shell", "console")
        text = line.strip().removeprefix("$ ")
        if (indented or shell) and re.search(r"(^|&& )dpaudit ", text):
            command = text[text.index("dpaudit ", text.rfind("&& ") + 1 if "&& " in text else 0):]
            code, _, comment = command.partition("  #")
            commands.append((_line_of(offset), code.strip(), comment.strip()))
        offset += len(line)
    return commands


def _expected_exit(comment: str) -> int:
    if re.search(r"\b(violation|refuted)\b", comment):
        return 1
    return 3 if re.search(r"\bunderpowered\b", comment) else 0


@pytest.fixture
def small_budget(monkeypatch):
    """Audits at ``SAMPLES`` per side: the default lowered, an explicit larger ``samples`` capped -- in
    ``AuditConfig.build``, through which audit(), the CLI, the plugin and the report builder all go."""
    config = importlib.import_module("dpaudit.auditor.config")
    real = config.AuditConfig.build.__func__

    def build(cls, target, samples=None, **options):
        return real(cls, target, samples=None if samples is None else min(samples, SAMPLES), **options)

    monkeypatch.setattr(config, "DEFAULT_SAMPLES", SAMPLES)
    monkeypatch.setattr(config.AuditConfig, "build", classmethod(build))


def _plain_blocks() -> list[tuple[int, str]]:
    return [(line, code) for line, code in python_blocks() if not _runs_pytest(code)]


def _comments(code: str) -> dict[int, str]:
    """The comment ending each line of ``code`` (1-based line numbers)."""
    tokens = tokenize.generate_tokens(io.StringIO(code).readline)
    return {t.start[0]: t.string.lstrip("#").strip() for t in tokens if t.type == tokenize.COMMENT}


def _matches(text: str, stated: str) -> bool:
    """``text`` is what ``stated`` says, "..." standing for anything."""
    pattern = ".*".join(re.escape(part) for part in stated.split("..."))
    return re.fullmatch(pattern, text.strip(), re.S) is not None


def _run(line: int, code: str, namespace: dict) -> None:
    """Run ``code`` statement by statement; an expression whose line ends in a comment stating its value
    must have it: ``print(...)  # text`` prints text ("..." for anything), ``expr  # value`` equals value
    (comments that are not Python expressions are prose, and not checked)."""
    comments = _comments(code)
    for statement in ast.parse(code).body:
        where = f"README.md line {line + statement.lineno - 1}"
        stated = comments.get(statement.end_lineno)
        if not (isinstance(statement, ast.Expr) and stated):
            exec(compile(ast.Module(body=[statement], type_ignores=[]), where, "exec"), namespace)
            continue
        call = statement.value
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "print":
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                eval(compile(ast.Expression(call), where, "eval"), namespace)
            assert _matches(printed.getvalue(), stated), f"{where} prints {printed.getvalue()!r}, the README says {stated!r}"
            continue
        value = eval(compile(ast.Expression(call), where, "eval"), namespace)
        try:
            expected = eval(stated, {**{name: getattr(dpaudit, name) for name in dpaudit.__all__}, **namespace})
        except Exception:  # prose
            continue
        assert value == expected, f"{where} gives {value!r}, the README says {stated!r}"


def test_the_readme_has_examples_to_check():
    assert len(_plain_blocks()) >= 2 and any(_runs_pytest(code) for _, code in python_blocks())
    assert len(shell_commands()) >= 6


@pytest.mark.parametrize("index", range(len(_plain_blocks())), ids=lambda i: f"line-{_plain_blocks()[i][0]}")
def test_python_block_runs(index, small_budget, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "__readme__"}
    for line, code in _plain_blocks()[: index + 1]:
        _run(line, code, namespace)


@pytest.mark.parametrize(
    "line, code", [b for b in python_blocks() if _runs_pytest(b[1])], ids=lambda v: f"line-{v}" if isinstance(v, int) else ""
)
def test_pytest_block_passes_under_the_plugin(line, code, pytester, monkeypatch):
    # A subprocess (numpy cannot be loaded twice in one process) that imports this checkout's dpaudit.
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    pytester.makepyfile(test_readme_block=code)
    tests = len(re.findall(r"^def test_", code, re.M))
    result = pytester.runpytest_subprocess(f"--dp-samples={SAMPLES}", "-p", "no:randomly")
    result.assert_outcomes(passed=tests)


def _mine(tmp_path: Path) -> None:
    """``mine.py``: the imports and functions of the README block that defines the tour's functions."""
    for _, code in _plain_blocks():
        tree = ast.parse(code)
        if any(isinstance(n, ast.FunctionDef) and n.name == "noisy_sum" for n in tree.body):
            kept = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom, ast.FunctionDef))]
            (tmp_path / "mine.py").write_text(ast.unparse(ast.Module(body=kept, type_ignores=[])) + "\n")
            return
    raise AssertionError("no README block defines noisy_sum, which the CLI examples audit from mine.py")


@pytest.mark.parametrize(
    "line, command, comment",
    [
        pytest.param(*c, id=f"line-{c[0]}", marks=[
            pytest.mark.skip(reason=why) for prefix, why in NOT_RUN.items() if c[1].startswith(prefix)
        ])
        for c in shell_commands()
    ],
)
def test_shell_command_does_what_its_comment_says(line, command, comment, small_budget, tmp_path, monkeypatch):
    from dpaudit.cli import main

    monkeypatch.chdir(tmp_path)
    _mine(tmp_path)
    (tmp_path / "examples").symlink_to(ROOT / "examples")  # paths in the README are from the checkout's root
    argv = shlex.split(command)
    assert argv[0] == "dpaudit"
    result = CliRunner().invoke(main, argv[1:])
    assert result.exit_code == _expected_exit(comment), (
        f"README line {line}: `{command}` exited {result.exit_code}, its comment says {comment!r}\n{result.output}"
    )
