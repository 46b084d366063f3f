"""The fuzz test's session summary: how many command lines ran, how many distinct errors they gave."""

from __future__ import annotations

FUZZ_SUMMARY: list[str] = []


def pytest_terminal_summary(terminalreporter):
    if FUZZ_SUMMARY:
        terminalreporter.section("dpaudit command-line fuzz")
        for line in FUZZ_SUMMARY:
            terminalreporter.write_line(line)
