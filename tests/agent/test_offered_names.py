"""No text the model is sent names a tool its request does not offer: the system prompt (every
partial), the tool declarations, and every tool result it reads (the local server's answers and
refusals, the gate's hints, the skills read with read_skill), per phase (Discovery, Draft, Iterate) and mode
(the TUI with someone to ask, headless, permissions denied). A result may name the tool that
produced it (the model called it). The bundled skills can be read in any phase and mode, so they
name only tools every request offers."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from formspec_consult.agent.engine.engine import Engine, EngineOptions
from formspec_consult.agent.loop.permissions import PermissionRequest
from formspec_consult.commands.wiring import server_specs
from formspec_consult.providers import ScriptedProvider
from formspec_consult.servers.local import create_local_server
from formspec_consult.spec.skills import all_skills
from formspec_consult.store.events import EventLog
from tests.e2e.project import CUSTOMER, DRAFT_PATH, MODULE

pytestmark = pytest.mark.anyio

REGISTRY_TOOLS = {"list_business_templates", "get_business_template", "search_modules_registry", "get_module_detail"}
# Offered in every phase and mode (checked below against every request of every run).
EVERY_REQUEST = {"propose_spec_file", "list_kind_schemas", "read_module_spec", "check_naming_conflict", "read_skill",
                 "read_transcript", "search_modules_registry", "get_module_detail"}
BROKEN = CUSTOMER.replace("name: customer", "name: visit").replace(
    "    - {name: phone, type: string}\n",
    "    - {name: phone, type: string, colour: red}\n"
    "    - {name: pet, type: relation, relation: {type: belongs_to, resource: pet_owner}}\n",
)


def calls(*pairs: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments} for name, arguments in pairs]}


SKILLS = [skill.name for skill in all_skills(None)]
REPLIES = [
    calls(*(("read_skill", {"name": name}) for name in SKILLS),
          ("read_skill", {"name": "no-such-skill"}),
          ("read_module_spec", {"module": "shop", "kind": "Entity", "name": "ghost"}),
          ("read_module_spec", {"module": "nowhere", "kind": "Entity", "name": "ghost"}),
          ("check_naming_conflict", {"name": "customer"}),
          ("read_transcript", {"query": "hi"})),
    "What do you sell?",
    calls(("propose_spec_file", {"path": "modules/shop/master/visit/entity.yaml", "content": BROKEN}),
          ("propose_spec_file", {"path": DRAFT_PATH, "content": CUSTOMER}),
          ("propose_spec_file", {"path": "modules/shop/module.yaml", "content": MODULE}),
          ("list_drafts", {})),
    calls(("apply_draft", {"file": DRAFT_PATH}), ("reject_draft", {"path": "modules/shop/module.yaml"})),
    "The customer is ready for your review.",
]
MODES = {
    "tui": (True, None),
    "headless": (False, None),
    "denied": (True, {"default": "deny"}),
}


async def every_tool(project: Path) -> set[str]:
    async with Client(create_local_server(project)) as client:
        local = {tool.name for tool in (await client.list_tools()).tools}
    return local | REGISTRY_TOOLS


def pattern(names: set[str]) -> re.Pattern[str]:
    return re.compile(r"\b(" + "|".join(sorted(map(re.escape, names), key=len, reverse=True)) + r")\b")


def named(text: str, names: re.Pattern[str]) -> set[str]:
    return set(names.findall(text))


async def allow_once(_request: PermissionRequest) -> Any:
    return "allow_once"


ITERATE_REPLIES = [
    "Which level is the change at?\nA) business\nB) design\nC) field",
    calls(("read_module_spec", {"module": "shop", "kind": "Entity", "name": "customer"}),
          ("propose_spec_file", {"path": DRAFT_PATH, "content": CUSTOMER.replace("phone", "mobile")}),
          ("propose_spec_file", {"path": "docs/overview.md", "content": "# Toko\n\nKami jual kopi.\n"}),
          ("propose_spec_file", {"path": "docs/domain-model.md", "content": "# Model\n"}),
          ("propose_spec_file", {"path": "docs/changelog.md", "content": "# Changelog\n\nmobile\n"}),
          ("propose_spec_file", {"path": "docs/notes.txt", "content": "x"}),
          ("list_drafts", {})),
    calls(("apply_draft", {"file": "docs/overview.md"}), ("reject_draft", {"path": "docs/changelog.md"})),
    "The changed customer and the domain model are ready for your review.",
]
ITERATE_RULE = "Iterate (the phase you are in now)"


async def run(project: Path, someone_to_ask: bool, replies: list[Any] = REPLIES) -> tuple[Engine, ScriptedProvider]:
    provider = ScriptedProvider(list(replies))
    engine = await Engine.open(
        EngineOptions(project=project, provider=provider, in_memory_server=True, servers=server_specs)
    )
    if someone_to_ask:
        engine.set_approver(allow_once)
    try:
        with anyio.fail_after(60):
            for text in ("hi", "customers"):
                async for _ in engine.run_turn(text):
                    pass
    finally:
        await engine.aclose()
    return engine, provider


@pytest.mark.parametrize("mode", list(MODES))
async def test_no_request_names_a_tool_it_does_not_offer(
    project: Path, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    assert await stray_names(project, monkeypatch, mode, REPLIES) == {"discovery", "draft"}


@pytest.mark.parametrize("mode", list(MODES))
async def test_no_request_of_the_iterate_phase_names_a_tool_it_does_not_offer(
    project: Path, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    """An applied project: every request is in Iterate, its rules and owner-document answers included."""
    entity = project / "spec" / DRAFT_PATH
    entity.parent.mkdir(parents=True)
    entity.write_text(CUSTOMER, encoding="utf-8")
    assert await stray_names(project, monkeypatch, mode, ITERATE_REPLIES) == {"iterate"}


async def stray_names(project: Path, monkeypatch: pytest.MonkeyPatch, mode: str, replies: list[Any]) -> set[str]:
    """The phases the run's requests were in; fails naming every stray tool name."""
    someone_to_ask, rules = MODES[mode]
    if rules is not None:
        monkeypatch.setenv("FORMSPEC_PERMISSIONS", json.dumps(rules))
    tools = pattern(await every_tool(project))
    engine, provider = await run(project, someone_to_ask, replies)
    requests = [e for e in EventLog.read(engine.session_dir / "events.jsonl") if e["type"] == "request"]
    assert len(requests) == len(provider.requests) == len(replies)
    offer: list[dict[str, Any]] = []
    seen: set[str] = set()
    phases = set()
    wrong: list[str] = []
    for number, (request, messages) in enumerate(zip(requests, provider.requests, strict=True)):
        offer = request.get("tools") or offer
        offered = {t["function"]["name"] for t in offer}
        assert offered >= EVERY_REQUEST, (number, EVERY_REQUEST - offered)
        system = str(messages[0]["content"])
        phases.add("iterate" if ITERATE_RULE in system else "draft" if "list_drafts" in offered else "discovery")
        texts = [("system prompt", system, None),
                 ("declarations", json.dumps(offer), None)]
        callers = {c["id"]: c["function"]["name"] for m in messages for c in m.get("tool_calls") or []}
        for message in messages:
            if message["role"] == "tool" and message["tool_call_id"] not in seen:
                seen.add(message["tool_call_id"])
                caller = callers[message["tool_call_id"]]
                texts.append((f"result of {caller}", str(message["content"]), caller))
        for where, text, caller in texts:
            stray = named(text, tools) - offered - {caller}
            if stray:
                wrong.append(f"request {number}, {where}: {sorted(stray)}")
    assert wrong == []
    return phases


def test_the_bundled_skills_name_only_tools_every_request_offers() -> None:
    every = set(EVERY_REQUEST) | {"list_drafts", "validate_project", "withdraw_draft", "apply_draft", "reject_draft", "undo_apply", "restart_server",
                                  "validate_spec", "diff_drafts", "read_workspace_manifest",
                                  "list_installed_modules", "list_skills", "get_server_status", "stop_server",
                                  *REGISTRY_TOOLS}
    tools = pattern(every)
    wrong = {}
    for skill in all_skills(None):
        stray = named(Path(skill.path).read_text(encoding="utf-8"), tools) - EVERY_REQUEST
        if stray:
            wrong[skill.name] = sorted(stray)
    assert wrong == {}


def test_the_skills_ask_as_few_questions_at_a_time_as_the_prompt() -> None:
    workflow = next(s for s in all_skills(None) if s.name == "consultation-workflow")
    text = " ".join(Path(workflow.path).read_text(encoding="utf-8").split())
    assert "one or two questions at a time" in text and "one to three" not in text
