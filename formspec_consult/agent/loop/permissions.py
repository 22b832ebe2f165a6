"""The person's permission for write tools the MODEL calls (apply, undo, reject, stop a server).

The person decides: a draft reaches the project only when they accept it. The model may still
call the local server's write tools, so the loop asks here first, per call:

- `allow`: run it; `deny`: refuse it; `ask`: ask the person through the approver the app set
  (the TUI shows a prompt: allow once / allow for this session / deny, with the diff). With no
  approver (headless), `ask` refuses unless the call was allowed beforehand.
- Which tools are guarded is the servers' own word: a tool whose server does not declare it
  read-only (MCP's readOnlyHint) is guarded, for our servers and third-party ones alike — except
  the local server's additive draft writes (readOnlyHint false, destructiveHint false:
  propose_spec_file), which only make a draft the person reviews. GUARDED_TOOLS is a floor: those
  names are guarded on any server, whatever it declares. A tool keeps its server's identity
  however its exposed name was cut or hashed (`mcp_client.manager.ToolIdentity`).
- The rule per tool comes from the `permissions` setting (`{apply_draft: allow, …}`, `default`
  for every guarded tool); unset, every guarded tool is `ask`. A bare name (`apply_draft`) rules
  the local server's tool; another server's tool is ruled as `<server>__<tool>` or by its
  exposed name, so a second copy of our server cannot borrow the local server's `allow`.
- A refusal is a tool result the model can act on: it names who reviews and how.

The person's own commands (`/apply`, the diffs pane, `formspec-consult apply`) do not come here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from formspec_consult.i18n import N_, _
from formspec_consult.mcp_client.manager import ToolIdentity

Rule = Literal["allow", "ask", "deny"]
Decision = Literal["allow_once", "allow_session", "deny"]
RULES: tuple[Rule, ...] = ("allow", "ask", "deny")

# The person's own review tools (their edit of a draft, their partial accept) and the read-only
# listings that go with them (a draft's blocks, a turn's changeset): never offered to the model,
# and never run for it whatever the rules.
PERSON_WRITE_TOOLS: frozenset[str] = frozenset({"edit_draft", "apply_draft_blocks"})
PERSON_ONLY: frozenset[str] = PERSON_WRITE_TOOLS | {"list_draft_blocks", "list_turn_changes"}
# Tools of the local server the MODEL may call that change the project, the drafts or the servers:
# the ones a `permissions` rule (and --allow-tool) can allow.
MODEL_WRITE_TOOLS: frozenset[str] = frozenset(
    {"apply_draft", "undo_apply", "reject_draft", "stop_server", "restart_server", "install_module"}
)
# Guarded on any server, whatever it declares: the model's write tools and the person's own.
GUARDED_TOOLS: frozenset[str] = MODEL_WRITE_TOOLS | PERSON_WRITE_TOOLS


@dataclass(frozen=True)
class PermissionRequest:
    """One model call waiting for the person's answer."""

    call_id: str
    name: str
    arguments: dict[str, Any]
    server: str = ""  # a server other than the local one, named to the person

    @property
    def action(self) -> str:
        """What the model asks to do, in the person's words and language: "apply the draft x.yaml"."""
        target = (self.arguments.get("file") or self.arguments.get("path") or self.arguments.get("server")
                  or (self.arguments.get("name") if self.name == "install_module" else None))
        if self.server:
            verb = _("run {tool} of the MCP server '{server}'").format(tool=self.name, server=self.server)
        elif self.name in _ACTIONS:
            verb = _(_ACTIONS[self.name])
        else:
            verb = _("run {tool}").format(tool=self.name)
        return f"{verb} {target}" if target else verb

    @property
    def summary(self) -> str:
        """The question's first line: "The consultant wants to apply the draft x.yaml."."""
        return _("The consultant wants to {action}.").format(action=self.action)


# What a guarded tool does, as the person is asked about it (its target follows).
_ACTIONS = {
    "apply_draft": N_("apply the draft"), "undo_apply": N_("undo the last apply"),
    "reject_draft": N_("discard the draft"), "stop_server": N_("stop the server"),
    "restart_server": N_("restart the server"), "install_module": N_("install the registry module"),
}


