"""Overlay validation is in memory; the parse cache follows file changes."""

from __future__ import annotations

import os
from pathlib import Path

from formspec_consult.spec import Project

from .conftest import entity, snapshot

CUSTOMER = "spec/modules/shop/master/customer/entity.yaml"


def test_overlay_replaces_a_file_in_memory_only(shop: Project, shop_dir: Path) -> None:
    before = snapshot(shop_dir)
    broken = (shop_dir / CUSTOMER).read_text().replace("display_field: full_name", "display_field: nickname")
    result = shop.validate(overlay={CUSTOMER: broken})
    assert result.codes() == ["FS-DISPLAY-FIELD"]
    assert snapshot(shop_dir) == before
    assert shop.validate().ok


def test_overlay_none_treats_a_file_as_deleted(shop: Project) -> None:
    result = shop.validate(overlay={CUSTOMER: None})
    assert "FS-RELATION-RESOURCE" in result.codes()  # appointment and sale point at shop.customer
    assert all(d.rel != CUSTOMER for d in shop.documents(overlay={CUSTOMER: None}))


def test_overlay_adds_a_new_file_and_accepts_dot_slash_keys(shop: Project) -> None:
    docs = shop.documents(overlay={"./spec/modules/shop/master/tag/entity.yaml": entity("tag", "  fields: []\n")})
    assert any(d.name == "tag" and d.rel == "spec/modules/shop/master/tag/entity.yaml" for d in docs)


def test_overlay_paths_may_not_escape_the_project(shop: Project) -> None:
    for bad in ("../outside.yaml", "/etc/passwd.yaml"):
        try:
            shop.validate(overlay={bad: "a: 1"})
        except ValueError as exc:
            assert "relative to the project root" in str(exc)
        else:  # pragma: no cover - the assertion documents the failure
            raise AssertionError(f"{bad} was accepted")


def test_parse_cache_notices_a_changed_file(shop: Project, shop_dir: Path) -> None:
    assert shop.validate().ok
    path = shop_dir / CUSTOMER
    path.write_text(path.read_text().replace("full_name", "fullname", 1))
    assert shop.validate().codes() == ["FS-DISPLAY-FIELD"]


def test_parse_cache_notices_a_same_size_change_with_a_new_mtime(shop: Project, shop_dir: Path) -> None:
    path = shop_dir / CUSTOMER
    original = path.read_text()
    assert shop.validate().ok
    st = path.stat()
    path.write_text(original.replace("display_field: full_name", "display_field: full_nam_"))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    assert shop.validate().codes() == ["FS-DISPLAY-FIELD"]


def test_parse_cache_reuses_unchanged_files(shop: Project) -> None:
    first = {d.rel: d for d in shop.documents()}
    second = {d.rel: d for d in shop.documents()}
    assert all(first[rel] is second[rel] for rel in first)


def test_deleted_and_added_files_are_picked_up(shop: Project, shop_dir: Path) -> None:
    shop.validate()
    (shop_dir / "spec/modules/shop/master/service/entity.yaml").unlink()
    assert "FS-RELATION-RESOURCE" in shop.validate().codes()


def test_validate_text_checks_one_document_in_the_context_of_the_tree(shop: Project) -> None:
    text = entity("invoice", "  fields:\n    - {name: c, type: relation, relation: {type: belongs_to, resource: "
                  "shop.customer}}\n    - {name: s, type: relation, relation: {type: belongs_to, resource: "
                  "shop.nothing}}\n", module="shop")
    result = shop.validate_text(text)
    assert result.codes() == ["FS-RELATION-RESOURCE"]
    assert result.problems[0].source == "<input>" and result.problems[0].line == 8


def test_validate_text_of_an_existing_identity_is_checked_as_its_replacement(shop: Project, shop_dir: Path) -> None:
    text = (shop_dir / CUSTOMER).read_text().replace("- {name: notes, type: text}", "- {name: vip, type: boolean}")
    result = shop.validate_text(text)
    assert result.ok
    assert [w.code for w in result.warnings] == ["FS-IDENTITY-REPLACES"]
    assert CUSTOMER in result.warnings[0].message


def test_validate_text_with_a_path_stands_in_for_that_file(shop: Project) -> None:
    result = shop.validate_text(entity("tag", "  fields: []\n", module="shop"),
                                source="spec/modules/shop/master/tag/entity.yaml")
    assert result.ok and result.warnings == []


def test_validate_text_reports_parse_errors_against_input(shop: Project) -> None:
    result = shop.validate_text("kind: [")
    assert result.to_dict()["problems"][0]["source"] == "<input>"
    assert result.problems[0].layer == "parse"
