"""Cross-document rules: references, module graph, identity, overrides and the lock."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from formspec_consult.spec import Project, ValidationResult

from .conftest import entity

DRAFT = "spec/modules/booking/transaction/draft/entity.yaml"


def check(shop: Project, text: str, rel: str = DRAFT) -> ValidationResult:
    return shop.validate(overlay={rel: text})


def relation(resource: str) -> str:
    return f"  fields:\n    - {{name: r, type: relation, relation: {{type: belongs_to, resource: {resource}}}}}\n"


@pytest.mark.parametrize("resource", ["shop.customer", "shop/customer", "appointment", "booking.appointment",
                                      "formspec.core.user", "formspec.core/role", "SHOP.Customer"])
def test_relation_resources_that_resolve_pass(shop: Project, resource: str) -> None:
    result = check(shop, entity("draft", relation(resource), module="booking"))
    assert result.ok, [(p.code, p.message) for p in result.problems]


@pytest.mark.parametrize(("resource", "code"), [
    ("shop.client", "FS-RELATION-RESOURCE"),
    ("customer", "FS-RELATION-RESOURCE"),  # bare name = same module (booking has no customer)
    ("nowhere.thing", "FS-RELATION-RESOURCE"),
    ("formspec.core.invoice", "FS-RELATION-RESOURCE"),
])
def test_relation_resources_that_do_not_resolve_fail_with_a_hint(shop: Project, resource: str, code: str) -> None:
    result = check(shop, entity("draft", relation(resource), module="booking"))
    problem = next(p for p in result.problems if p.code == code)
    assert resource in problem.message
    assert problem.line == 7
    if code.endswith("DEPENDS"):
        assert "depends" in problem.hint and "sales" in problem.hint


def test_a_reference_into_a_module_not_depended_on_is_advice_not_a_block(shop: Project) -> None:
    result = check(shop, entity("draft", relation("sales.sale"), module="booking"))
    assert result.ok  # FormSpec resolves references without looking at depends
    warning = next(w for w in result.warnings if w.code == "FS-RELATION-RESOURCE-DEPENDS")
    assert warning.line == 7 and "depends" in warning.hint and "sales" in warning.hint


def test_extend_storage_target_must_exist_and_be_depended_on(shop: Project) -> None:
    ext = "  extend_storage: {{target: {}, namespace: extra_bits}}\n  fields:\n    - {{name: extra, type: string}}\n"
    assert "FS-EXTEND-TARGET" in check(shop, entity("x", ext.format("loyalty/missing"), "sales")).codes()
    undepended = check(shop, entity("x", ext.format("loyalty/loyalty_card"), "booking"))
    assert undepended.ok and "FS-EXTEND-TARGET-DEPENDS" in {w.code for w in undepended.warnings}
    assert check(shop, entity("x", ext.format("loyalty/loyalty_card"), "sales")).ok
    assert check(shop, entity("x", ext.format("loyalty.loyalty_card"), "sales")).codes() == ["FS-EXTEND-TARGET-FORMAT"]


def test_form_entity_must_exist(shop: Project) -> None:
    form = ("apiVersion: formspec.dev/v1\nkind: Form\nmetadata: {{name: f, module: shop}}\n"
            "spec: {{entity: {}, sections: [{{title: S, fields: [{{field: full_name}}]}}]}}\n")
    rel = "spec/modules/shop/forms/f.yaml"
    assert "FS-VIEW-ENTITY" in check(shop, form.format("invoice"), rel).codes()
    assert check(shop, form.format("customer"), rel).ok


def test_form_fields_must_exist_on_the_entity_and_table_columns_only_warn(shop: Project) -> None:
    rel = "spec/modules/shop/forms/f.yaml"
    form = ("apiVersion: formspec.dev/v1\nkind: Form\nmetadata: {{name: f, module: shop}}\nspec:\n"
            "  entity: customer\n  sections:\n    - {{title: S, fields: [{{field: full_name}}, {fields}]}}\n")
    problem = next(p for p in check(shop, form.format(fields="{field: nickname}"), rel).problems if p.code == "FS-VIEW-FIELD")
    assert "'nickname'" in problem.message and "full_name" in problem.hint and problem.line == 7
    assert check(shop, form.format(fields="{field: phone}"), rel).ok
    # FormSpec's check compares a form field with the entity's declared fields, exactly
    for listed in ("{field: email.domain}", "{field: created_at}"):
        assert "FS-VIEW-FIELD" in check(shop, form.format(fields=listed), rel).codes(), listed
    table = ("apiVersion: formspec.dev/v1\nkind: Table\nmetadata: {name: t, module: shop}\n"
             "spec: {entity: service, columns: [{field: title}, {field: cost}]}\n")
    result = check(shop, table, rel)
    assert result.ok and "FS-VIEW-COLUMN" in [w.code for w in result.warnings]


def test_fields_added_by_an_entity_extension_may_be_listed(shop: Project, shop_dir: Path) -> None:
    rel = "overrides/loyalty/loyalty_card-edit.yaml"
    text = (shop_dir / rel).read_text().replace("{field: points}]", "{field: points}, {field: favourite_barber}]")
    assert check(shop, text, rel).ok
    assert "FS-VIEW-FIELD" in check(shop, text.replace("favourite_barber", "favourite_colour"), rel).codes()


def module(name: str, depends: str = "") -> str:
    return f"apiVersion: formspec.dev/v1\nkind: Module\nmetadata: {{name: {name}}}\nspec:\n  version: '1'\n{depends}"


def test_module_depends_on_a_missing_module_warns_because_formspec_does_not_check_it(shop: Project) -> None:
    rel = "spec/modules/extra/module.yaml"
    bad = check(shop, module("extra", "  depends:\n    - module: billing\n"), rel)
    assert bad.ok, bad.codes()
    problem = next(p for p in bad.warnings if p.code == "FS-MODULE-DEPENDS")
    assert "'billing'" in problem.message and "shop" in problem.hint and problem.line == 7
    assert "FS-MODULE-SELF-DEPEND" in [w.code for w in check(shop, module("extra", "  depends:\n    - module: extra\n"), rel).warnings]
    assert check(shop, module("extra", "  depends:\n    - module: shop\n    - module: formspec.core\n"), rel).ok


def test_app_modules_must_exist(shop: Project, shop_dir: Path) -> None:
    rel = "spec/apps/barbershop.yaml"
    text = (shop_dir / rel).read_text()
    bad = check(shop, text.replace("    - sales\n", "    - sales\n    - payroll\n"), rel)
    problem = next(p for p in bad.problems if p.code == "FS-APP-MODULE")
    assert "'payroll'" in problem.message and problem.line == 16


def test_menu_items_must_name_existing_modules(shop: Project, shop_dir: Path) -> None:
    rel = "spec/apps/barbershop.yaml"
    text = (shop_dir / rel).read_text().replace("module: booking\n", "module: bookings\n")
    assert "FS-MENU-MODULE" in check(shop, text, rel).codes()


def test_identity_is_metadata_not_file_name(shop: Project) -> None:
    # a second file, any name, declaring shop/Entity/customer collides with the existing one
    dup = entity("customer", "  fields: []\n", module="shop")
    result = check(shop, dup, "spec/modules/shop/elsewhere/whatever.yaml")
    flagged = {p.source: p for p in result.problems if p.code == "FS-IDENTITY-DUPLICATE"}
    assert set(flagged) == {"spec/modules/shop/elsewhere/whatever.yaml", "spec/modules/shop/master/customer/entity.yaml"}
    assert "spec/modules/shop/master/customer/entity.yaml:1" in flagged["spec/modules/shop/elsewhere/whatever.yaml"].message
    # the same file name in another module (or another kind) is fine
    assert check(shop, entity("customer", "  fields: []\n", module="booking")).ok


def test_identity_comparison_ignores_case(shop: Project) -> None:
    result = check(shop, entity("Customer", "  fields: []\n", module="shop"), "spec/modules/shop/c2.yaml")
    assert "FS-IDENTITY-DUPLICATE" in result.codes()


def test_entity_without_a_module_is_refused(shop: Project) -> None:
    text = "apiVersion: formspec.dev/v1\nkind: Entity\nmetadata: {name: loose}\nspec: {version: v1}\n"
    assert "FS-MODULE-UNKNOWN" in check(shop, text, "spec/loose.yaml").codes()
    assert "FS-MODULE-UNDECLARED" in check(shop, entity("x", "", module="ghost"), "spec/x.yaml").codes()


OVERRIDE = "overrides/loyalty/{}.yaml"


def test_override_of_a_vendor_form_shadows_it(shop: Project) -> None:
    found = shop.find("loyalty", "FORM", "loyalty_card-edit")
    assert found is not None and found.origin == "overrides" and not found.read_only
    assert shop.validate().ok


def test_override_of_an_entity_is_refused_pointing_to_entity_extension(shop: Project, shop_dir: Path) -> None:
    text = (shop_dir / "vendors/loyalty/master/loyalty_card/entity.yaml").read_text()
    result = check(shop, text, OVERRIDE.format("card"))
    problem = next(p for p in result.problems if p.code == "FS-OVERRIDE-KIND")
    assert "extend_storage" in problem.hint
    (shop_dir / OVERRIDE.format("card")).write_text(text)
    found = shop.find("loyalty", "Entity", "loyalty_card")
    assert found is not None and found.origin == "vendors", "a refused override is not the effective document"


def test_override_must_match_an_existing_vendor_document(shop: Project) -> None:
    text = ("apiVersion: formspec.dev/v1\nkind: Form\nmetadata: {name: nope, module: loyalty}\n"
            "spec: {entity: loyalty_card}\n")
    assert "FS-OVERRIDE-TARGET" in check(shop, text, OVERRIDE.format("nope")).codes()


def test_vendor_drift_and_unlocked_vendors_are_warnings(shop: Project, shop_dir: Path,
                                                        write: Callable[[str, str], Path]) -> None:
    path = shop_dir / "vendors/loyalty/module.yaml"
    path.write_text(path.read_text() + "# edited by hand\n")
    write("vendors/stray/module.yaml", module("stray"))
    result = shop.validate()
    assert result.ok
    codes = {w.code for w in result.warnings}
    assert {"FS-LOCK-CHECKSUM", "FS-VENDOR-UNLOCKED"} <= codes


def test_lock_entry_without_vendor_folder_is_a_warning(shop_dir: Path, shop: Project) -> None:
    lock = shop_dir / "formspec.lock"
    lock.write_text(lock.read_text() + "  - {source: x, name: payroll, version: 1.0.0, trust_tier: official}\n")
    assert "FS-LOCK-MISSING" in [w.code for w in shop.validate().warnings]


def test_problems_inside_read_only_vendor_files_do_not_block_the_project(shop: Project, shop_dir: Path) -> None:
    path = shop_dir / "vendors/loyalty/master/loyalty_card/entity.yaml"
    path.write_text(path.read_text().replace("display_field: card_number", "display_field: nope"))
    result = shop.validate()
    assert result.ok
    demoted = next(w for w in result.warnings if w.code == "FS-DISPLAY-FIELD")
    assert demoted.message.startswith("[read-only vendor module]") and "overrides/" in demoted.hint


@pytest.mark.parametrize(("resource", "suggestion"), [
    ("shop.customers", "`shop.customer`"),
    ("booking.customer", "`shop.customer`"),
    ("formspec.core.users", "`formspec.core.user`"),
])
def test_unresolved_relation_suggests_the_nearest_entity(shop: Project, resource: str, suggestion: str) -> None:
    result = check(shop, entity("draft", relation(resource), module="booking"))
    problem = next(p for p in result.problems if p.code == "FS-RELATION-RESOURCE")
    assert problem.hint.startswith("Did you mean") and suggestion in problem.hint


def test_child_table_entity_must_exist(shop: Project) -> None:
    body = ("  fields:\n    - name: lines\n      type: child\n"
            "      child: {{storage: table, entity: {}, fields: [{{name: qty, type: integer}}]}}\n")
    bad = check(shop, entity("draft", body.format("booking.line"), module="booking"))
    assert "FS-CHILD-ENTITY" in bad.codes()
    assert check(shop, entity("draft", body.format("appointment"), module="booking")).ok


def test_lock_with_unknown_trust_tier_or_unreadable_lock_warns(shop: Project, shop_dir: Path) -> None:
    lock = shop_dir / "formspec.lock"
    original = lock.read_text()
    lock.write_text(original.replace("trust_tier: community", "trust_tier: blessed"))
    assert "FS-LOCK-TRUST-TIER" in [w.code for w in shop.validate().warnings]
    lock.write_text("modules: [unclosed\n")
    result = shop.validate()
    assert result.ok and "FS-LOCK-INVALID" in [w.code for w in result.warnings]
    assert shop.lock() is None
    assert {m.name: m.trust_tier for m in shop.modules()}["loyalty"] is None


@pytest.mark.parametrize("resource", ["customer_note", "shop.customer_note", "vip_customer"])
def test_an_unresolved_relation_never_suggests_an_entity_its_name_merely_extends(shop: Project, resource: str) -> None:
    """`customer_note` is another entity (often one still to be proposed), not a misspelt `customer`."""
    result = check(shop, entity("draft", relation(resource), module="shop"))
    problem = next(p for p in result.problems if p.code == "FS-RELATION-RESOURCE")
    assert "Did you mean" not in problem.hint
    assert f"Create the entity `{resource.rsplit('.', 1)[-1]}`" in problem.hint


def test_a_bare_reference_is_answered_with_a_bare_name_in_the_same_module(shop: Project) -> None:
    result = check(shop, entity("draft", relation("customers"), module="shop"))
    problem = next(p for p in result.problems if p.code == "FS-RELATION-RESOURCE")
    assert problem.hint.startswith("Did you mean `customer`?") and "`kind: Entity`" in problem.hint
