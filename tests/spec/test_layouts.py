"""Both project layouts load: modules under spec/ or at the root, older flat folders, vendors."""

from __future__ import annotations

from pathlib import Path

from formspec_consult.spec import open_project

from .conftest import entity

MODULE = "apiVersion: formspec.dev/v1\nkind: Module\nmetadata: {{name: {name}}}\nspec: {{version: '1'}}\n"
APP = ("apiVersion: formspec.dev/v1\nkind: App\nmetadata: {{name: main}}\n"
       "spec: {{version: '1', vendor: me, root_url: /, modules: [{mods}]}}\n")


def put(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_root_level_modules_and_vendors_are_found(tmp_path: Path) -> None:
    put(tmp_path, "formspec-app.yaml", "spec: spec\n")
    put(tmp_path, "spec/apps/main.yaml", APP.format(mods="crm, pay"))
    put(tmp_path, "modules/crm/module.yaml", MODULE.format(name="crm"))
    put(tmp_path, "modules/crm/master/customer/entity.yaml", entity("customer", "  fields: []\n", module="crm"))
    put(tmp_path, "vendors/pay/module.yaml", MODULE.format(name="pay"))
    put(tmp_path, "vendors/pay/entity.yaml",
        "apiVersion: formspec.dev/v1\nkind: Entity\nmetadata: {name: payment}\nspec: {version: v1}\n")
    project = open_project(tmp_path / "modules" / "crm")
    assert project.root == tmp_path.resolve()
    by_name = {d.name: d for d in project.documents()}
    assert by_name["customer"].origin == "modules" and by_name["customer"].module == "crm"
    assert by_name["payment"].origin == "vendors" and by_name["payment"].module == "pay"
    assert by_name["payment"].read_only
    infos = {m.name: m for m in project.modules()}
    assert infos["crm"].source == "modules" and infos["crm"].active and not infos["crm"].read_only
    assert infos["pay"].source == "vendors" and infos["pay"].read_only and infos["pay"].path == "vendors/pay"
    result = project.validate()
    assert result.ok and "FS-VENDOR-UNLOCKED" in [w.code for w in result.warnings]


def test_project_without_formspec_app_yaml_is_found_by_its_modules_folder(tmp_path: Path) -> None:
    put(tmp_path, "modules/crm/module.yaml", MODULE.format(name="crm"))
    assert open_project(tmp_path / "modules" / "crm").root == tmp_path.resolve()


def test_older_flat_layout_infers_the_module_from_the_first_folder(tmp_path: Path) -> None:
    put(tmp_path, "spec/crm/module.yaml", MODULE.format(name="crm"))
    put(tmp_path, "spec/crm/master/customer.yaml",
        "apiVersion: formspec.dev/v1\nkind: Entity\nmetadata: {name: customer}\nspec: {version: v1}\n")
    project = open_project(tmp_path)
    doc = project.find("crm", "entity", "customer")
    assert doc is not None and doc.rel == "spec/crm/master/customer.yaml" and doc.origin == "spec"
    assert project.validate().ok


def test_metadata_module_wins_over_the_folder(tmp_path: Path) -> None:
    put(tmp_path, "spec/modules/crm/module.yaml", MODULE.format(name="crm"))
    put(tmp_path, "spec/modules/sales/module.yaml", MODULE.format(name="sales"))
    put(tmp_path, "spec/modules/crm/misc/lead.yaml", entity("lead", "", module="sales"))
    project = open_project(tmp_path)
    assert project.find("sales", "Entity", "lead") is not None
    assert project.find("crm", "Entity", "lead") is None


def test_hidden_node_modules_and_impl_folders_are_skipped(tmp_path: Path) -> None:
    put(tmp_path, "spec/modules/crm/module.yaml", MODULE.format(name="crm"))
    for skipped in (".git/x.yaml", "modules/crm/node_modules/p/x.yaml", "modules/crm/impl/x.yaml"):
        put(tmp_path, "spec/" + skipped, "not: [valid")
    project = open_project(tmp_path)
    assert [d.rel for d in project.documents()] == ["spec/modules/crm/module.yaml"]
    assert project.validate().ok


def test_multi_document_files_yield_each_document_with_its_own_line_and_text(tmp_path: Path) -> None:
    put(tmp_path, "spec/modules/crm/module.yaml",
        MODULE.format(name="crm") + "---\n# the lead\n" + entity("lead", "  fields: []\n", module="crm"))
    docs = open_project(tmp_path).documents()
    assert [(d.kind, d.line) for d in docs] == [("Module", 1), ("Entity", 7)]
    assert docs[1].text.startswith("apiVersion: formspec.dev/v1\nkind: Entity")
    assert "kind: Module" not in docs[1].text


def test_apps_lists_every_app_manifest(tmp_path: Path) -> None:
    put(tmp_path, "spec/apps/a.yaml", APP.format(mods=""))
    put(tmp_path, "spec/apps/b.yaml", APP.format(mods="").replace("name: main", "name: second"))
    assert [a.name for a in open_project(tmp_path).apps()] == ["main", "second"]


def test_spec_root_may_be_the_project_root_itself(tmp_path: Path) -> None:
    put(tmp_path, "formspec-app.yaml", "spec: .\ndsn: sqlite://x\n")
    put(tmp_path, "formspec.lock", "modules: []\n")
    put(tmp_path, "apps/main.yaml", APP.format(mods="crm"))
    put(tmp_path, "modules/crm/module.yaml", MODULE.format(name="crm"))
    put(tmp_path, "modules/crm/master/customer/entity.yaml", entity("customer", "", module="crm"))
    project = open_project(tmp_path)
    assert project.spec_root == project.root
    assert sorted(d.rel for d in project.documents()) == [
        "apps/main.yaml", "modules/crm/master/customer/entity.yaml", "modules/crm/module.yaml"]
    assert project.validate().ok


def test_a_spec_setting_leaving_the_project_falls_back_with_a_warning(tmp_path: Path) -> None:
    put(tmp_path, "formspec-app.yaml", "spec: ../elsewhere\n")
    put(tmp_path, "spec/modules/crm/module.yaml", MODULE.format(name="crm"))
    project = open_project(tmp_path)
    assert project.spec_root == tmp_path.resolve() / "spec"
    assert [w.code for w in project.validate().warnings] == ["FS-CONFIG"]
