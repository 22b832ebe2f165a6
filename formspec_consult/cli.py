"""Command line entry point.

Start-up must stay fast: `--help` and `--version` import neither litellm nor textual. Every
sub-command lives in its own module under `formspec_consult.commands` (or a package that owns
it) and is imported only when it is invoked, through :class:`LazyGroup`.
"""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path
from typing import Any, NoReturn

import click

from formspec_consult import __version__
from formspec_consult.commands.language import N_, _, localise_help
from formspec_consult.commands.model_options import model_options

# name -> ("module:attribute", short help). The short help is here so `--help` needs no import.
LAZY_COMMANDS: dict[str, tuple[str, str]] = {
    "init": ("formspec_consult.commands.init:init", N_("Start a new FormSpec project for a business, ready to consult into.")),
    "mcp-serve": ("formspec_consult.commands.mcp_serve:mcp_serve", N_("Run the local FormSpec MCP server on stdio.")),
    "registry-serve": (
        "formspec_consult.commands.registry:registry_serve",
        N_("Serve business templates and the module registry over MCP Streamable HTTP."),
    ),
    "registry": ("formspec_consult.commands.registry:registry", N_("Manage the registry database (import).")),
    "diff": ("formspec_consult.commands.review:diff", N_("Show the session's drafts as unified diffs.")),
    "apply": ("formspec_consult.commands.review:apply", N_("Apply the only draft, one by PATH, or --all valid drafts.")),
    "reject": ("formspec_consult.commands.review:reject", N_("Discard a draft.")),
    "edit": ("formspec_consult.commands.review:edit", N_("Edit a draft in your editor before accepting it.")),
    "undo": ("formspec_consult.commands.review:undo", N_("Undo the last apply, restoring the exact bytes.")),
    "changes": ("formspec_consult.commands.review:changes",
                N_("Review the drafts one turn proposed as one set: list, --accept or --reject them.")),
    "validate": (
        "formspec_consult.commands.review:validate",
        N_("Validate the whole project with the session's pending drafts; exit 1 on problems (--json)."),
    ),
    "compare": (
        "formspec_consult.commands.compare:compare",
        N_("Show two sessions' drafts side by side (a fork beside its source): entities, fields, states."),
    ),
    "rewind": (
        "formspec_consult.commands.rewind:rewind",
        N_("Go back to the end of a turn: later applies undone, drafts and conversation cut back."),
    ),
    "docs": (
        "formspec_consult.commands.docs:docs",
        N_("Regenerate the diagrams of docs/domain-model.md from the specs; --check says whether they are stale."),
    ),
    "sessions": ("formspec_consult.commands.sessions:sessions", N_("List consultation sessions of the project.")),
    "doctor": ("formspec_consult.commands.doctor:doctor", N_("Show how the model and key are resolved.")),
    "trust": (
        "formspec_consult.commands.trust:trust_command",
        N_("Trust this project's settings (MCP servers, model endpoint, …); --revoke, --status, --list."),
    ),
    "auth": ("formspec_consult.commands.auth:auth", N_("Store or remove provider keys in the OS keyring.")),
    "demo": ("formspec_consult.commands.demo:demo", N_("Run the offline demo (no key needed).")),
    "replay": ("formspec_consult.commands.replay:replay", N_("Replay a recorded session.")),
    "skill": (
        "formspec_consult.commands.skill:skill",
        N_("Install the consultation as a skill for Claude Code or other agents."),
    ),
    "eval": ("formspec_consult.commands.eval:eval_command", N_("Score the consultant on a corpus of business cases.")),
}


class LazyGroup(click.Group):
    """A click group whose sub-commands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *LAZY_COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in LAZY_COMMANDS:
            target, short_help = LAZY_COMMANDS[cmd_name]
            if ctx.resilient_parsing:
                # Shell completion: a placeholder that carries the short help, no import.
                return click.Command(cmd_name, short_help=short_help, help=short_help)
            module_name, attr = target.split(":")
            try:
                module = importlib.import_module(module_name)
            except ModuleNotFoundError as exc:
                if exc.name != module_name:
                    raise
                raise click.ClickException(_("'{cmd_name}' is not available in this build.").format(cmd_name=cmd_name)) from exc
            command: click.Command = getattr(module, attr)
            localise_help(command)
            return command
        return super().get_command(ctx, cmd_name)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """Decide the interface language before click reads the arguments, so that its usage
        errors and every message after are said in it (see commands/language.py)."""
        if ctx.parent is None:
            from formspec_consult.commands.language import start_language

            start_language(args, ctx=ctx)
            localise_help(self)
        return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context) -> Any:
        """Run the command; a Ctrl-C it does not handle itself (during its imports or its start)
        exits 130 like any interrupted program, not click's "Aborted!" and 1."""
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            click.echo(file=sys.stderr)  # end the line after the terminal's ^C
            raise click.exceptions.Exit(INTERRUPTED) from None

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, _(LAZY_COMMANDS[name][1])) for name in sorted(LAZY_COMMANDS)]
        if rows:
            with formatter.section(_("Commands")):
                formatter.write_dl(rows)


