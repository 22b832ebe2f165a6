"""Which provider a consultation uses — an explicit decision tree, never a silent guess.

1. No model configured                → ProviderError naming --model, FORMSPEC_MODEL and both
                                         config files, and pointing to the offline demo.
2. ``scripted:<path>``                → ScriptedProvider (replies from a YAML/JSON file).
3. ``replay:<session-dir>``           → ReplayProvider (the assistant side of a recorded session).
4. A base URL is set and the model has no litellm provider prefix (``llama3``, ``org/model``)
                                      → ``openai/<model>`` at that URL (any OpenAI-compatible server).
5. ``<provider>/<model>``             → that litellm provider (with the base URL, if one is set).
6. A bare name without a base URL     → ProviderError asking for ``<provider>/<model>``.
Then the key (see keys.py): keyring > provider env var > FORMSPEC_LLM_API_KEY > ProviderError.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from formspec_consult.config import PROJECT_CONFIG, Settings, user_config_path
from formspec_consult.i18n import _
from formspec_consult.providers.base import Provider, ProviderError
from formspec_consult.providers.keys import KeyLookup, find_key, missing_key_hint, redact_url

LITELLM_PREFIXES = frozenset(
    {
        "anthropic", "openai", "deepseek", "ollama", "ollama_chat", "gemini", "mistral", "groq",
        "openrouter", "together_ai", "xai", "azure", "azure_ai", "bedrock", "vertex_ai", "cohere",
        "fireworks_ai", "perplexity", "hosted_vllm", "lm_studio", "llamafile", "huggingface",
        "text-completion-openai", "cerebras", "sambanova", "nvidia_nim",
    }
)


@dataclass(frozen=True)
class Resolution:
    """The outcome of the decision tree; safe to print (the key itself is hidden)."""

    configured: str  # the model name as configured
    kind: str  # "scripted" | "replay" | "litellm"
    model: str  # what the provider is created with (litellm name, or file/folder)
    provider: str  # litellm provider family, or the kind for offline providers
    step: str  # which branch of the tree was taken, in words
    api_base: str | None = None
    key: KeyLookup | None = None


def _suggest(name: str) -> str:
    """A likely prefixed spelling of a bare model name, for the error hint."""
    lowered = name.lower()
    for marker, provider in (("claude", "anthropic"), ("deepseek", "deepseek"), ("gemini", "gemini"),
                             ("mistral", "mistral"), ("gpt", "openai"), ("o1", "openai"), ("o3", "openai"),
                             ("o4", "openai"), ("llama", "ollama_chat"), ("qwen", "ollama_chat")):
        if marker in lowered:
            return f"{provider}/{name}"
    return _("openai/{name} or anthropic/{name}").format(name=name)


def no_model_error() -> ProviderError:
    """The error for "nothing configured", naming every place a model can be set."""
    hint = _(
        "pass --model (e.g. --model anthropic/claude-sonnet-4-5), set FORMSPEC_MODEL, or put "
        "'model: …' in {user_config} or <project>/{project_config}; "
        "no key yet? try `formspec-consult demo` (offline)"
    ).format(user_config=user_config_path(), project_config=PROJECT_CONFIG)
    return ProviderError(_("no model configured"), hint=hint)


def resolve(settings: Settings, env: Mapping[str, str] | None = None) -> Resolution:
    """Walk the decision tree (without creating the provider or importing litellm)."""
    configured = (settings.model or "").strip()
    if not configured:
        raise no_model_error()
    for kind in ("scripted", "replay"):
        if configured.startswith(f"{kind}:"):
            target = configured.split(":", 1)[1].strip()
            if not target:
                raise ProviderError(_("'{model}' names no file").format(model=configured),
                                    hint=_("write {kind}:<path>").format(kind=kind))
            return Resolution(configured, kind, target, kind, _("offline {kind} provider ({model})").format(
                kind=kind, model=configured))
    base_url = settings.base_url
    prefix = configured.split("/", 1)[0] if "/" in configured else ""
    if base_url and prefix not in LITELLM_PREFIXES:
        model, step = f"openai/{configured}", _("OpenAI-compatible endpoint {url} (openai/{model})").format(
            url=redact_url(base_url), model=configured)
    elif prefix:
        model, step = configured, (_("litellm provider '{prefix}' at {url}").format(prefix=prefix, url=redact_url(base_url))
                                   if base_url else _("litellm provider '{prefix}'").format(prefix=prefix))
    else:
        raise ProviderError(
            _("'{model}' has no provider prefix").format(model=configured),
            hint=_("write it as <provider>/<model>, e.g. {example}, or give --base-url for an OpenAI-compatible "
                   "server").format(example=_suggest(configured)),
        )
    provider = model.split("/", 1)[0]
    key = find_key(provider, base_url, settings.api_key_env, env)
    return Resolution(configured, "litellm", model, provider, step, base_url, key)


def explicit_reserve(settings: Settings) -> int | None:
    """`reserved_output` when the person set it; None for the default, which the provider keeps
    in proportion to the window (see :func:`~formspec_consult.providers.base.output_reserve`)."""
    return None if settings.source_of("reserved_output") == "default" else settings.reserved_output


def open_provider(settings: Settings, env: Mapping[str, str] | None = None) -> Provider:
    """Create the provider the settings ask for; raises ProviderError saying what to fix."""
    resolution = resolve(settings, env)
    if resolution.kind == "scripted":
        from formspec_consult.providers.scripted import ScriptedProvider

        return ScriptedProvider.from_file(
            Path(resolution.model).expanduser(),
            context_window=settings.context_window,
            max_output_tokens=explicit_reserve(settings),
        )
    if resolution.kind == "replay":
        from formspec_consult.providers.replay import ReplayProvider

        return ReplayProvider.from_session_dir(Path(resolution.model).expanduser(), context_window=settings.context_window)
    key = resolution.key
    assert key is not None
    if not key.found:
        raise ProviderError(_("no API key for {account}").format(account=key.account), hint=missing_key_hint(key))
    from formspec_consult.providers.litellm_provider import LiteLLMProvider

    return LiteLLMProvider(
        resolution.model,
        api_base=resolution.api_base,
        api_key=key.key,
        account=key.account,
        context_window=settings.context_window,
        reserved_output=explicit_reserve(settings),
        allow_unvalidated=settings.allow_unvalidated,
        request_timeout=settings.request_timeout,
    )
