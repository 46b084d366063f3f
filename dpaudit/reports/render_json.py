"""JSON rendering of a report document: strict JSON (no NaN/Infinity literals), UTF-8, stable order."""

from __future__ import annotations

import json
from typing import Any

from .._codec import to_json

__all__ = ["render_json"]


def render_json(document: dict[str, Any]) -> str:
    """The document as indented strict JSON (``json.loads`` gives back an equal dict)."""
    return json.dumps(to_json(document), indent=2, ensure_ascii=False, allow_nan=False) + "\n"
