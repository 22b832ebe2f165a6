"""locks faults (see fault_matrix.yaml)."""

from __future__ import annotations

from tests.integrity.scenarios import Observed, scenario  # noqa: F401
