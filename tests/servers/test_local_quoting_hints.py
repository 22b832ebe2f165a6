"""An unquoted value the YAML reader takes for a mapping (`label: {x}`, `computed: {qty * price}`) or
breaks on (`title: Nama: lengkap`, `a: b: c`) is answered with its quoted form, never "remove the
key": the proposal rewritten literally as the hint says passes the gate (through propose_spec_file)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from mcp import Client

from tests.servers.conftest import call

pytestmark = pytest.mark.anyio

PATH = "modules/shop/master/rental/entity.yaml"
HEAD = """apiVersion: formspec.dev/v1
kind: Entity
metadata: {name: rental, module: shop}
spec:
  version: v1
  characteristic: master
  fields:
    - {name: qty, type: integer}
    - {name: price, type: decimal}
    - {name: status, type: string}
"""


async def problems_of(client: Client, content: str) -> list[dict[str, Any]]:
    result = await call(client, "propose_spec_file", {"path": PATH, "content": content})
    return [p for p in result["validation"]["problems"] if p["source"].endswith(PATH)]


def follow(content: str, hint: str) -> str:
    """The proposal rewritten exactly as the hint says (a line, or the value the hint quotes)."""
    line = re.search(r"Write line (\d+) as `(.+)`\.", hint)
    if line:
        lines = content.split("\n")
        number = int(line.group(1)) - 1
        indent = lines[number][: len(lines[number]) - len(lines[number].lstrip())]
        lines[number] = indent + line.group(2)
        return "\n".join(lines)
    value = re.search(r"Unquoted, `(.+?)` is YAML for a mapping .*Write `(\w+): (.+)` \(quoted\) instead\.", hint)
    assert value, hint
    written = f"{value.group(2)}: {value.group(1)}"
    assert content.count(written) == 1, (written, content)
    return content.replace(written, f"{value.group(2)}: {value.group(3)}")


@pytest.mark.parametrize("body", [
    "    - {name: note, type: string, description: {Nama pelanggan}}\n",
    "    - name: total\n      type: decimal\n      computed: {qty * price}\n",
    "  state_machine:\n    field: status\n    initial: waiting\n    states:\n      - name: waiting\n"
    "        label: {Menunggu}\n",
    "    - name: note\n      type: string\n      title: Nama: lengkap\n",
    "    - name: note\n      type: string\n      title: a: b: c\n",
    "    - {name: note, type: string, title: Nama: lengkap}\n",
], ids=["flow-description", "computed", "state-label", "colon-block", "a-b-c", "colon-flow"])
async def test_following_the_quoting_hint_literally_passes_the_gate(client: Client, body: str) -> None:
    content = HEAD + body
    problems = await problems_of(client, content)
    assert problems
    for problem in problems:
        assert "Remove or rename" not in problem["hint"] and "quoted" in problem["hint"], problem
    fixed = follow(content, problems[0]["hint"])
    assert await problems_of(client, fixed) == [], fixed


async def test_a_list_item_is_answered_with_the_item_quoted(client: Client) -> None:
    content = HEAD + "    - {name: stage, type: enum, enum_values: [{Baru}, selesai]}\n"
    (problem,) = await problems_of(client, content)
    item = re.search(r"Write the list item as `(.+?)` \(quoted\) instead\.", problem["hint"])
    assert item, problem
    assert await problems_of(client, content.replace("{Baru}", item.group(1))) == []
