"""The default command: the TUI, or headless turns with -p.

Headless: `-p "message"` runs one turn and prints the reply on stdout; `-p -` runs one turn per
stdin line; `--json` prints every event as a JSON line instead. Tool calls and notices go to
stderr in text mode, so stdout holds only the consultant's words. Exit codes: 0 done, 1 a turn
failed, 2 bad setup (no model, no project, …), 3 step limit, 130 interrupted.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Mapping
from contextlib import aclosing
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import click

from formspec_consult.commands.terminal_text import terminal_safe
from formspec_consult.commands.wiring import cli_flags, engine_options
from formspec_consult.errors import UserError
from formspec_consult.i18n import _, format_money, format_number, ngettext

if TYPE_CHECKING:  # the engine (and its provider) is imported only when a session opens
    from formspec_consult.agent.engine.engine import Engine, EngineOptions
    from formspec_consult.agent.engine.status import EngineStatus
    from formspec_consult.store.agent_events import AgentEvent

EXIT_BY_REASON = {"done": 0, "error": 1, "step_limit": 3, "cancelled": 130}


class SetupError(click.ClickException):
    """Bad setup (no model, no project, bad config): exit code 2, message says what to do."""

    exit_code = 2


def _setup_error(exc: BaseException) -> click.ClickException:
    if isinstance(exc, OSError) and not isinstance(exc, ConnectionError):
        return SetupError(unwritable_message(exc))
    return SetupError(exc.format_message() if isinstance(exc, click.ClickException) else str(exc))


def unwritable_message(exc: OSError) -> str:
    """The setup message for a project folder that cannot be written (read-only, full, no permission)."""
    why = exc.strerror or exc
    text = (
        _("Cannot write {file} ({why}).").format(file=exc.filename, why=why) if exc.filename
        else _("Cannot write ({why}).").format(why=why)
    )
    return text + " " + _(
        "formspec-consult keeps its sessions in <project>/.formspec/, so the project folder must be "
        "writable: check its permissions, free space, and whether it lies on a read-only file system."
    )


def _project_root(options: Mapping[str, Any]) -> Path | None:
    try:
        from formspec_consult.spec.discovery import find_root

        return find_root(options.get("project") or Path.cwd())
    except Exception:  # noqa: BLE001 - the project error is reported when the engine opens
        return None


def _check_model_configured(options: Mapping[str, Any], root: Path | None, *, headless: bool) -> None:
    """Without a model (and nothing to resume) say exactly how to configure one, and offer the demo.

    Headless, project settings left out for want of trust are said here, once, in one line (the
    TUI asks instead, see commands/launch.py)."""
    from formspec_consult.config import ConfigError, load_settings
    from formspec_consult.providers.resolve import no_model_error

    try:
        settings = load_settings(root, cli_flags(options))
    except ConfigError as exc:
        raise _setup_error(exc) from exc
    if headless and settings.withheld is not None:
        click.echo(settings.withheld.one_line(), err=True)
    if options.get("resume") or options.get("continue_"):
        return
    if not settings.model and not (headless or settings.withheld is None):
        # The app asks about the folder's trust first: the model may be one of those settings.
        settings = load_settings(root, {**cli_flags(options), "trust_project": True})
    if not settings.model:
        raise _setup_error(no_model_error())


def _check_before_the_app(options: Mapping[str, Any]) -> None:
    """A start that cannot work fails here, in the shell, with one message and exit code 2 —
    not in an app that opened, said `ready`, and then could do nothing: a folder that is not a
    project, a model name without a provider, no key, a model litellm does not know (see
    providers/preflight.py; litellm is imported only to confirm a name its map may not hold)."""
    from formspec_consult.config import load_settings
    from formspec_consult.providers.preflight import check_before_start
    from formspec_consult.spec.discovery import find_root

    try:
        root = find_root(options.get("project") or Path.cwd())
        settings = load_settings(root, cli_flags(options))
        try:
            check_before_start(settings)
        except Exception:
            if settings.withheld is None:
                raise
            # The app asks about the folder's trust first: with it, the start may work.
            check_before_start(load_settings(root, {**cli_flags(options), "trust_project": True}))
    except click.ClickException:
        raise
    except Exception as exc:  # ProjectError, ProviderError, ConfigError: their text says what to do
        raise _setup_error(exc) from exc


def _screen_reader(options: Mapping[str, Any]) -> str | None:
    """Why the screen-reader mode is on (the flag, ACCESSIBLE, the setting), or None."""
    from formspec_consult.commands.screen_reader import screen_reader_source
    from formspec_consult.config import load_settings

    setting = load_settings(_project_root(options), cli_flags(options)).screen_reader
    return screen_reader_source(bool(options.get("screen_reader")), setting)


def run_consult(ctx: click.Context, **options: Any) -> None:
    """Entry point of `formspec-consult` without a sub-command (cli.py calls it)."""
    if options.get("resume") and options.get("continue_"):
        raise _setup_error(click.UsageError(_("use either --continue or --resume ID, not both")))
    if options.get("fork") and not (options.get("resume") or options.get("continue_")):
        raise _setup_error(
            click.UsageError(_("--fork needs the session to fork: --resume ID --fork, or --continue --fork"))
        )
    cli_flags(options)  # a bad --allow-tool stops here, before anything opens (exit 2)
    _check_model_configured(options, _project_root(options), headless=options.get("prompt") is not None)
    if options.get("prompt") is None:
        if options.get("json_output"):
            raise _setup_error(click.UsageError(_("--json needs -p (headless mode)")))
        via = _screen_reader(options)
        if via is not None:  # plain lines over the same engine, instead of the Textual app
            import anyio

            from formspec_consult.commands.screen_reader import run_screen_reader

            try:
                code = anyio.run(run_screen_reader, engine_options(options), via)
            except KeyboardInterrupt:
                code = 130
            ctx.exit(code)
        try:
            from formspec_consult.commands.launch import run_app
        except ImportError as exc:
            message = _('The terminal app is not available in this build ({problem}); use -p "message" (headless).').format(problem=exc)
            raise _setup_error(click.ClickException(message)) from exc
        _check_before_the_app(options)
        code = run_app(options)
        if code:
            ctx.exit(code)
        return
    prompt = options["prompt"]
    turns: Iterable[str] = (line.rstrip("\n") for line in sys.stdin) if prompt == "-" else [prompt]
    import anyio

    try:
        code = anyio.run(_headless, engine_options(options), turns, bool(options.get("json_output")))
    except KeyboardInterrupt:
        code = 130
    ctx.exit(code)


async def _headless(options: EngineOptions, turns: Iterable[str], as_json: bool) -> int:
    from formspec_consult.agent.engine.engine import Engine
    from formspec_consult.store.agent_events import TurnFinished

    try:
        engine = await Engine.open(options)
    except Exception as exc:  # setup problems: a clear message, exit 2
        if isinstance(exc, OSError) and not isinstance(exc, ConnectionError):  # read-only project, …
            raise _setup_error(exc) from exc
        if isinstance(exc, UserError):  # the person can fix it: its message and hint, no traceback
            raise _setup_error(exc) from exc
        raise
    out = JsonOutput(sys.stdout) if as_json else TextOutput(sys.stdout, sys.stderr)
    out.session(engine)
    code = 0
    try:
        for text in turns:
            if not text.strip():
                continue
            if text.strip().lower() == "/quit":  # stop reading turns; the session stays on disk
                break
            async with aclosing(engine.run_turn(text)) as events:
                async for event in events:
                    out.event(event)
                    if isinstance(event, TurnFinished):
                        code = max(code, EXIT_BY_REASON.get(event.reason, 1))
        out.finish(engine.status())
    finally:
        await engine.aclose()
    return code


class JsonOutput:
    """Every event as one JSON line (agent.events.event_to_dict), after a `session` line."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def _line(self, data: dict[str, Any]) -> None:
        self.stream.write(json.dumps(data, ensure_ascii=False) + "\n")
        self.stream.flush()

    def session(self, engine: Engine) -> None:
        self._line(
            {
                "type": "session",
                "session_id": engine.session_id,
                "session_dir": str(engine.session_dir),
                "model": engine.model,
                "provider": engine.provider_name,
            }
        )

    def event(self, event: AgentEvent) -> None:
        from formspec_consult.store.agent_events import ToolCallFinished, event_to_dict
        from formspec_consult.store.tool_status import tool_status

        data = event_to_dict(event)
        if isinstance(event, ToolCallFinished):  # a draft the gate refused is not an "ok" for the person
            data["status"] = tool_status(event.ok, event.result)
            data["ok"] = data["status"] == "ok"  # "status" says whether it was refused or failed
        self._line(data)

    def finish(self, status: EngineStatus) -> None:
        data = status.to_json()
        keys = (
            "context_tokens",
            "threshold_tokens",
            "window_tokens",
            "reported",
            "prompt_tokens",
            "completion_tokens",
            "cost",
            "compactions",
            "turn",
        )
        self._line({"type": "status", **{key: data[key] for key in keys}})


