"""The write-path rules of sessions/paths.py (pure checks plus symlink resolution)."""

from __future__ import annotations

from pathlib import Path

import pytest

from formspec_consult.store.paths import PathRefused, normalise, resolve, tool_path


def _roots(tmp_path: Path) -> dict[str, Path]:
    (tmp_path / "spec" / "modules" / "booking").mkdir(parents=True)
    (tmp_path / "overrides").mkdir()
    return {"project_root": tmp_path, "spec_root": tmp_path / "spec", "overrides_dir": tmp_path / "overrides"}


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("/etc/passwd.yaml", "absolute"),
        ("~/x.yaml", "absolute"),
        ("C:/x.yaml", "absolute"),
        ("modules/../../x.yaml", "'..'"),
        ("modules\\booking\\a.yaml", "backslash"),
        ("modules/booking/a\x00.yaml", "control characters"),
        ("modules/booking/a\n.yaml", "control characters"),
        ("modules/booking/a.json", "end in .yaml or .yml"),
        ("modules/booking/", "end in .yaml or .yml"),
        ("vendors/stripe/entities/charge.yaml", "Entity Extension"),
        ("modules/x/Vendors/a.yaml", "overrides/"),
        (".formspec/consult/x.yaml", "hidden"),
        ("modules/.git/a.yaml", "hidden"),
        ("./.", "names no file"),
        ("m/" + "a" * 600 + ".yaml", "limit is 512"),
        (42, "must be a string"),
    ],
)
def test_bad_paths_are_refused_with_a_message_that_says_why(raw: object, fragment: str) -> None:
    with pytest.raises(PathRefused, match=None) as info:
        normalise(raw)
    assert fragment in str(info.value)


def test_paths_are_normalised_to_clean_posix_form() -> None:
    assert normalise(" ./modules//booking/./a.yaml ") == "modules/booking/a.yaml"
    assert normalise("modules/booking/a.YML") == "modules/booking/a.YML"


def test_a_spec_path_maps_into_the_spec_root(tmp_path: Path) -> None:
    checked = resolve("modules/booking/entities/a.yaml", **_roots(tmp_path))
    assert checked.target == tmp_path / "spec/modules/booking/entities/a.yaml"
    assert checked.project_rel == "spec/modules/booking/entities/a.yaml"


def test_an_overrides_path_maps_into_the_project_overrides_folder(tmp_path: Path) -> None:
    checked = resolve("overrides/stripe/form.yaml", **_roots(tmp_path))
    assert checked.target == tmp_path / "overrides/stripe/form.yaml"
    assert checked.rel == "overrides/stripe/form.yaml"


def test_a_module_beside_the_spec_root_is_written_in_place(tmp_path: Path) -> None:
    roots = _roots(tmp_path)
    (tmp_path / "modules" / "crm").mkdir(parents=True)
    assert resolve("modules/crm/a.yaml", **roots).project_rel == "modules/crm/a.yaml"


def test_a_symlink_leading_outside_the_project_is_refused(tmp_path: Path) -> None:
    project = tmp_path / "project"
    outside = tmp_path / "outside"
    outside.mkdir()
    roots = _roots(project)
    (project / "spec" / "modules" / "evil").symlink_to(outside)
    with pytest.raises(PathRefused, match="outside the project"):
        resolve("modules/evil/a.yaml", **roots)


def test_a_symlink_into_vendors_is_refused(tmp_path: Path) -> None:
    roots = _roots(tmp_path)
    (tmp_path / "vendors" / "stripe").mkdir(parents=True)
    (tmp_path / "spec" / "modules" / "sneaky").symlink_to(tmp_path / "vendors" / "stripe")
    with pytest.raises(PathRefused, match="read-only"):
        resolve("modules/sneaky/a.yaml", **roots)


def test_a_folder_is_not_a_file(tmp_path: Path) -> None:
    roots = _roots(tmp_path)
    (tmp_path / "spec" / "modules" / "booking" / "x.yaml").mkdir()
    with pytest.raises(PathRefused, match="is a folder"):
        resolve("modules/booking/x.yaml", **roots)


def test_a_project_relative_spec_path_means_the_same_file(tmp_path: Path) -> None:
    checked = resolve("spec/modules/booking/a.yaml", **_roots(tmp_path))
    assert checked.rel == "modules/booking/a.yaml"
    assert checked.project_rel == "spec/modules/booking/a.yaml"


def test_tool_paths_are_relative_to_the_spec_root(tmp_path: Path) -> None:
    roots = _roots(tmp_path)
    assert tool_path("spec/modules/booking/a.yaml", project_root=tmp_path, spec_root=roots["spec_root"]) == (
        "modules/booking/a.yaml"
    )
    assert (
        tool_path("overrides/x/a.yaml", project_root=tmp_path, spec_root=roots["spec_root"])
        == "overrides/x/a.yaml"
    )
