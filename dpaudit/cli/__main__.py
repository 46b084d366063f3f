"""``python -m dpaudit.cli``: the ``dpaudit`` command."""

from . import main

main(prog_name="dpaudit")