class TextOutput:
    """The reply streamed on stdout; tool calls, notices and the session id on stderr."""

    def __init__(self, out: TextIO, err: TextIO) -> None:
        self.out, self.err = out, err
        self._mid_line = False

    def session(self, engine: Engine) -> None:
        self.err.write(_("session {session_id} · {model}").format(session_id=engine.session_id, model=engine.model) + "\n")

    def event(self, event: AgentEvent) -> None:
        from formspec_consult.store import agent_events as ev

        if isinstance(event, ev.AssistantDelta):
            self.out.write(terminal_safe(event.text))
            self.out.flush()
            self._mid_line = not event.text.endswith("\n")
        elif isinstance(event, ev.AssistantMessage):
            self._end_line()
        elif isinstance(event, ev.ToolCallStarted):
            shown = terminal_safe(f"{event.name} {json.dumps(event.arguments, ensure_ascii=False)[:200]}")
            self.err.write(f"→ {shown}\n")
        elif isinstance(event, ev.ToolCallFinished):
            from formspec_consult.store.tool_status import tool_status

            status = tool_status(event.ok, event.result)
            mark = {"ok": "✓", "refused": "✗", "failed": "✗"}[status]
            said = {"ok": "", "refused": " " + _("refused by the validation gate"), "failed": " " + _("failed")}[status]
            self.err.write(f"{mark} {terminal_safe(event.name)}{said} ({format_number(event.duration_ms, decimals=0)} ms)\n")
        elif isinstance(event, ev.Notice):
            stream = self.out if event.level == "info" else self.err
            stream.write(terminal_safe(event.message.rstrip("\n")) + "\n")
        elif isinstance(event, ev.CompactionDone):
            self.err.write(
                "[" + _("compacted {n} messages: {before} → {after} tokens").format(
                    n=event.replaced_messages, before=format_number(event.tokens_before),
                    after=format_number(event.tokens_after)) + "]\n"
            )
        elif isinstance(event, ev.TurnFinished) and event.reason != "done":
            self.err.write(terminal_safe(f"[turn {event.reason}{': ' + event.error if event.error else ''}]") + "\n")

    def finish(self, status: EngineStatus) -> None:
        """One stderr line with the figures a script or a curious person wants."""
        self._end_line()
        marker = _("reported") if status.reported else _("estimated")
        cost = _("n/a") if status.cost is None else format_money(status.cost, decimals=4)
        compactions = ngettext("{n} compaction", "{n} compactions", status.compactions).format(n=status.compactions)
        self.err.write("[" + _("context {used} / {threshold} tokens ({marker}) · {compactions} · cost {cost}").format(
            used=format_number(status.context_tokens), threshold=format_number(status.threshold_tokens),
            marker=marker, compactions=compactions, cost=cost) + "]\n")

    def _end_line(self) -> None:
        if self._mid_line:
            self.out.write("\n")
            self.out.flush()
            self._mid_line = False
