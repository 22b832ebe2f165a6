"""A `*_when` expression FormSpec's `check` refuses (a Form field's visible_when/readonly_when/
required_when/compute, a section's visible_when) is refused by the gate with its rewrite when a
mechanical one gets it into FormSpecExpr (`=` → `==`, and/or/not → && || !, a bare field name →
`fields.<name>`): the proposal rewritten literally as the hint says passes. An Entity field's
expression, which FormSpec leaves unchecked, stays a warning with the same advice; an action
input's, which FormSpec does not check at all, is not checked."""

from __future__ import annotations

import re
from typing import Any

import pytest
from mcp import Client

from tests.servers.conftest import call

pytestmark = pytest.mark.anyio

FORM_PATH = "modules/shop/master/customer/forms/edit.yaml"
FORM = """apiVersion: formspec.dev/v1
kind: Form
metadata: {{name: customer-edit, module: shop}}
spec:
  entity: customer
  mode: edit
  sections:
    - title: Contact
      fields:
        - {{field: full_name}}
        - field: email
          {key}: {value}
"""
ENTITY_PATH = "modules/shop/master/customer/entity.yaml"


async def propose(client: Client, path: str, content: str) -> dict[str, Any]:
    answer: dict[str, Any] = await call(client, "propose_spec_file", {"path": path, "content": content})
    return answer


def follow(content: str, hint: str) -> str:
    """The proposal with the key's value replaced by exactly what the hint says to write."""
    wanted = re.search(r"Write `(\w+): (\".*?\")`\.", hint)
    assert wanted, hint
    key, value = wanted.groups()
    line = re.search(rf"^(\s*){key}: .*$", content, re.M)
    assert line, (key, content)
    return content[:line.start()] + f"{line.group(1)}{key}: {value}" + content[line.end():]


@pytest.mark.parametrize(("key", "value"), [
    ("readonly_when", "\"marketing_opt_in = false\""),
    ("visible_when", "\"fields.marketing_opt_in = true and not phone\""),
    ("required_when", "\"fields.emial == ''\""),
    ("readonly_when", "\"full_name = 'x' or fields.phone = ''\""),
])
async def test_a_refused_form_expression_is_answered_with_a_rewrite_the_gate_accepts(
        client: Client, key: str, value: str) -> None:
    content = FORM.format(key=key, value=value)
    refused = await propose(client, FORM_PATH, content)
    problems = [p for p in refused["validation"]["problems"] if p["code"].startswith("FS-EXPR")]
    assert problems and refused["valid"] is False, refused["validation"]
    fixed = follow(content, problems[0]["hint"])
    again = await propose(client, FORM_PATH, fixed)
    assert again["valid"] is True, (fixed, again["validation"])


async def test_an_expression_with_no_mechanical_rewrite_gets_the_language_not_a_guess(client: Client) -> None:
    content = FORM.format(key="readonly_when", value="\"fields.email.lower() == 'x'\"")
    refused = await propose(client, FORM_PATH, content)
    (problem,) = [p for p in refused["validation"]["problems"] if p["code"] == "FS-EXPR-GRAMMAR"]
    assert "Write `" not in problem["hint"] and "calls to len, sum, amount, currency, today only" in problem["hint"]


async def test_an_entity_fields_expression_warns_with_the_rewrite_and_following_it_clears_the_warning(
        client: Client, project: Any) -> None:
    entity = (project / "spec" / ENTITY_PATH).read_text()
    content = entity.replace("    - {name: notes, type: text}\n",
                             "    - {name: notes, type: text, readonly_when: \"marketing_opt_in = false\"}\n")
    first = await propose(client, ENTITY_PATH, content)
    assert first["valid"] is True  # FormSpec does not check it: a warning, never a refusal
    (warning,) = [w for w in first["validation"]["warnings"] if w["code"] == "FS-ENTITY-EXPR"]
    assert "Write `readonly_when: \"fields.marketing_opt_in == false\"`." in warning["hint"]
    fixed = content.replace("\"marketing_opt_in = false\"", "\"fields.marketing_opt_in == false\"")
    again = await propose(client, ENTITY_PATH, fixed)
    assert not [w for w in again["validation"]["warnings"] if w["code"] == "FS-ENTITY-EXPR"]


async def test_an_action_inputs_expression_is_left_unchecked_as_formspec_leaves_it(
        client: Client, project: Any) -> None:
    entity = (project / "spec" / ENTITY_PATH).read_text()
    content = entity + ("  actions:\n    - name: close\n      params:\n        inputs:\n"
                        "          - {name: reason, type: string, readonly_when: \"status = 'x'\"}\n")
    result = await propose(client, ENTITY_PATH, content)
    codes = {p["code"] for p in result["validation"]["problems"] + result["validation"]["warnings"]}
    assert not {c for c in codes if "EXPR" in c}, result["validation"]
