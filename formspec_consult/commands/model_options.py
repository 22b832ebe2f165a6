"""The model flags of a consultation, defined once: the main command, `doctor` and `eval` take
the same `--model`, `--base-url`, `--context-window` and `--allow-unvalidated`, spelled, typed and
explained alike, and turn them into the same settings flags (config.load_settings' highest
layer; keys then resolve as for a session: keyring, provider variable, FORMSPEC_LLM_API_KEY).

Imported by cli.py at start-up, so it imports nothing but click.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import click

from formspec_consult.i18n import N_

MODEL_FLAG_KEYS = ("model", "base_url", "context_window", "allow_unvalidated")

F = TypeVar("F", bound=Callable[..., Any])

_OPTIONS = (
    click.option("--model", "-m", default=None, help=N_("litellm model name, e.g. anthropic/claude-sonnet-4-5.")),
    click.option("--base-url", default=None, help=N_("Base URL of an OpenAI-compatible endpoint.")),
    click.option("--context-window", type=click.IntRange(min=1), default=None,
                 help=N_("Override the model's context window (tokens); needed for a model litellm does not know.")),
    click.option("--allow-unvalidated", is_flag=True, help=N_("Use a model below the minimum capability bar.")),
)


def model_options(command: F) -> F:
    """Add the four model flags to a click command (in the order `--help` lists them)."""
    for option in reversed(_OPTIONS):
        command = option(command)
    return command


def model_flags(options: Mapping[str, Any]) -> dict[str, Any]:
    """The settings flags the model options given on a command line set (unset ones left out)."""
    return {key: options[key] for key in MODEL_FLAG_KEYS if options.get(key) not in (None, False)}
