"""The check flags of ``dpaudit audit`` come from the checks' own switches: one spelling of each check."""

from __future__ import annotations

from dpaudit.auditor import ALL_CHECKS, CHECK_SWITCHES, DEFAULT_CHECKS
from dpaudit.cli.audit import _CHECK_FLAGS, audit


def test_every_check_has_one_switch() -> None:
    switched = [name for names in CHECK_SWITCHES.values() for name in names]
    assert sorted(switched) == sorted(ALL_CHECKS)


def test_the_flags_are_the_commands_own_in_the_checks_order() -> None:
    assert _CHECK_FLAGS == (("lattice", "no_float_checks", False), ("float-support", "no_float_checks", False),
                            ("correlated-noise", "no_correlation_check", False),
                            ("sensitivity", "sensitivity_check", True), ("draw-count", "no_draw_count", False),
                            ("wall-time", "wall_time", True))
    options = {parameter.name for parameter in audit.params}
    assert {flag for _, flag, _ in _CHECK_FLAGS} <= options
    assert all(turns_on == (name not in DEFAULT_CHECKS) for name, _, turns_on in _CHECK_FLAGS)
