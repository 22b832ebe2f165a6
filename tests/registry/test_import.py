"""`formspec-consult registry import`: validation first, one transaction, idempotent upserts,
trust tiers from the operator or formspec.lock — on SQLite and PostgreSQL."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from formspec_consult.cli import cli
from formspec_consult.registry.db import open_store

MODULE = """\
apiVersion: formspec.dev/v1
kind: Module
metadata:
  name: {name}
  description: {description}
  annotations: {{registry.formspec.dev/trust-tier: official}}
spec:
  version: "{version}"
  vendor: acme
  depends: [{{module: invoicing}}]
  ai_index:
    category: payment
    features: [split bills between friends]
    aliases: [patungan, split bill, bagi tagihan]
    integration_pattern: Add a Split child to Sale.
    skills_for_ai: Ask how many people share the bill.
"""
ENTITY = """\
apiVersion: formspec.dev/v1
kind: Entity
metadata: {name: split, module: bill-splitter}
spec: {version: v1, fields: [{name: amount, type: money}]}
"""
TEMPLATE = """\
pattern: night-market-stall
applies_to: [night market stall, pasar malam, lapak]
description: A small stall selling snacks in the evening.
probing_questions: ["Do you sell on credit?"]
candidate_entities: [{name: Product, characteristic: master}, {name: Sale, characteristic: transaction}]
"""


def write_module(
    root: Path, name: str = "bill-splitter", version: str = "1.0.0", description: str = "Split a bill."
) -> Path:
    folder = root / "vendors" / name
    (folder / "master" / "split").mkdir(parents=True, exist_ok=True)
    (folder / "module.yaml").write_text(MODULE.format(name=name, version=version, description=description))
    (folder / "master" / "split" / "entity.yaml").write_text(ENTITY)
    return folder


def run_import(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["registry", "import", *args], catch_exceptions=False)
    return result.exit_code, result.output


def test_import_of_a_project_folder_adds_modules_and_templates_then_reimport_changes_nothing(
    db_url: str, tmp_path: Path
) -> None:
    write_module(tmp_path)
    (tmp_path / "templates.yaml").write_text(TEMPLATE)
    code, out = run_import(str(tmp_path), "--db", db_url)
    assert code == 0, out
    assert "added     module bill-splitter" in out and "added     template night-market-stall" in out
    code, again = run_import(str(tmp_path), "--db", db_url)
    assert code == 0 and "0 added, 0 updated, 2 unchanged" in again
    with open_store(db_url) as store:
        module = store.get_module("bill-splitter")
        assert module is not None and module.trust_tier == "community"  # the file's own annotation is ignored
        assert module.checksum.startswith("sha256:") and len(module.checksum) == 71
        assert [h.module.name for h in store.search("patungan", limit=1)] == ["bill-splitter"]
        assert "night-market-stall" in {t.pattern for t in store.list_templates()}


def test_reimport_of_a_changed_module_updates_it_and_its_index(db_url: str, tmp_path: Path) -> None:
    write_module(tmp_path)
    assert run_import(str(tmp_path), "--db", db_url)[0] == 0
    write_module(tmp_path, version="1.1.0", description="Share one restaurant bill fairly.")
    code, out = run_import(str(tmp_path), "--db", db_url, "--trust-tier", "verified")
    assert code == 0 and "updated   module bill-splitter" in out
    with open_store(db_url) as store:
        module = store.get_module("bill-splitter")
        assert module is not None and module.version == "1.1.0" and module.trust_tier == "verified"
        assert [h.module.name for h in store.search("restaurant bill fairly", limit=1)] == ["bill-splitter"]


def test_lock_metadata_supplies_tier_source_and_checksum(db_url: str, tmp_path: Path) -> None:
    write_module(tmp_path)
    (tmp_path / "formspec.lock").write_text(
        textwrap.dedent("""\
        modules:
          - {source: "registry.example/acme/bill-splitter", name: bill-splitter, version: 0.9.0,
             checksum: "sha256:abc", trust_tier: verified, installed_at: "2026-11-01T10:00:00Z"}
        """)
    )
    assert run_import(str(tmp_path / "vendors"), "--db", db_url)[0] == 0
    with open_store(db_url) as store:
        module = store.get_module("bill-splitter")
    assert module is not None
    assert (module.trust_tier, module.source, module.checksum) == (
        "verified",
        "registry.example/acme/bill-splitter",
        "sha256:abc",
    )
    assert module.all_versions == ("1.0.0", "0.9.0")


def test_a_bad_file_is_named_and_nothing_is_written(db_url: str, tmp_path: Path) -> None:
    write_module(tmp_path, name="aaa-good")
    bad = write_module(tmp_path, name="zzz-bad") / "module.yaml"
    bad.write_text(bad.read_text().replace("category: payment", "category: 42"))
    with open_store(db_url) as store:
        before = store.module_names()
    code, out = run_import(str(tmp_path), "--db", db_url)
    assert code == 1
    assert str(bad) in out and "ai_index.category" in out and "Nothing was imported" in out
    with open_store(db_url) as store:
        assert store.module_names() == before and store.get_module("aaa-good") is None


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("kind: Module\nmetadata: {name: x}\nspec: {version: '1'}\n", "has no spec.ai_index"),
        ("key: [unclosed\n", "is not valid YAML"),
        ("- just\n- a list\n", "expected a mapping"),
        (
            "pattern: x-y\napplies_to: []\ndescription: d\nprobing_questions: [q]\ncandidate_entities: []\n",
            "applies_to",
        ),
        (
            "apiVersion: formspec.dev/v1\nkind: Entity\nmetadata: {name: e}\nspec: {}\n",
            "contains no Module document",
        ),
    ],
)
def test_invalid_files_get_a_clear_error(db_url: str, tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "input.yaml"
    path.write_text(content)
    code, out = run_import(str(path), "--db", db_url)
    assert code == 1 and message in out and str(path) in out


def test_the_same_module_in_two_files_is_refused(db_url: str, tmp_path: Path) -> None:
    write_module(tmp_path)
    copy = tmp_path / "copy" / "module.yaml"
    copy.parent.mkdir()
    copy.write_text((tmp_path / "vendors" / "bill-splitter" / "module.yaml").read_text())
    code, out = run_import(str(tmp_path), "--db", db_url)
    assert code == 1 and "also defined in" in out


def test_a_missing_path_or_unknown_database_scheme_is_a_clear_error(tmp_path: Path) -> None:
    code, out = run_import(str(tmp_path / "nope"), "--db", f"sqlite:///{tmp_path / 'r.db'}")
    assert code == 1 and "does not exist" in out
    code, out = run_import(str(tmp_path), "--db", "mysql://localhost/x")
    assert code == 1 and "Unsupported registry database URL" in out
