"""A model server that dies in the middle of its reply, as a crashed local server does: it accepts
one chat request, answers 200 with the first frames of a stream, then closes the connection and
stops listening — the port is left with nothing behind it."""

from __future__ import annotations

import json
import socket
import threading


class DyingServer:
    """Serves one streamed reply cut after ``text`` (may be empty), then is gone; ``url`` for --base-url."""

    def __init__(self, text: str = "") -> None:
        self.text = text
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self.died = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def __enter__(self) -> DyingServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._listener.close()
        self._thread.join(timeout=10)

    def _serve(self) -> None:
        try:
            connection, _ = self._listener.accept()
        except OSError:
            return
        with connection:
            self._read_request(connection)
            self._listener.close()  # the process is gone: nothing listens on the port any more
            frames = [{"choices": [{"index": 0, "delta": {"role": "assistant"}}]}]
            if self.text:
                frames.append({"choices": [{"index": 0, "delta": {"content": self.text}}]})
            head = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
            body = b"".join(_chunk(b"data: " + json.dumps({"id": "x", "object": "chat.completion.chunk",
                                                              "model": "fake", **frame}).encode() + b"\n\n")
                            for frame in frames)
            connection.sendall(head + body)
            connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        self.died.set()  # closed with a reset mid-stream, as the kernel does for a killed process

    @staticmethod
    def _read_request(connection: socket.socket) -> None:
        data = b""
        while b"\r\n\r\n" not in data:
            data += connection.recv(65536)
        head, _, body = data.partition(b"\r\n\r\n")
        length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                       if line.lower().startswith(b"content-length:")), 0)
        while len(body) < length:
            body += connection.recv(65536)


def _chunk(data: bytes) -> bytes:
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"
