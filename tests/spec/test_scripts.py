"""A hook or action running a script FormSpec cannot find is a warning that says where it must be."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from formspec_consult.spec import Project, ValidationResult

from .conftest import entity

FOLDER = "spec/modules/shop/master/draft"
DRAFT = f"{FOLDER}/entity.yaml"
HOOKED = ("  actions:\n    - {{name: close, impl: {{type: script_ref, ref: {action_ref}}}}}\n"
          "  hooks:\n    - {{on: before, action: create, impl: {{type: script_ref, ref: {hook_ref}}}}}\n")


def check(shop: Project, hook_ref: str = "fill_price", action_ref: str = "close_order") -> ValidationResult:
    return shop.validate(overlay={DRAFT: entity("draft", HOOKED.format(hook_ref=hook_ref, action_ref=action_ref))})


def missing(result: ValidationResult) -> list[tuple[str, str]]:
    return [(w.message, w.hint) for w in result.warnings if w.code == "FS-SCRIPT-MISSING"]


def test_scripts_that_do_not_exist_are_warned_about_with_the_path_expected(shop: Project) -> None:
    result = check(shop)
    found = missing(result)
    assert result.ok and len(found) == 2
    hook = next(hint for message, hint in found if "fill_price" in message)
    assert f"{FOLDER}/scripts/fill_price.star" in hook


def test_scripts_beside_the_entity_or_in_the_module_scripts_folder_are_found(
        shop: Project, write: Callable[[str, str], Path]) -> None:
    write(f"{FOLDER}/scripts/fill_price.star", "def main(ctx):\n    pass\n")
    write("spec/modules/shop/scripts/close_order.star", "def main(ctx):\n    pass\n")
    assert missing(check(shop, action_ref="shop/close_order")) == []


def test_a_ref_written_with_its_suffix_is_answered_with_the_ref_formspec_expects(
        shop: Project, write: Callable[[str, str], Path]) -> None:
    write(f"{FOLDER}/scripts/fill_price.star", "def main(ctx):\n    pass\n")
    hints = [hint for message, hint in missing(check(shop, hook_ref="fill_price.star")) if "fill_price" in message]
    assert hints == ["Write the ref without `.star`: `ref: fill_price` (FormSpec adds it)."]
