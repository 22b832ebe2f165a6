"""Every problem code the core can emit is catalogued (codes are a stable public contract)."""

from __future__ import annotations

import re
from pathlib import Path

import formspec_consult.spec as spec
from formspec_consult.spec import PROBLEM_CODES

SOURCE = Path(spec.__file__).parent


def emitted_codes() -> set[str]:
    found: set[str] = set()
    for path in SOURCE.rglob("*.py"):
        if path.name == "codes.py":
            continue
        text = path.read_text()
        found |= set(re.findall(r'"(FS-[A-Z0-9-]+)"', text))
        if 'code + "-DEPENDS"' in text:
            found |= {c + "-DEPENDS" for c in re.findall(r'"(FS-[A-Z-]+)"', text)}
    return found


def test_every_emitted_code_is_in_the_catalogue() -> None:
    missing = emitted_codes() - set(PROBLEM_CODES)
    assert not missing


def test_catalogue_entries_have_a_known_layer_severity_and_description() -> None:
    for code, (layer, severity, description) in PROBLEM_CODES.items():
        assert re.fullmatch(r"FS-[A-Z0-9-]+", code)
        assert layer in {"parse", "schema", "structural"} and severity in {"error", "warning"} and description


def test_codes_named_in_bundled_skills_exist() -> None:
    skills = Path(spec.__file__).parent.parent / "skills"
    mentioned = {code for path in skills.rglob("SKILL.md") for code in re.findall(r"FS-[A-Z0-9-]+", path.read_text())}
    assert len(mentioned) >= 20
    for code in mentioned:
        if code.endswith("-"):  # a family such as FS-SM-*
            assert any(c.startswith(code) for c in PROBLEM_CODES), code
        else:
            assert code in PROBLEM_CODES, code
