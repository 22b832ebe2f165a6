"""The draft store of a session folder: manifest, status, overlay, pruning."""

from __future__ import annotations

from pathlib import Path

import pytest

from formspec_consult.store.drafts import DraftStore, Roots
from formspec_consult.store.folder import ensure_session

REL = "modules/shop/item.yaml"


@pytest.fixture
def store(tmp_path: Path) -> DraftStore:
    (tmp_path / "spec" / "modules" / "shop").mkdir(parents=True)
    _, folder = ensure_session(tmp_path / ".formspec" / "consult", "s1")
    return DraftStore(folder, Roots(tmp_path, tmp_path / "spec", tmp_path / "overrides"))


def test_a_draft_records_the_target_hash_and_reports_status(store: DraftStore) -> None:
    target = store.roots.project_root / "spec" / REL
    target.write_text("a: 1\n")
    spec_path = store.roots.resolve(REL)
    store.write(spec_path, "a: 1\n")
    assert store.info(spec_path).status == "unchanged"
    store.write(spec_path, "a: 2\n")
    info = store.info(spec_path)
    assert (info.status, info.target_changed) == ("modified", False)
    target.write_text("a: 3\n")
    assert store.info(spec_path).target_changed is True
    assert store.overlay() == {"spec/" + REL: "a: 2\n"}


def test_a_draft_dropped_in_by_hand_has_no_known_target_state(store: DraftStore) -> None:
    file = store.draft_file(REL)
    file.parent.mkdir(parents=True)
    file.write_text("a: 1\n")
    assert store.rels() == [REL]
    assert store.info(store.roots.resolve(REL)).target_changed is None


def test_files_that_break_the_path_rules_are_never_overlaid(store: DraftStore) -> None:
    sneaky = store.draft_dir / "vendors" / "x" / "a.yaml"
    sneaky.parent.mkdir(parents=True)
    sneaky.write_text("a: 1\n")
    assert store.overlay() == {} and store.spec_paths() == []


def test_removing_a_draft_prunes_empty_folders_and_its_record(store: DraftStore) -> None:
    store.write(store.roots.resolve(REL), "a: 1\n")
    store.remove(REL)
    assert store.rels() == [] and store.record(REL) is None
    assert list(store.draft_dir.iterdir()) == []


def test_a_corrupt_manifest_counts_as_empty(store: DraftStore) -> None:
    store.write(store.roots.resolve(REL), "a: 1\n")
    (store.folder / "drafts.json").write_text("{not json")
    assert store.record(REL) is None
    store.write(store.roots.resolve(REL), "a: 2\n")
    assert store.record(REL) is not None