Approver = Callable[[PermissionRequest], Awaitable[Decision]]


def denial_text(name: str, *, asked: bool) -> str:
    """The tool result the model gets when the person (or the settings) refused the call."""
    who = "The person declined this call" if asked else f"{name} needs the person's permission, and nobody can give it here"
    review = {
        "apply_draft": "The person reviews and applies drafts themselves: tell them the draft is ready and ask them "
                       "to review it with /diff and accept it there (or `formspec-consult apply`).",
        "undo_apply": "Ask the person to undo it themselves with /undo if they want to.",
        "reject_draft": "Ask the person to reject it themselves with /reject <path> if they want to.",
        "install_module": "Tell the person which module would fit and why; they can install it themselves with "
                          "FormSpec's `formspec module install --from https://registry.formspec.dev <name> --use`.",
    }.get(name, "Ask the person to do it themselves if they want it done.")
    return f"ERROR: permission denied — {who}. {review} Do not call {name} again for this unless they ask you to."


@dataclass
class Permissions:
    """Decides, per model call, whether a guarded tool runs; remembers "allow for this session"."""

    rules: dict[str, Rule] = field(default_factory=dict)
    approver: Approver | None = None
    allowed_for_session: set[str] = field(default_factory=set)
    # Who an exposed name belongs to and what its server declares (the MCP manager's `identity`);
    # None only without servers (unit tests of the loop): then the name list alone decides.
    identify: Callable[[str], ToolIdentity | None] | None = None
    own_servers: frozenset[str] = frozenset()  # the local server: its draft writes need no answer
    refresh: Callable[[], Awaitable[bool]] | None = None  # re-list tools a server said changed

    def _identity(self, name: str) -> ToolIdentity | None:
        return self.identify(name) if self.identify is not None else None

    def rule(self, name: str) -> Rule:
        keys: tuple[str, ...]
        if self.identify is None:
            bare = name.rsplit("__", 1)[-1]
            if bare in PERSON_ONLY:
                return "deny"
            guarded, keys = bare in GUARDED_TOOLS, (name, bare)
        elif (who := self.identify(name)) is None:
            guarded, keys = True, (name,)  # no server offers it (yet): nobody vouches for it
        else:
            ours = who.server in self.own_servers
            if ours and who.name in PERSON_ONLY:
                return "deny"  # the person's own review tool: no rule lets the model call it
            writes = not who.read_only and (who.destructive or not ours)
            guarded = who.name in GUARDED_TOOLS or writes
            keys = (name, f"{who.server}__{who.name}", *((who.name,) if ours else ()))
        for key in keys:
            if key in self.rules:
                return self.rules[key]
        if not guarded:
            return "allow"
        return self.rules.get("default") or "ask"

    def may_run(self, name: str) -> bool:
        """Whether a model call of `name` can run at all: allowed, or asked with someone to answer."""
        rule = self.rule(name)
        return rule == "allow" or name in self.allowed_for_session or (rule == "ask" and self.approver is not None)

    def not_denied(self, name: str) -> bool:
        """Whether some answer could let a model call of `name` run (its rule is not `deny`)."""
        return self.rule(name) != "deny"

    async def check(self, call_id: str, name: str, arguments: dict[str, Any]) -> str | None:
        """None when the call may run; else the tool result to give the model instead."""
        if self.identify is not None and self.identify(name) is None:
            if self.refresh is not None:  # a tool a server listed since the last request
                await self.refresh()
            if self.identify(name) is None:
                return None  # no server offers it: the call answers "unknown tool", nothing runs
        rule = self.rule(name)
        if rule == "allow" or name in self.allowed_for_session:
            return None
        if rule == "deny" or self.approver is None:
            return denial_text(name, asked=False)
        who = self._identity(name)
        server = who.server if who is not None and who.server not in self.own_servers else ""
        decision = await self.approver(PermissionRequest(call_id, name, dict(arguments), server))
        if decision == "allow_session":
            self.allowed_for_session.add(name)
            return None
        if decision == "allow_once":
            return None
        return denial_text(name, asked=True)
