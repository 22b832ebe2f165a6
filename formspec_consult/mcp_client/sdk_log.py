"""The SDK's own complaints about a stdio server go to that server's log, never to the terminal.

`mcp.client.stdio` logs a line it cannot parse (a server that prints a banner or debug text on
stdout) with `logger.exception`; with no logging set up, Python's last-resort handler prints the
whole traceback on stderr — in the TUI, across the screen. Each connection's reader task is
started inside its owner task, so a context variable set there names the log of the server the
record is about; the record is written to it as one line, and the SDK logger no longer
propagates. A record with no server log known (none of ours) is dropped, as a quiet library would.
"""

from __future__ import annotations

import logging
from contextvars import ContextVar
from typing import TextIO

SDK_STDIO_LOGGER = "mcp.client.stdio"
_server_log: ContextVar[TextIO | None] = ContextVar("formspec_mcp_server_log", default=None)


class _ToServerLog(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        stream = _server_log.get()
        if stream is None or stream.closed:
            return
        message = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            first = str(record.exc_info[1]).strip().splitlines()
            message += f": {type(record.exc_info[1]).__name__}" + (f": {first[0]}" if first else "")
        try:
            stream.write(f"[formspec-consult] {record.levelname.lower()}: {message}\n")
            stream.flush()
        except (OSError, ValueError):  # a full disk or a closed file must not break the reader
            pass


_HANDLER = _ToServerLog()


def route_sdk_log_to(stream: TextIO) -> None:
    """From here on in this task (and the tasks it starts), the SDK's stdio records go to `stream`."""
    logger = logging.getLogger(SDK_STDIO_LOGGER)
    if _HANDLER not in logger.handlers:
        logger.addHandler(_HANDLER)
        logger.propagate = False
    _server_log.set(stream)
