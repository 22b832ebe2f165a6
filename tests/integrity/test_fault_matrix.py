"""The fault matrix: every case of fault_matrix.yaml run through its scenario.

A case passes when each fact in its `expected` matches what the scenario observed: a string
must appear in the observed text, anything else must be equal. `observed_before` records what the
fault campaign saw before the fix (documentation, never checked).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.integrity import (  # noqa: F401 - they register their scenarios
    scenarios_cli,
    scenarios_disk,
    scenarios_external,
    scenarios_input,
    scenarios_locks,
    scenarios_models,
    scenarios_setup,
    scenarios_tamper,
    scenarios_trust,
)
from tests.integrity.scenarios import SCENARIOS

MATRIX = Path(__file__).with_name("fault_matrix.yaml")
CASES: list[dict[str, Any]] = yaml.safe_load(MATRIX.read_text(encoding="utf-8"))


def test_the_matrix_is_well_formed_and_every_case_has_a_scenario() -> None:
    names = [case["case"] for case in CASES]
    assert len(names) == len(set(names)), "case names must be unique"
    for case in CASES:
        assert {"case", "area", "fault", "expected", "observed_before", "scenario"} <= case.keys(), case
        assert case["scenario"] in SCENARIOS, f"{case['case']}: no scenario {case['scenario']!r}"


def _matches(expected: Any, observed: Any) -> bool:
    if isinstance(expected, str) and isinstance(observed, str):
        return expected in observed
    return bool(expected == observed)


@pytest.mark.parametrize("case", CASES, ids=[case["case"] for case in CASES])
def test_fault_case(case: dict[str, Any], request: pytest.FixtureRequest) -> None:
    observed = SCENARIOS[case["scenario"]](request)
    wrong = {
        key: {"expected": value, "observed": observed.get(key, "<not observed>")}
        for key, value in case["expected"].items()
        if not _matches(value, observed.get(key))
    }
    assert not wrong, f"{case['case']} ({case['fault']}): {wrong}"
