"""Control of the project's FormSpec dev server (``formspec dev`` by default)."""

from formspec_consult.devserver.config import DevConfig, resolve_config
from formspec_consult.devserver.control import DevServer, DevServerError

__all__ = ["DevConfig", "DevServer", "DevServerError", "resolve_config"]
