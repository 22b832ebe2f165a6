"""Reading a tool's answer as a JSON object: one leaf both the loop (reply_set) and the model's
result view (agent/engine/result_view.py) import, so they read an answer alike."""

from __future__ import annotations

import json
from typing import Any


def json_object(text: str) -> dict[str, Any] | None:
    """The JSON object `text` holds; None for an error text, another JSON value or no JSON at all."""
    if not text.startswith("{"):
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None
