"""A tiny stand-in for ``formspec dev``: an HTTP server on loopback answering ``/health``.

Run as ``python tests/fakes/devserver.py --port N``. Options shape the failure cases:
``--exit-code C`` exits at once; ``--health-status S`` answers /health with S (``--healthy-after N``:
S for the first N requests, then 200, as a server warming up does);
``--ignore-term`` ignores SIGTERM (so stop must escalate to SIGKILL); ``--child-pid-file F``
spawns a grandchild and writes its pid to F (so stop must end the whole process group).
"""

from __future__ import annotations

import argparse
import signal
import subprocess
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--exit-code", type=int, default=None)
    parser.add_argument("--health-status", type=int, default=200)
    parser.add_argument("--healthy-after", type=int, default=None)
    parser.add_argument("--ignore-term", action="store_true")
    parser.add_argument("--child-pid-file", default=None)
    args = parser.parse_args()
    print(f"fake dev server on port {args.port}", flush=True)
    if args.exit_code is not None:
        print("fake dev server: failing on purpose", flush=True)
        sys.exit(args.exit_code)
    if args.ignore_term:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if args.child_pid_file:
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        with open(args.child_pid_file, "w", encoding="utf-8") as handle:
            handle.write(str(child.pid))

    answered = [0]  # /health requests so far

    def health_status() -> int:
        answered[0] += 1
        warm = args.healthy_after is not None and answered[0] > args.healthy_after
        return 200 if warm else args.health_status

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server API
            code = health_status() if self.path == "/health" else 404
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(b'{"status": "ok"}' if code == 200 else b'{"status": "bad"}')

        def log_message(self, format: str, *values: object) -> None:  # noqa: A002
            print(format % values, flush=True)

    ThreadingHTTPServer(("127.0.0.1", args.port), Handler).serve_forever()


if __name__ == "__main__":
    main()
