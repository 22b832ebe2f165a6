"""A generated natural key's format renders a distinct key per record, as FormSpec's counter fills it."""

from __future__ import annotations

import pytest

from formspec_consult.spec import Project, ValidationResult

from .conftest import entity

DRAFT = "spec/modules/shop/master/draft/entity.yaml"
KEY = ("  fields:\n    - name: number\n      type: string\n      natural_key: true\n"
       "      natural_key_rule: {{strategy: {strategy}, format: '{fmt}', reset: {reset}}}\n")


def check(shop: Project, fmt: str, reset: str = "never", strategy: str = "sequence") -> ValidationResult:
    return shop.validate(overlay={DRAFT: entity("draft", KEY.format(fmt=fmt, reset=reset, strategy=strategy))})


def format_problems(result: ValidationResult) -> list[str]:
    return [p.hint for p in result.problems if p.code == "FS-NATURAL-KEY-FORMAT"]


@pytest.mark.parametrize(("broken", "fixed"), [
    ("INV-{year}-{seq:5}", "INV-{year}-{seq:05d}"),
    ("INV-{yyyy}-{seq}", "INV-{year}-{seq}"),
    ("INV-{year}", "INV-{year}-{counter:04d}"),
    ("{customer}-{seq}", "C-{seq}"),
])
def test_a_format_formspec_cannot_render_per_record_is_refused_and_the_fixed_one_passes(
        shop: Project, broken: str, fixed: str) -> None:
    assert format_problems(check(shop, broken, reset="yearly" if "{year}" in broken else "never"))
    assert format_problems(check(shop, fixed, reset="yearly" if "{year}" in fixed else "never")) == []


def test_a_padded_counter_written_the_wrong_way_is_answered_with_the_right_spelling(shop: Project) -> None:
    assert format_problems(check(shop, "Q-{day}-{seq:3}", reset="daily")) == [
        "Write `{seq:03d}` for a counter padded to 3 digits (or `{seq}` unpadded)."]


def test_a_custom_key_has_no_format_to_render(shop: Project) -> None:
    assert format_problems(check(shop, "anything {here}", strategy="custom")) == []
