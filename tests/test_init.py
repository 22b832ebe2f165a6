"""`formspec-consult init`: a starter project a new business can consult into, and the refusals
that leave everything as it was."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner, Result

from formspec_consult.cli import cli
from formspec_consult.spec import open_project


def run_init(*args: str, cwd: Path) -> Result:
    here = Path.cwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(cli, ["init", *args], catch_exceptions=False)
    finally:
        os.chdir(here)


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_init_in_an_empty_folder_writes_a_project_the_gate_accepts_with_the_app_under_spec_apps(
    tmp_path: Path,
) -> None:
    result = run_init("Sewa Tenda Malang", cwd=tmp_path)
    assert result.exit_code == 0, result.output
    assert sorted(tree(tmp_path)) == [
        "formspec-app.yaml",
        "spec/apps/sewa-tenda-malang.yaml",
        "spec/modules/sewa-tenda-malang/module.yaml",
        "spec/workspaces/sewa-tenda-malang.yaml",
    ]
    project = open_project(tmp_path)
    checked = project.validate()
    assert checked.ok and not checked.warnings, checked.to_dict()
    (app,) = project.apps()
    assert app.rel == "spec/apps/sewa-tenda-malang.yaml" and app.spec["modules"] == ["sewa-tenda-malang"]
    assert app.spec["title"] == "Sewa Tenda Malang"
    assert [m.name for m in project.modules()] == ["sewa-tenda-malang"]
    assert yaml.safe_load((tmp_path / "formspec-app.yaml").read_text(encoding="utf-8"))["spec"] == "spec"
    assert "formspec-consult --model" in result.output  # says what to run next


def test_init_with_dir_creates_the_folder_and_the_slug_names_the_documents(tmp_path: Path) -> None:
    result = run_init("Café Nusa Indah", "--dir", "new/cafe", "--slug", "nusa", cwd=tmp_path)
    assert result.exit_code == 0, result.output
    target = tmp_path / "new" / "cafe"
    assert (target / "spec" / "apps" / "nusa.yaml").is_file()
    assert open_project(target).validate().ok
    workspace = yaml.safe_load((target / "spec" / "workspaces" / "nusa.yaml").read_text(encoding="utf-8"))
    assert workspace["spec"]["display_name"] == "Café Nusa Indah"  # the name as people say it
    assert "cd new/cafe && formspec-consult" in result.output


def test_without_a_name_the_folder_name_is_the_business_name(tmp_path: Path) -> None:
    folder = tmp_path / "Bengkel Jaya"
    folder.mkdir()
    result = run_init(cwd=folder)
    assert result.exit_code == 0, result.output
    assert (folder / "spec" / "modules" / "bengkel-jaya" / "module.yaml").is_file()


def test_init_refuses_a_folder_that_already_is_a_project_and_changes_nothing(tmp_path: Path) -> None:
    assert run_init("Toko Sri", cwd=tmp_path).exit_code == 0
    (tmp_path / "spec" / "apps" / "toko-sri.yaml").write_text("# edited by hand\n", encoding="utf-8")
    before = tree(tmp_path)
    again = run_init("Toko Sri", cwd=tmp_path)
    assert again.exit_code == 2
    assert "already a FormSpec project" in again.output and "nothing was written" in again.output
    assert tree(tmp_path) == before


def test_init_refuses_a_folder_inside_a_project(tmp_path: Path) -> None:
    assert run_init("Toko Sri", cwd=tmp_path).exit_code == 0
    before = tree(tmp_path)
    nested = run_init("Cabang", "--dir", "branch", cwd=tmp_path)
    assert nested.exit_code == 2 and f"inside the FormSpec project {tmp_path}" in nested.output
    assert tree(tmp_path) == before and not (tmp_path / "branch").exists()


def test_init_never_overwrites_a_file_it_would_write(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("ours\n", encoding="utf-8")  # other files are fine
    (tmp_path / "formspec-app.yaml").mkdir()  # an odd leftover where the settings file goes
    result = run_init("Toko Sri", cwd=tmp_path)
    assert result.exit_code == 2 and "nothing was written" in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["README.md", "formspec-app.yaml"]


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["!!!"], "Cannot make a project name from '!!!': pass --slug"),
        (["Toko", "--slug", "Toko_Sri"], "--slug 'Toko_Sri' is not a usable name"),
        (["Toko", "--slug", "9lives"], "starting with a letter"),
        (["   "], "The business name is empty"),
        (["a\nb"], "one line"),
    ],
)
def test_a_name_or_slug_that_cannot_be_used_is_a_clear_error_and_nothing_is_written(
    tmp_path: Path, args: list[str], says: str
) -> None:
    result = run_init(*args, cwd=tmp_path)
    assert result.exit_code == 2 and says in result.output
    assert list(tmp_path.iterdir()) == []


def test_a_dir_that_is_a_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "notes").write_text("x", encoding="utf-8")
    result = run_init("Toko", "--dir", "notes", cwd=tmp_path)
    assert result.exit_code == 2 and "is a file, not a folder" in result.output


def test_a_write_that_fails_part_way_leaves_nothing_behind(tmp_path: Path) -> None:
    from formspec_consult.commands.init import write_starter

    target = tmp_path / "shop"
    files = {"formspec-app.yaml": "spec: spec\n", "spec/apps/x.yaml": "a", "spec/apps/x.yaml/clash": "b"}
    with pytest.raises(OSError):
        write_starter(target, files)
    assert not target.exists()


def test_outside_a_project_the_error_offers_formspec_consult_init(tmp_path: Path) -> None:
    from formspec_consult.spec import ProjectError

    with pytest.raises(ProjectError) as caught:
        open_project(tmp_path)
    assert "formspec-consult init" in str(caught.value) and "`formspec init`" not in str(caught.value)
