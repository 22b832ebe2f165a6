"""docs/fidelity.md is the map of FormSpec's rules to ours: every row has a code and a fixture that breaks it.

The page has two tables — rules FormSpec enforces, and checks of ours FormSpec does not make (each
decided) — and a list of tooling codes. These tests read the page itself, so a row added without a
code or a fixture, or a code the gate can report without a row, fails here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from formspec_consult.spec.codes import PROBLEM_CODES

ROOT = Path(__file__).resolve().parents[3]
PAGE = ROOT / "docs" / "fidelity.md"
CORPUS = Path(__file__).parent
FORMSPEC_TABLE = "## Rules FormSpec enforces"
OURS_TABLE = "## Checks of ours that FormSpec does not make"
TOOLING = "## Tooling codes (no FormSpec rule)"


@dataclass(frozen=True)
class Row:
    table: str
    number: str
    cells: dict[str, str]

    @property
    def code(self) -> str:
        return self.cells.get("Code", "").strip()

    @property
    def fixture(self) -> str:
        return self.cells.get("Fixture", "").strip()


def _section(text: str, heading: str) -> str:
    start = text.index(heading)
    end = text.find("\n## ", start + len(heading))
    return text[start:] if end < 0 else text[start:end]


def _cells(line: str) -> list[str]:
    # `\|` inside a cell is a literal bar (e.g. `sync\|async`)
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]


def rows(heading: str) -> list[Row]:
    lines = [ln for ln in _section(PAGE.read_text(encoding="utf-8"), heading).splitlines() if ln.startswith("|")]
    header, body = _cells(lines[0]), lines[2:]
    out = []
    for line in body:
        values = _cells(line)
        assert len(values) == len(header), f"row has {len(values)} cells, header {len(header)}: {line}"
        out.append(Row(heading, values[0], dict(zip(header, values, strict=True))))
    return out


def expectation(fixture: str) -> tuple[str, str | None, bool]:
    """(expect, warned code, also_schema) of one corpus fixture `rule_cases/<name>` / `schema_cases/<name>`."""
    path = CORPUS / f"{fixture}.yaml"
    assert path.is_file(), f"no fixture {fixture} ({path})"
    text = path.read_text(encoding="utf-8")
    if fixture.startswith("rule_cases/"):
        data = yaml.safe_load(text)
        return str(data["expect"]), data.get("warns"), bool(data.get("also_schema"))
    header = next(line for line in text.splitlines() if line.startswith("# expect:"))
    parts = header.removeprefix("# expect:").split()
    if parts[0] == "ok":
        return "ok", None, False
    return (parts[1], None, False) if parts[0] == "error" else ("ok", parts[1], False)


FORMSPEC_ROWS = rows(FORMSPEC_TABLE)
OUR_ROWS = rows(OURS_TABLE)
ALL_ROWS = FORMSPEC_ROWS + OUR_ROWS


def test_every_row_names_a_catalogued_code_and_an_existing_fixture() -> None:
    without = [(r.table, r.number) for r in ALL_ROWS
               if r.code not in PROBLEM_CODES or not r.fixture or not (CORPUS / f"{r.fixture}.yaml").is_file()]
    assert without == [], f"{len(without)} rows without a code or a fixture: {without}"


def test_rows_are_numbered_once_each() -> None:
    for table in (FORMSPEC_ROWS, OUR_ROWS):
        numbers = [r.number for r in table]
        assert numbers == [str(i) for i in range(1, len(numbers) + 1)], numbers


@pytest.mark.parametrize("row", FORMSPEC_ROWS, ids=lambda r: f"formspec-{r.number}-{r.code}")
def test_a_formspec_rule_row_is_broken_by_its_fixture_with_its_code(row: Row) -> None:
    assert re.fullmatch(r"[0-9a-f]{8}", row.cells["Read at"]), "the FormSpec commit the rule was read at"
    assert row.cells["FormSpec source"] and row.cells["Our check"]
    expect, warned, _ = expectation(row.fixture)
    severity = PROBLEM_CODES[row.code][1]
    if severity == "error":
        assert expect == row.code, f"{row.fixture} expects {expect}, the row says {row.code}"
    else:
        assert expect == "ok" and warned == row.code, f"{row.fixture} should warn {row.code}"


@pytest.mark.parametrize("row", OUR_ROWS, ids=lambda r: f"ours-{r.number}-{r.code}")
def test_a_check_of_ours_is_decided_and_its_fixture_shows_the_decision(row: Row) -> None:
    decision = row.cells["Decision"]
    assert decision in {"error", "warning", "drop"} and row.cells["Reason"], row
    expect, warned, _ = expectation(row.fixture)
    if decision == "drop":
        assert expect == "ok" and warned is None
        return
    assert PROBLEM_CODES[row.code][1] == decision, f"{row.code} is a {PROBLEM_CODES[row.code][1]} in codes.py"
    if decision == "error":
        assert expect == row.code, f"{row.fixture} expects {expect}"
    else:
        assert expect == "ok" and warned == row.code, f"{row.fixture} should pass and warn {row.code}"


def test_every_code_the_gate_reports_has_a_row_or_is_a_tooling_code() -> None:
    tooling = set(re.findall(r"`(FS-[A-Z0-9-]+)`", _section(PAGE.read_text(encoding="utf-8"), TOOLING)))
    covered = {r.code for r in ALL_ROWS} | tooling
    missing = sorted(code for code, (layer, _, _) in PROBLEM_CODES.items()
                     if layer != "parse" and code not in covered)
    assert missing == [], f"codes without a row in docs/fidelity.md: {missing}"


def test_the_table_keeps_growing() -> None:
    assert len(FORMSPEC_ROWS) >= 99 and len(OUR_ROWS) >= 40
