"""A progress bar for long audits: samples drawn, the current verified bound and the rate (tqdm).

Shown on standard error only when it is a terminal (and never in ``--json`` mode), so logs and
piped output stay clean.
"""

from __future__ import annotations

import math
import sys
from typing import Any

__all__ = ["Progress"]


class Progress:
    """Counts drawn samples against ``total``; :meth:`bound` shows the latest verified bound."""

    def __init__(self, total: int, label: str, enabled: bool | None = None) -> None:
        if enabled is None:
            enabled = bool(getattr(sys.stderr, "isatty", lambda: False)())
        self._bar: Any = None
        if enabled:
            from tqdm import tqdm

            self._bar = tqdm(total=total, desc=label, unit="sample", unit_scale=True, file=sys.stderr, leave=False)

    def advance(self, rows: int) -> None:
        if self._bar is not None and rows:
            self._bar.update(rows)

    def retotal(self, total: int) -> None:
        """Count against ``total`` from now on (the search stage's size is known once the output's width is)."""
        if self._bar is not None:
            self._bar.total = total
            self._bar.refresh()

    def bound(self, look: int, value: float) -> None:
        if self._bar is not None:
            shown = f"{value:.4f}" if math.isfinite(value) else "-"
            self._bar.set_postfix_str(f"look {look}, epsilon >= {shown}")

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
