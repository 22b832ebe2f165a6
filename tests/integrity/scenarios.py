"""The scenarios the fault matrix (fault_matrix.yaml) names: each reproduces one fault and returns
what it observed as a dict of facts, which test_fault_matrix compares with the case's `expected`.

Register a scenario with ``@scenario``; it gets the pytest ``request`` (for fixtures such as
``tmp_path`` or ``small_disk``). Scenario modules are imported by test_fault_matrix.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

Observed = dict[str, Any]
Scenario = Callable[[pytest.FixtureRequest], Observed]
SCENARIOS: dict[str, Scenario] = {}


def scenario(fn: Scenario) -> Scenario:
    """Register ``fn`` under its name."""
    SCENARIOS[fn.__name__] = fn
    return fn
