"""``python -m dpaudit``: the ``dpaudit`` command."""

from .cli import main

main(prog_name="dpaudit")
