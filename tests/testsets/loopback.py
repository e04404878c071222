"""A loopback HTTP server that answers every GET with the same bytes, for the download tests (no
network in CI). ``test_cache_and_downloads.py`` has its own, which also fails on purpose."""

from __future__ import annotations

import http.server
import threading
from contextlib import contextmanager
from typing import Iterator, List


@contextmanager
def serving(data: bytes) -> Iterator[tuple]:
    """``(base_url, requests)`` while a server on 127.0.0.1 answers every path with ``data``;
    ``requests`` is a list that gets each requested path."""
    requests: List[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            requests.append(self.path)
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{srv.server_address[1]}", requests
    finally:
        srv.shutdown()
        srv.server_close()
