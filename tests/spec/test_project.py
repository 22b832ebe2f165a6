"""Opening projects: root discovery, both layouts, identity by metadata, modules, lock."""

from __future__ import annotations

from pathlib import Path

import pytest

from formspec_consult.spec import ProjectError, module_checksum, open_project

from .conftest import BARBERSHOP


def test_bundled_barbershop_fixture_validates_without_problems_or_warnings() -> None:
    result = open_project(BARBERSHOP).validate()
    out = result.to_dict()
    assert (out["ok"], out["problems"], out["warnings"]) == (True, [], [])
    assert set(out["schema_sources"]) == {"App", "Entity", "Form", "Module", "Table", "Workspace"}


def test_open_project_walks_up_from_a_module_folder_to_the_root(shop_dir: Path) -> None:
    project = open_project(shop_dir / "spec" / "modules" / "booking" / "transaction")
    assert project.root == shop_dir.resolve()
    assert project.spec_root == shop_dir.resolve() / "spec"
    assert project.overrides_dir == project.root / "overrides"


def test_open_project_outside_any_project_says_how_to_fix_it(tmp_path: Path) -> None:
    with pytest.raises(ProjectError, match=r"is not a FormSpec project.*formspec-consult init.*--project"):
        open_project(tmp_path)


def test_spec_root_comes_from_formspec_app_yaml(tmp_path: Path) -> None:
    (tmp_path / "formspec-app.yaml").write_text("spec: definitions\n")
    (tmp_path / "definitions" / "apps").mkdir(parents=True)
    project = open_project(tmp_path)
    assert project.spec_root == tmp_path.resolve() / "definitions"


def test_fixture_lock_checksum_matches_the_vendor_tree() -> None:
    project = open_project(BARBERSHOP)
    lock = project.lock()
    assert lock is not None
    entry = lock["modules"][0]
    assert entry["checksum"] == module_checksum(BARBERSHOP / "vendors" / "loyalty")
