"""`formspec-consult eval`: run the corpus and score the consultant; `eval compare A B`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from formspec_consult.commands.model_options import model_options
from formspec_consult.i18n import N_

DEFAULT_OUT = Path("eval-out")


class EvalUsageError(click.ClickException):
    """Bad input (a case file, an option, a missing key): nothing was run; exit code 2."""

    exit_code = 2


@click.group("eval", invoke_without_command=True)
@click.option("--corpus", type=click.Path(file_okay=False, path_type=Path), default=None,
              help=N_("Folder of case files (default: the bundled corpus)."))
@click.option("--case", "cases", multiple=True, metavar="ID", help=N_("Run only this case (repeatable)."))
@model_options
@click.option("--owner", type=click.Choice(["model", "scripted"]), default=None,
              help=N_("Who answers the consultant: a model given the case's facts (default), or the scripted "
                   "owner that answers from them by rule (no second model; the default with --offline)."))
@click.option("--owner-model", default=None, help=N_("The simulated owner's model (default: --model)."))
@click.option("--owner-base-url", default=None, help=N_("The owner model's endpoint (default: --base-url)."))
@click.option("--verify", type=click.Choice(["deterministic", "llm", "off"]), default="deterministic",
              show_default=True, help=N_("Verify pass after each draft (the ablation)."))
@click.option("--max-turns", type=click.IntRange(min=1), default=8, show_default=True,
              help=N_("Owner messages per case at most."))
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=DEFAULT_OUT, show_default=True,
              help=N_("Where runs/<run-id>/ and reports/<run-id>.json are written."))
@click.option("--offline", is_flag=True, help=N_("Scripted owner and recorded consultants: no key, same scores every run."))
@click.pass_context
def eval_command(ctx: click.Context, /, **options: Any) -> None:
    """Measure the consultant on a corpus of business cases with simulated owners."""
    ctx.obj = {**(ctx.obj or {}), "eval_out": options["out"]}
    if ctx.invoked_subcommand is not None:
        return
    import anyio

    from formspec_consult.commands.wiring import server_specs
    from formspec_consult.config import ConfigError
    from formspec_consult.eval.corpus import CorpusError
    from formspec_consult.eval.runner import EvalConfig, EvalError, run_eval
    from formspec_consult.providers.base import ProviderError

    config = EvalConfig(
        corpus=options["corpus"], case_ids=tuple(options["cases"]), model=options["model"],
        base_url=options["base_url"], context_window=options["context_window"],
        allow_unvalidated=options["allow_unvalidated"], owner=options["owner"],
        owner_model=options["owner_model"], owner_base_url=options["owner_base_url"],
        verify=options["verify"], max_turns=options["max_turns"], out=options["out"], offline=options["offline"],
        servers=server_specs,
    )
    try:
        report = anyio.run(run_eval, config)
    except (CorpusError, EvalError, ProviderError, ConfigError) as exc:
        raise EvalUsageError(str(exc)) from exc
    ctx.exit(1 if report["totals"]["failed"] else 0)


@eval_command.command("compare")
@click.argument("run_a")
@click.argument("run_b")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help=N_("Where the reports are (default: eval's --out)."))
@click.option("--json", "as_json", is_flag=True, help=N_("Print the deltas as JSON."))
@click.pass_context
def compare_command(ctx: click.Context, run_a: str, run_b: str, out_dir: Path | None, as_json: bool) -> None:
    """Per-case score deltas of RUN_B against RUN_A (run ids under --out, or report paths)."""
    from formspec_consult.eval.report import ReportError, compare, compare_table, console, find_report

    out = out_dir or (ctx.obj or {}).get("eval_out", DEFAULT_OUT)
    try:
        a, b = find_report(run_a, out), find_report(run_b, out)
    except ReportError as exc:
        raise EvalUsageError(str(exc)) from exc
    rows = compare(a, b)
    if as_json:
        click.echo(json.dumps({"a": a["run_id"], "b": b["run_id"], "cases": rows}, indent=2))
        return
    console().print(compare_table(a, b, rows))
