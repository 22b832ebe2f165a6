"""install_module: a registry module whose files ship here goes into vendors/, formspec.lock and the
App as FormSpec installs it; one undo takes it all back; bad requests write nothing."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
import yaml
from mcp import Client

from formspec_consult.registry.packages import package_dir, package_files, shipped_record
from formspec_consult.spec import module_checksum, open_project
from formspec_consult.store.install import InstallRefused, add_vendor_marker
from tests.servers.conftest import call, call_error

pytestmark = pytest.mark.anyio
MODULE = "rental-calendar"


def project_files(project: Path) -> dict[str, str]:
    """sha256 of the project's own files, formspec.lock included (the session folder, which records
    the steps, is left out)."""
    return {p.relative_to(project).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(project.rglob("*")) if p.is_file() and ".formspec" not in p.relative_to(project).parts}


async def test_install_writes_the_vendor_tree_the_lock_entry_and_the_app_entry_and_the_project_validates(
    client: Client, project: Path
) -> None:
    before = project_files(project)
    result = await call(client, "install_module", {"name": MODULE})
    assert result["installed"] == MODULE and result["active"] is True and result["folder"] == f"vendors/{MODULE}"
    folder = project / "vendors" / MODULE
    assert {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()} == \
        package_files(MODULE)
    lock = yaml.safe_load((project / "formspec.lock").read_text(encoding="utf-8"))
    (entry,) = [m for m in lock["modules"] if m["name"] == MODULE]
    record = shipped_record(MODULE)
    assert record is not None
    assert entry["checksum"] == module_checksum(folder) == record.checksum == result["checksum"]
    assert entry["source"] == record.source == f"https://registry.formspec.dev/{MODULE}@{record.version}"
    assert entry["version"] == record.version and entry["trust_tier"] == record.trust_tier
    assert [m["name"] for m in lock["modules"]] == sorted(m["name"] for m in lock["modules"])  # loyalty kept
    app_text = (project / "spec" / "apps" / "barbershop.yaml").read_text(encoding="utf-8")
    assert f"# >>> formspec:vendor {record.source} @{record.version}\n    - {MODULE}\n" in app_text
    assert MODULE in yaml.safe_load(app_text)["spec"]["modules"]
    checked = open_project(project).validate()
    assert checked.ok and not [w for w in checked.warnings if MODULE in w.source], checked.to_dict()
    assert result["validation"]["ok"] is True
    changed = {k for k, v in project_files(project).items() if before.get(k) != v}
    assert changed == {"formspec.lock", "spec/apps/barbershop.yaml", *(f"vendors/{MODULE}/{r}" for r in package_files(MODULE))}


async def test_one_undo_takes_the_whole_install_back_to_the_exact_bytes(client: Client, project: Path) -> None:
    before = project_files(project)
    await call(client, "install_module", {"name": MODULE})
    undone = await call(client, "undo_apply")
    assert undone["undone"] == f"install {MODULE}" and undone["draft"] == "not kept"
    assert "formspec.lock" in undone["file"] and undone["remaining_steps"] == 0
    assert project_files(project) == before and not (project / "vendors" / MODULE).exists()


async def test_undo_refuses_when_an_installed_file_was_edited_and_changes_nothing(
    client: Client, project: Path
) -> None:
    await call(client, "install_module", {"name": MODULE})
    lock = project / "formspec.lock"
    lock.write_text(lock.read_text(encoding="utf-8") + "# edited by hand\n", encoding="utf-8")
    after_edit = project_files(project)
    message = await call_error(client, "undo_apply")
    assert "formspec.lock was edited after install rental-calendar" in message and "force: true" in message
    assert project_files(project) == after_edit


async def test_a_second_install_is_refused_and_writes_nothing(client: Client, project: Path) -> None:
    await call(client, "install_module", {"name": MODULE})
    installed = project_files(project)
    message = await call_error(client, "install_module", {"name": MODULE})
    assert f"vendors/{MODULE} already exists" in message and "nothing was written" in message
    assert project_files(project) == installed


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("payment-gateway", "formspec module install --from https://registry.formspec.dev payment-gateway --use"),
        ("no-such-module", "formspec module install --from https://registry.formspec.dev no-such-module --use"),
        ("../../etc", "do not ship with this consultant"),
    ],
)
async def test_a_module_whose_files_do_not_ship_is_refused_with_the_persons_command(
    client: Client, project: Path, name: str, says: str
) -> None:
    before = project_files(project)
    assert says in await call_error(client, "install_module", {"name": name})
    assert project_files(project) == before


async def test_a_project_module_of_the_same_name_is_refused(client: Client, project: Path) -> None:
    own = project / "spec" / "modules" / MODULE
    own.mkdir(parents=True)
    (own / "module.yaml").write_text(
        f"apiVersion: formspec.dev/v1\nkind: Module\nmetadata: {{name: {MODULE}}}\nspec: {{version: v1}}\n",
        encoding="utf-8",
    )
    before = project_files(project)
    message = await call_error(client, "install_module", {"name": MODULE})
    assert f"already has a module named {MODULE}" in message and project_files(project) == before


async def test_install_inactive_leaves_the_app_entry_commented_out(client: Client, project: Path) -> None:
    await call(client, "install_module", {"name": MODULE, "activate": False})
    app_text = (project / "spec" / "apps" / "barbershop.yaml").read_text(encoding="utf-8")
    assert f"    # - {MODULE}\n" in app_text and MODULE not in yaml.safe_load(app_text)["spec"]["modules"]


async def test_the_tool_is_declared_as_a_write_that_only_adds_and_is_not_idempotent(client: Client) -> None:
    tools = {t.name: t for t in (await client.list_tools()).tools}
    hints = tools["install_module"].annotations
    assert hints is not None
    assert hints.read_only_hint is False and hints.idempotent_hint is False and hints.destructive_hint is False


def test_a_flow_modules_list_becomes_a_block_list_with_the_marker() -> None:
    app = "apiVersion: formspec.dev/v1\nkind: App\nmetadata: {name: shop}\nspec:\n  root_url: /\n  modules: [shop, booking]\n  menu: []\n"
    out = add_vendor_marker(app, "https://r/x@1", "1", "x", True)
    assert yaml.safe_load(out)["spec"]["modules"] == ["shop", "booking", "x"]
    assert "  modules:\n    - shop\n    - booking\n    # >>> formspec:vendor https://r/x@1 @1\n    - x\n" in out
    with pytest.raises(InstallRefused, match="already lists x"):
        add_vendor_marker(out, "https://r/x@1", "1", "x", True)
    with pytest.raises(InstallRefused, match=r"no `spec\.modules` list"):
        add_vendor_marker("kind: App\nspec:\n  root_url: /\n", "s", "1", "x", True)


def test_the_shipped_module_matches_its_catalogue_entry() -> None:
    record = shipped_record(MODULE)
    folder = package_dir(MODULE)
    assert record is not None and folder is not None
    own = yaml.safe_load((folder / "module.yaml").read_text(encoding="utf-8"))
    assert own["metadata"]["name"] == record.name and str(own["spec"]["version"]) == record.version
    assert record.checksum == module_checksum(folder) and record.source
