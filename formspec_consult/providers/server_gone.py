"""Telling a local model server that died from one that merely failed.

When a local server (llama.cpp, Ollama, vLLM on this machine) crashes in the middle of a reply,
litellm reports only "Connection error". Whether anything still listens on the server's port
says which it was: nothing there means the process is gone, and the person needs to hear that,
not a generic failure.
"""

from __future__ import annotations

import socket
from urllib.parse import urlparse

from formspec_consult.providers.keys import is_local_url

_CONNECTION_WORDS = ("connection error", "connection reset", "peer closed", "server disconnected",
                     "remoteprotocolerror", "connection aborted", "broken pipe")


def looks_like_a_lost_connection(text: str) -> bool:
    """Whether an error's text says the connection broke (rather than the server answering)."""
    lowered = text.lower()
    return any(word in lowered for word in _CONNECTION_WORDS)


def gone_server(api_base: str | None, said: str) -> str | None:
    """A sentence saying the local server at ``api_base`` is gone, when ``said`` is a lost
    connection and nothing listens on its port any more; None otherwise."""
    if not api_base or not is_local_url(api_base) or not looks_like_a_lost_connection(said):
        return None
    parsed = urlparse(api_base)
    host = parsed.hostname or "127.0.0.1"
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    try:
        with socket.create_connection((host, port), timeout=1.0):
            return None  # something still answers there: a failure, not a death
    except ConnectionRefusedError:
        pass
    except OSError:
        return None
    return (f"the model server at {api_base} is gone: its connection broke in the middle of the reply and "
            f"nothing listens on {host}:{port} any more, so the server process ended (crashed or was "
            "stopped; its own log or terminal shows why, e.g. the signal that ended it)")