@click.group(cls=LazyGroup, invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", "-V", prog_name="formspec-consult")
@click.option(
    "--project",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help=N_("FormSpec project folder (default: the current folder or the nearest parent that is one)."),
)
@click.option("--lang", "language", default=None, metavar="CODE",
              help=N_("Interface language (en, id); default: the language setting, else the locale (LANG)."))
@model_options
@click.option("--continue", "continue_", is_flag=True, help=N_("Continue the most recent session."))
@click.option("--resume", "resume", default=None, metavar="ID", help=N_("Resume the session with this id."))
@click.option("--fork", "fork", is_flag=True,
              help=N_("With --resume ID or --continue: start a new session from that one's history (the source is left as it is)."))
@click.option("-p", "--prompt", "prompt", default=None, metavar="MSG", help=N_("Headless: run one turn ('-' reads turns from stdin)."))
@click.option("--json", "json_output", is_flag=True, help=N_("Headless: print events as JSON lines."))
@click.option("--allow-tool", "allow_tool", multiple=True, metavar="NAME",
              help=N_("Let the model call this write tool (apply_draft, undo_apply, …) without asking; repeatable."))
@click.option("--trust-project", "trust_project", is_flag=True,
              help=N_("Honour this run the project's settings that need trust (MCP servers, model endpoint, …)."))
@click.option("--screen-reader", "screen_reader", is_flag=True,
              help=N_("Plain linear text for screen readers, no panes or redraws (also: ACCESSIBLE=1)."))
@click.pass_context
def cli(ctx: click.Context, /, **options: Any) -> None:
    """Talk with an AI consultant that designs and drafts your FormSpec app.

    Run it inside a FormSpec project. Without -p it opens the terminal app.
    """
    ctx.ensure_object(dict)
    ctx.obj.update(options)
    if ctx.invoked_subcommand is not None:
        return
    from formspec_consult.commands.consult import run_consult

    run_consult(ctx, **options)


INTERRUPTED = 130  # the shell's code for a process ended by SIGINT (Ctrl-C)


def main() -> None:
    """The `formspec-consult` script: run the command, then leave at once (see :func:`exit_now`)."""
    stop_on_sigint()
    try:
        cli(prog_name="formspec-consult")
    except SystemExit as exc:
        exit_now(exc.code)
    exit_now(0)


def stop_on_sigint() -> None:
    """SIGINT stops every command, however the process was started.

    A shell without job control (a script's `cmd &`, a CI runner, `make` in the background)
    starts its children with SIGINT ignored. Python keeps it ignored, and so does asyncio's
    runner, so `kill -INT` did nothing to a headless turn there (it ran on, or hung on a stalled
    stream), while uvicorn took the signal anyway and `mcp-serve --http` stopped with exit 0.
    One behaviour everywhere: Ctrl-C / SIGINT cancels, and the exit code is 130.
    """
    import signal

    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def exit_now(code: object) -> NoReturn:
    """End the process now that the command is done: flush stdout and stderr, run the atexit
    handlers (log handlers, a dev server this process started), then `os._exit`.

    Everything the command owns is closed by then (session files, MCP servers reaped). What this
    skips is the interpreter's teardown of every imported module, which after litellm's import
    takes seconds of doing nothing useful between the reply and the shell prompt.
    """
    import atexit
    import signal

    # A second Ctrl-C while leaving must not turn into a traceback and the slow interpreter
    # teardown this function exists to skip: the process is ending with `code` anyway.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:  # sys.exit("message"): Python prints it and exits 1
        print(code, file=sys.stderr)
        status = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed or broken pipe: nothing more can be said
            pass
    atexit._run_exitfuncs()
    os._exit(status)
