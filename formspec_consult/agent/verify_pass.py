"""The verify pass of a session, around the tools the loop calls (no change to the loop itself).

After every successful ``propose_spec_file`` the result the model reads carries the gate's
``findings`` (the deterministic verifiers of ``spec.verify``). The ``verify`` setting decides:

- ``off``: the findings are taken out (an ablation: the model sees only validation);
- ``deterministic`` (the default): the findings stay, as the server returned them;
- ``llm``: the ``verify-draft`` prompt is also sent, on the session's own provider instance, with
  the draft, the gate report and the discovery summary; its answer joins the same tool result
  as ``review`` — one tool result, so the history's call/result pairing is untouched.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from formspec_consult.agent.loop.loop import DelegatingTools, ToolRunner
from formspec_consult.mcp_client.manager import ToolOutcome
from formspec_consult.providers.base import Completion, Provider
from formspec_consult.store.records import SideReplyRecord

PROPOSE = "propose_spec_file"


class VerifyingTools(DelegatingTools):
    """Delegates to `tools` (its ``inner``); post-processes propose results according to `mode`."""

    def __init__(
        self,
        tools: ToolRunner,
        mode: str,
        provider: Provider,
        summary_path: Path,
        log: Callable[[SideReplyRecord], object] | None = None,
    ) -> None:
        super().__init__(tools)
        self.mode, self.provider = mode, provider
        self.summary_path = summary_path
        self.log = log

    async def call(self, exposed: str, arguments: dict[str, Any] | None) -> ToolOutcome:
        outcome = await self.inner.call(exposed, arguments)
        if self.mode == "deterministic" or exposed.rsplit("__", 1)[-1] != PROPOSE or not outcome.ok:
            return outcome
        try:
            result = json.loads(outcome.text)
        except ValueError:
            return outcome
        if not isinstance(result, dict):
            return outcome
        if self.mode == "off":
            result.pop("findings", None)
        elif self.mode == "llm":
            result["review"] = await self._review(arguments or {}, result)
        text = json.dumps(result, ensure_ascii=False, indent=2)
        return ToolOutcome(outcome.server, outcome.name, outcome.ok, text, outcome.duration_ms, result)

    async def _review(self, arguments: dict[str, Any], result: dict[str, Any]) -> str:
        """The verify-draft answer for one proposed draft (same provider instance as the session)."""
        from formspec_consult.prompting.prompts import load_prompt
        from formspec_consult.store.review import draft_kind

        prompt = load_prompt("verify-draft")
        content = str(arguments.get("content") or "")
        report = {k: result.get(k) for k in ("validation", "blocking_problems", "findings") if k in result}
        try:
            summary = self.summary_path.read_text(encoding="utf-8")
        except OSError:
            summary = ""
        request = [
            {"role": "system", "content": prompt.render_system()},
            {
                "role": "user",
                "content": prompt.render_user(
                    path=str(arguments.get("path") or result.get("path") or ""),
                    draft=content,
                    kind=draft_kind(content) or "",
                    gate_report=json.dumps(report, ensure_ascii=False, indent=2),
                    discovery_summary=summary,
                ),
            },
        ]
        completion: Completion | None = None
        async for item in self.provider.stream(request, None):
            if isinstance(item, Completion):
                completion = item
        text = completion.text.strip() if completion is not None else ""
        if self.log is not None:  # a replay hands the same answer back (side replies, in order)
            usage = completion.usage if completion is not None else None
            self.log(
                SideReplyRecord(
                    purpose="verify",
                    prompt=f"{prompt.name}@{prompt.version}",
                    text=text,
                    prompt_tokens=usage.prompt_tokens if usage else None,
                    completion_tokens=usage.completion_tokens if usage else None,
                    cached_tokens=usage.cached_tokens if usage else None,
                    cost=usage.cost if usage else None,
                )
            )
        return text or "No answer from the verify pass."
