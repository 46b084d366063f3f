"""How every command fails: usage errors on one line (exit 2), Ctrl-C exit 130, `dpaudit` alone shows the help."""

from __future__ import annotations

import importlib

from click.testing import CliRunner

from dpaudit.cli import main


def test_a_bad_option_value_is_one_line_naming_the_option():
    result = CliRunner().invoke(main, ["audit", "laplace", "--samples", "many"])
    assert result.exit_code == 2
    assert result.stderr == ("dpaudit audit: error: Invalid value for '--samples': 'many' is not a valid integer. "
                             "(see 'dpaudit audit --help')\n")


def test_an_unknown_option_and_a_missing_argument_are_one_line_each():
    for args, words in ((["prove", "laplace", "--epsilom", "1"], "No such option '--epsilom'"),
                        (["audit"], "Missing argument 'TARGET'"), (["nope"], "No such command 'nope'")):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 2 and result.stderr.count("\n") == 1 and words in result.stderr, result.stderr


def test_dpaudit_alone_shows_the_help():
    result = CliRunner().invoke(main, [])
    assert result.exit_code == 2 and "Commands:" in result.output and "audit" in result.output


def test_ctrl_c_exits_130_not_the_code_of_a_violation(monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(importlib.import_module("dpaudit.cli.audit"), "run_audit", interrupted)
    result = CliRunner().invoke(main, ["audit", "laplace", "--samples", "1000"])
    assert result.exit_code == 130
    assert result.stderr.strip().startswith("dpaudit: interrupted; nothing is kept (with --checkpoint FILE")
    kept = CliRunner().invoke(main, ["audit", "laplace", "--samples", "1000", "--seed", "3", "--checkpoint", "ck.json"])
    assert kept.exit_code == 130  # what is kept, and the command that resumes it (the seed with it)
    assert kept.stderr.strip() == ("dpaudit: interrupted; the finished chunks are kept in ck.json: dpaudit audit laplace "
                                   "--seed 3 --samples 1000 --checkpoint ck.json resumes the audit")
