"""The fixed prefix every request carries: system prompt plus tool declarations, in tokens.

A session is opened on the bundled barbershop example (in-memory local server and bundled
registry, a scripted model that records its requests); the first request is counted with the
same o200k counter the app uses when a provider reports nothing. The consultant's tool offer
changes once, at the first draft (agent/engine/offer.py), and the system prompt with it (it names
only offered tools, and drops the template index): a second turn proposes a draft and the
request after it gives the Draft-phase prefix too — as the TUI offers it (someone to ask for the
guarded tools: the largest offer, the one the start-up fit check counts) and headless. The floor
is the system prompt with an empty start-up context (the prompt's own rules); the parts say what
the context and the tool declarations add. Goal: both the fixed prefix of Discovery and Proposal
(the first request) and the Draft-phase prefix ≤ 3,500 tokens.

Then a scripted 30-turn session with that system prompt runs through the real litellm provider
against the fake Anthropic server on loopback (tests/fakes), which simulates the prompt cache:
the cached share of prompt tokens says how much of a long session is read from cache. It runs
twice: with one offer throughout, and with the offer changing at the first draft (turn 15), whose
request re-writes the cache once (tools come first in Anthropic's cached prefix).

    .venv/bin/python bench/run.py prefix
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # tests.fakes: the fake Anthropic server

GOAL_TOKENS = 3500
TURNS = 30


DRAFT = {"tool_calls": [{"name": "propose_spec_file", "arguments": {
    "path": "modules/shop/master/voucher/voucher.yaml",
    "content": "apiVersion: formspec.dev/v1\nkind: Entity\nmetadata:\n  name: voucher\n  module: shop\n"
               "spec:\n  version: v1\n  plural: vouchers\n  fields:\n    - {name: code, type: string}\n",
}}]}


async def _requests(project: Path, *, approver: bool) -> tuple[list[list[dict[str, Any]]], list[list[dict[str, Any]]]]:
    """Every request's messages and tool declarations: a greeting turn, then a turn that drafts.
    With `approver` the person can be asked for the guarded tools (the TUI), else not (headless)."""
    from formspec_consult.agent.engine.engine import Engine, EngineOptions
    from formspec_consult.commands.wiring import server_specs
    from formspec_consult.providers import ScriptedProvider

    class Recording(ScriptedProvider):
        """Records the tool declarations of each request too."""

        tool_requests: list[list[dict[str, Any]]] = []

        def stream(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> Any:
            self.tool_requests.append(list(tools or []))
            return super().stream(messages, tools)

    async def allow_once(_request: Any) -> Any:
        return "allow_once"

    provider = Recording(["Hello! What does your shop sell?", DRAFT, "Drafted the voucher."])
    provider.tool_requests = []
    engine = await Engine.open(EngineOptions(project=project, provider=provider, in_memory_server=True, servers=server_specs))
    if approver:
        engine.set_approver(allow_once)
    try:
        for text in ("hi", "we sell vouchers"):
            async for _ in engine.run_turn(text):
                pass
    finally:
        await engine.aclose()
    return provider.requests, provider.tool_requests


def fixed_prefix() -> dict[str, Any]:
    """Token counts of the first request's system prompt and tool declarations, the Draft-phase
    declarations (the last request, after a draft) as the TUI offers them (someone to ask for the
    guarded tools) and headless (nobody to ask), and the floor; with the texts themselves."""
    from formspec_consult.agent.engine.context import render_system_prompt
    from formspec_consult.providers.tokens import count_text
    from formspec_consult.resources import package_path

    runs = {}
    for approver in (True, False):
        with tempfile.TemporaryDirectory() as tmp:
            os.environ["FORMSPEC_REGISTRY_DB"] = f"sqlite:///{Path(tmp) / 'registry.db'}"
            os.environ["XDG_CONFIG_HOME"] = str(Path(tmp) / "xdg")
            project = Path(tmp) / "shop"
            shutil.copytree(package_path("examples", "barbershop"), project)
            runs[approver] = asyncio.run(_requests(project, approver=approver))
    messages, tools = runs[True]
    headless = runs[False][1][-1]
    system = str(messages[0][0]["content"])
    # The prompt names only the tools a request offers: the Draft phase's is written once more.
    draft_system = str(messages[-1][0]["content"])
    headless_system = str(runs[False][0][-1][0]["content"])
    return {
        "system": count_text(system),
        "draft_system": count_text(draft_system),
        "headless_draft_system": count_text(headless_system),
        "tools": count_text(json.dumps(tools[0], ensure_ascii=False)),
        "tool_count": len(tools[0]),
        "draft_tools": count_text(json.dumps(tools[-1], ensure_ascii=False)),
        "draft_tool_count": len(tools[-1]),
        "headless_draft_tools": count_text(json.dumps(headless, ensure_ascii=False)),
        "headless_draft_tool_count": len(headless),
        "rules_floor": count_text(render_system_prompt("0" * 26, {})),
        "texts": (system, tools[0], tools[-1]),
    }


SWITCH_TURN = TURNS // 2  # the scripted session drafts for the first time here


async def _cached_session(
    turns: int, system: str, tools: list[dict[str, Any]], draft_tools: list[dict[str, Any]], switch_at: int | None
) -> tuple[int, int, int]:
    """(prompt, cached, written at the switch) tokens of a scripted session on the fake Anthropic
    server with our system prompt; the offer is `tools` until turn `switch_at`, then `draft_tools`
    (None: `tools` throughout)."""
    from formspec_consult.providers.base import Completion
    from formspec_consult.providers.litellm_provider import LiteLLMProvider
    from tests.fakes.anthropic_server import FakeAnthropicServer
    from tests.fakes.openai_wire import FakeReply

    messages: list[dict[str, Any]] = [{"role": "system", "content": system}]
    prompt = cached = switch_written = 0
    with FakeAnthropicServer() as server:
        provider = LiteLLMProvider("anthropic/claude-sonnet-4-5", api_base=server.url, api_key="bench-key")
        for turn in range(turns):
            offer = draft_tools if switch_at is not None and turn >= switch_at else tools
            server.queue(FakeReply(tool_calls=[{"id": f"toolu_{turn}", "name": "read_skill",
                                                "arguments": {"name": "entity-authoring"}}]),
                         FakeReply(text=f"Answer {turn}. " + "Here is what I understood. " * 20))
            messages.append({"role": "user", "content": f"Turn {turn}: " + "we open at nine, close at six. " * 8})
            for step in range(2):
                completion = None
                async for item in provider.stream(messages, offer):
                    if isinstance(item, Completion):
                        completion = item
                assert completion is not None and completion.usage is not None
                prompt += completion.usage.prompt_tokens
                cached += completion.usage.cached_tokens
                if turn == switch_at and step == 0:
                    switch_written = server.outcomes[-1].written_tokens
                message: dict[str, Any] = {"role": "assistant", "content": completion.text}
                if completion.tool_calls:
                    message["tool_calls"] = [{"id": c.id, "type": "function",
                                              "function": {"name": c.name, "arguments": c.arguments}}
                                             for c in completion.tool_calls]
                messages.append(message)
                for call in completion.tool_calls:
                    messages.append({"role": "tool", "tool_call_id": call.id, "content": "kind: Entity\n" * 30})
    return prompt, cached, switch_written


def main() -> int:
    import logging

    logging.getLogger("LiteLLM").setLevel(logging.WARNING)  # litellm logs every call at INFO
    figures = fixed_prefix()
    total = figures["system"] + figures["tools"]
    drafting = figures["draft_system"] + figures["draft_tools"]
    headless = figures["headless_draft_system"] + figures["headless_draft_tools"]
    print(f"system prompt        {figures['system']:>6} tokens (rules alone, empty context: {figures['rules_floor']})")
    print(f"tool declarations    {figures['tools']:>6} tokens ({figures['tool_count']} tools offered in Discovery/Proposal)")
    print(f"fixed prefix         {total:>6} tokens  goal ≤ {GOAL_TOKENS}: {'ok' if total <= GOAL_TOKENS else 'MISSED'}")
    print(f"Draft phase          {drafting:>6} tokens  goal ≤ {GOAL_TOKENS}: {'ok' if drafting <= GOAL_TOKENS else 'MISSED'} "
          f"(system prompt {figures['draft_system']}, tool declarations {figures['draft_tools']}, "
          f"{figures['draft_tool_count']} tools, from the first draft on, "
          "with someone to ask for apply/undo/reject/restart: the TUI; the start-up fit check counts this offer)")
    print(f"  headless           {headless:>6} tokens (system prompt {figures['headless_draft_system']}, "
          f"tool declarations {figures['headless_draft_tools']}, "
          f"{figures['headless_draft_tool_count']} tools: nobody to ask, the guarded tools are not offered)")
    system, tools, draft_tools = figures["texts"]
    prompt, cached, _ = asyncio.run(_cached_session(TURNS, system, draft_tools, draft_tools, None))
    share = cached / prompt if prompt else 0.0
    print(f"cached share         {share:>6.1%} of {prompt} prompt tokens over a {TURNS}-turn session "
          "(fake Anthropic cache, 2 requests per turn, one offer throughout)")
    prompt, cached, written = asyncio.run(_cached_session(TURNS, system, tools, draft_tools, SWITCH_TURN))
    changed = cached / prompt if prompt else 0.0
    print(f"  offer change       {changed:>6.1%} of {prompt} with the first draft at turn {SWITCH_TURN}: the tools come "
          f"first in the cached prefix, so that request writes its whole prompt ({written} tokens) to the cache "
          f"once ({share - changed:.1%} of the session's prompt tokens); every later request reads it")
    return 0 if total <= GOAL_TOKENS and drafting <= GOAL_TOKENS else 1


if __name__ == "__main__":
    sys.exit(main())
