"""dpaudit's version, in one place: the package, its command line, its reports and pyproject read it here."""

__version__ = "0.1.0"
