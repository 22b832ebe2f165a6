"""Name availability and the module inventory."""

from __future__ import annotations

from pathlib import Path

from formspec_consult.spec import Project


def test_a_free_name_is_available(shop: Project) -> None:
    assert shop.naming_conflicts("invoice") == {"name": "invoice", "matches": [], "conflicts": [], "available": True}


def test_matches_cover_any_kind_and_module_case_insensitively(shop: Project) -> None:
    result = shop.naming_conflicts("APPOINTMENT")
    assert result["matches"] == [{"module": "booking", "kind": "Entity", "name": "appointment",
                                  "path": "spec/modules/booking/transaction/appointment/entity.yaml"}]
    assert not result["available"]


def test_conflicts_narrow_to_the_given_module_and_kind(shop: Project) -> None:
    assert shop.naming_conflicts("customer", module="booking", kind="Entity")["available"]
    assert not shop.naming_conflicts("customer", module="shop", kind="entity")["available"]
    assert shop.naming_conflicts("customer", module="shop", kind="Form")["available"]


def test_formspec_core_entity_names_are_reserved(shop: Project) -> None:
    result = shop.naming_conflicts("User", module="shop", kind="Entity")
    assert not result["available"]
    assert result["conflicts"][0]["module"] == "formspec.core"


def test_module_inventory_reports_source_activation_lock_and_ai_index(shop: Project) -> None:
    mods = {m.name: m.to_dict() for m in shop.modules()}
    assert set(mods) == {"shop", "booking", "sales", "loyalty"}
    loyalty = mods["loyalty"]
    assert loyalty["source"] == "vendors" and loyalty["read_only"] and loyalty["active"]
    assert loyalty["trust_tier"] == "community" and loyalty["version"] == "2.1.0"
    assert loyalty["lock"]["checksum"].startswith("sha256:")
    assert loyalty["ai_index"]["aliases"] == ["rewards"]
    assert mods["shop"]["source"] == "modules" and not mods["shop"]["read_only"] and mods["shop"]["lock"] is None


def test_inactive_module_is_reported_as_such(shop: Project, shop_dir: Path) -> None:
    app = shop_dir / "spec/apps/barbershop.yaml"
    app.write_text(app.read_text().replace("    - loyalty\n", "    # - loyalty\n"))
    assert {m.name: m.active for m in shop.modules()}["loyalty"] is False


def test_find_uses_identity_and_ignores_case(shop: Project) -> None:
    doc = shop.find("Shop", "ENTITY", "Customer")
    assert doc is not None and doc.rel == "spec/modules/shop/master/customer/entity.yaml"
    assert doc.data["spec"]["display_field"] == "full_name" and doc.text.startswith("apiVersion")
    assert shop.find("shop", "Entity", "nobody") is None
