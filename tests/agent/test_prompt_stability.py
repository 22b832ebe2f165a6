"""The fixed prefix (system prompt + tool declarations) is byte-identical across every request of a
phase, so a provider's prompt cache holds: a scripted consultation is recorded request by request —
the reply language detected at the owner's second message, a business template read, skills read,
drafts proposed and listed, the language switched with /language mid-Draft — and the prefix changes
exactly once, at the first draft (the Draft phase's tools). A language set after the phase's prompt
was sent reaches the model as one line of the next user message instead."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from formspec_consult.agent.engine.engine import Engine, EngineOptions
from formspec_consult.commands.wiring import server_specs
from formspec_consult.providers import ScriptedProvider
from tests.e2e.project import CUSTOMER, DRAFT_PATH, MODULE

pytestmark = pytest.mark.anyio


def calls(*pairs: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments} for name, arguments in pairs]}


REPLIES = [
    "Halo! Usaha Anda bergerak di bidang apa?",
    calls(("get_business_template", {"pattern": "retail-pos"})),
    calls(("read_skill", {"name": "entity-authoring"}), ("list_kind_schemas", {"kind": "Entity"})),
    "Baik. Produk apa saja yang Anda jual?",
    calls(("propose_spec_file", {"path": DRAFT_PATH, "content": CUSTOMER})),
    calls(("list_drafts", {}), ("validate_project", {})),
    "Draf pelanggan siap diperiksa.",
    calls(("propose_spec_file", {"path": "modules/shop/module.yaml", "content": MODULE})),
    "Draf modul siap diperiksa.",
    "Sure, I will continue in English.",
]
OWNER = [
    "halo",
    "Kami menjual biji kopi dan alat seduh di toko kecil di Malang, pelanggan tetap banyak sekali.",
    "Pelanggan dulu ya, catat nama dan nomor teleponnya.",
    "Sekarang modulnya juga.",
    "/language en",
    "Please go on in English from now on, what comes next?",
]


class Recording(ScriptedProvider):
    """Records each request's system prompt and tool declarations, as sent."""

    prefixes: list[tuple[str, str]]

    def stream(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> Any:
        self.prefixes.append((str(messages[0]["content"]), json.dumps(tools, ensure_ascii=False)))
        return super().stream(messages, tools)


async def consult(project: Path) -> Recording:
    provider = Recording(list(REPLIES))
    provider.prefixes = []
    engine = await Engine.open(EngineOptions(project=project, provider=provider, in_memory_server=True,
                                             servers=server_specs))

    async def allow(_request: Any) -> Any:
        return "allow_once"

    engine.set_approver(allow)
    try:
        with anyio.fail_after(120):
            for text in OWNER:
                async for _ in engine.run_turn(text):
                    pass
    finally:
        await engine.aclose()
    return provider


async def test_the_prefix_is_byte_identical_within_each_phase_and_changes_once_at_the_first_draft(
        project: Path) -> None:
    provider = await consult(project)
    prefixes, requests = provider.prefixes, provider.requests
    assert len(prefixes) == len(REPLIES)
    first_draft = next(i for i, messages in enumerate(requests)
                       if any(m.get("role") == "tool" for m in messages)
                       and any(c["function"]["name"] == "propose_spec_file"
                               for m in messages for c in m.get("tool_calls") or []))
    discovery, drafting = prefixes[:first_draft], prefixes[first_draft:]
    assert len(discovery) >= 4 and len(drafting) >= 5
    assert all(p == discovery[0] for p in discovery), [i for i, p in enumerate(discovery) if p != discovery[0]]
    assert all(p == drafting[0] for p in drafting), [i for i, p in enumerate(drafting) if p != drafting[0]]
    assert discovery[0][0] != drafting[0][0] and discovery[0][1] != drafting[0][1]  # the one change


async def test_a_language_set_after_the_prompt_was_sent_is_told_once_in_the_next_message(project: Path) -> None:
    provider = await consult(project)
    system = [p[0] for p in provider.prefixes]
    assert "Reply in the language the person writes in" in system[0]  # "halo" says no language
    assert "Write every reply in Indonesian" in system[-1]  # the Draft phase's prompt names it
    users = [str(m["content"]) for m in provider.requests[-1] if m.get("role") == "user"]
    told = [text.split("\n")[0] for text in users if "language is now" in text]
    assert told == ["[This session's language is now Indonesian: write every reply in Indonesian, whatever "
                    "language tool results, skills or files are in.]",
                    "[This session's language is now English: write every reply in English, whatever "
                    "language tool results, skills or files are in.]"]
