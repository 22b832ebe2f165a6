"""The domain model made from the specs (pure): Mermaid diagrams, markers, hand edits, changelog rules."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from formspec_consult.spec.owner_docs import (
    CHANGELOG,
    DOMAIN_MODEL,
    DocsError,
    NoEntities,
    block_status,
    check_doc,
    domain_model_part,
    fill_generated,
    refresh,
    regenerate,
)
from formspec_consult.spec.project import Project
from formspec_consult.spec.starter import starter_files
from tests.e2e.project import make_project

TODAY = date(2026, 12, 2)
BOOKING = """apiVersion: formspec.dev/v1
kind: Entity
metadata: {name: booking, module: shop}
spec:
  version: v1
  fields:
    - {name: guest, type: relation, required: true, relation: {type: belongs_to, resource: shop.guest}}
    - {name: status, type: enum, enum_values: [in-progress, end, done]}
  state_machine:
    field: status
    initial: in-progress
    transitions:
      - {from: "*", to: end, via: stop}
      - {from: in-progress, to: done, via: finish}
---
apiVersion: formspec.dev/v1
kind: Entity
metadata: {name: guest, module: shop}
spec:
  version: v1
  fields: [{name: name, type: string, required: true, unique: true}]
"""


@pytest.fixture
def project(tmp_path: Path) -> Project:
    root = make_project(tmp_path / "shop")
    (root / "spec" / "modules" / "shop" / "booking.yaml").write_text(BOOKING, encoding="utf-8")
    return Project(root)


def test_the_part_draws_entities_relations_and_each_lifecycle_with_safe_ids(project: Project) -> None:
    part = domain_model_part(project.documents())
    assert "erDiagram" in part and 'guest ||--o{ booking : "guest"' in part
    assert 'string name "required, unique"' in part and "relation guest FK" in part
    # the states come from the enum when `states` is absent; a hyphen or a keyword gets a labelled id
    assert 'state "in-progress" as s_in_progress' in part and 'state "end" as s_end' in part
    assert "[*] --> s_in_progress" in part and "s_in_progress --> s_end : stop" in part
    assert "done --> s_end : stop" in part and "s_end --> [*]" in part


def test_a_project_without_entities_of_its_own_has_no_domain_model(tmp_path: Path) -> None:
    root = tmp_path / "new"
    for rel, text in starter_files("Kedai Kopi", "kedai").items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    with pytest.raises(NoEntities, match="no entities yet"):
        domain_model_part(Project(root).documents())
    assert regenerate(Project(root).documents(), None, "Kedai").status == "no-entities"


def test_refresh_keeps_the_owners_text_and_refuses_a_hand_edit(project: Project) -> None:
    part = domain_model_part(project.documents())
    text = refresh("# Ours\n\nIntro.\n", part) + "\nAfter.\n"
    assert text.startswith("# Ours\n\nIntro.\n\n<!-- formspec-consult:generated begin sha256=")
    assert block_status(text, part) == "fresh" and block_status(text, part + "x") == "stale"
    assert refresh(text, part + "x").endswith("\nAfter.\n")
    edited = text.replace("erDiagram", "erDiagram\n    %% mine")
    assert block_status(edited, part) == "edited"
    with pytest.raises(DocsError, match="edited by hand"):
        refresh(edited, part)
    assert regenerate(project.documents(), edited, "Shop").status == "edited"
    with pytest.raises(DocsError, match="exactly one of each"):
        block_status(text + text, part)


def test_a_proposed_domain_model_gets_its_part_from_the_specs_and_its_gate_checks_it(project: Project) -> None:
    docs = project.documents()
    filled = fill_generated(DOMAIN_MODEL, "# Model\n\nNotes.\n", docs)
    assert check_doc(DOMAIN_MODEL, filled, None, docs, TODAY) == []
    [stale] = check_doc(DOMAIN_MODEL, "# Model\n", None, docs, TODAY)
    assert stale.code == "FS-DOCS-STALE" and "filled in from the specs" in stale.hint
    owner_edit = filled.replace("erDiagram", "erDiagram\n    %% mine")
    [kept] = check_doc(DOMAIN_MODEL, filled, owner_edit, docs, TODAY)  # the file on disk has the owner's edit
    assert kept.code == "FS-DOCS-EDITED"


def test_the_changelog_only_grows_and_its_new_entry_is_dated() -> None:
    before = "# Changelog\n\n## 2026-11-30 — first\n"
    assert check_doc(CHANGELOG, before + "\n## 2026-12-02 — email\n\nWhy. Files: x.yaml\n", before, [], TODAY) == []
    [dropped] = check_doc(CHANGELOG, "# Changelog\n\n## 2026-12-02 — email\n", before, [], TODAY)
    assert dropped.code == "FS-CHANGELOG-REWRITTEN"
    [undated] = check_doc(CHANGELOG, before + "\nAdded email.\n", before, [], TODAY)
    assert undated.code == "FS-CHANGELOG-UNDATED" and "2026-12-02" in undated.hint
    [future] = check_doc(CHANGELOG, before + "\n## 2027-01-01 — later\n", before, [], TODAY)
    assert future.code == "FS-CHANGELOG-UNDATED"
    entry = "## 2026-12-02 — email\n\nFiles: a.yaml\n"  # just the new entry: added at the end, or under a title
    assert fill_generated(CHANGELOG, entry, [], before) == before + "\n" + entry
    assert fill_generated(CHANGELOG, entry, [], None) == "# Changelog\n\n" + entry
    assert fill_generated(CHANGELOG, "# Mine\n", [], before) == "# Mine\n"  # a whole file is checked as it is
