"""`python -m formspec_consult.spec`: a quick validator for humans and CI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from formspec_consult.spec.__main__ import main

from .conftest import BARBERSHOP


def test_valid_project_prints_json_and_exits_zero(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(BARBERSHOP)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["ok"], out["problems"], out["warnings"]) == (True, [], [])
    assert out["schema_sources"]["Entity"] == "formspec-consult built-in schema"


def test_problems_are_listed_as_text_with_position_and_hint(shop_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = shop_dir / "spec/modules/shop/master/service/entity.yaml"
    path.write_text(path.read_text().replace("display_field: title", "display_field: titel"))
    assert main([str(shop_dir), "--text"]) == 1
    out = capsys.readouterr().out
    assert "spec/modules/shop/master/service/entity.yaml:9:3: error FS-DISPLAY-FIELD" in out
    assert "hint: Name one of its fields" in out and out.rstrip().endswith("NOT OK: 1 problem(s), 0 warning(s)")


def test_outside_a_project_exits_two_with_the_reason(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(tmp_path)]) == 2
    assert "is not a FormSpec project" in capsys.readouterr().err
