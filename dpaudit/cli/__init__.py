"""The ``dpaudit`` command line: a thin shell over catalogue(), prove(), audit() and report().

Each subcommand lives in its own module of this package and exposes ``COMMAND`` (a click command);
the group collects them, so a command is added by adding a module.

Exit codes (every command): 0 pass / proved / listed, 1 violation / refuted, 2 bad input or usage,
3 unknown / underpowered.  Every error is one line (``--debug`` shows the traceback of dpaudit's own);
every output path is checked before any work starts (:func:`._common.check_outputs`).
"""

from __future__ import annotations

import importlib
import pkgutil

import click

from .._version import __version__
from ._common import OneLineErrors

EXIT_CODES = """\b
Exit codes:
  0  pass / proved / done
  1  violation / refuted
  2  bad input or usage
  3  unknown / underpowered"""


@click.group(cls=OneLineErrors, epilog=EXIT_CODES)
@click.version_option(__version__, prog_name="dpaudit")
def main() -> None:
    """dpaudit: prove and audit differential-privacy mechanisms."""


for _info in pkgutil.iter_modules(__path__):
    if not _info.name.startswith("_"):
        _module = importlib.import_module(f"{__name__}.{_info.name}")
        if hasattr(_module, "COMMAND"):
            main.add_command(_module.COMMAND)
