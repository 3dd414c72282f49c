"""A tiny reverse proxy that adds `Authorization: Bearer <token>` to requests that carry none.

The conformance suite and the Inspector CLI cannot send a bearer token, and every MCP method of
the real server needs one. The proxy forwards everything else untouched (method, path, body,
`Host`, `Origin`, MCP headers) so that header-validation and DNS-rebinding scenarios still test
the server itself, and relays the answer as is (status, headers, body).

Run standalone: python authproxy.py LISTEN_PORT UPSTREAM_PORT TOKEN
"""

from __future__ import annotations

import http.client
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HOP_BY_HOP = {
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailers",
    "transfer-encoding",
    "upgrade",
}


def make_handler(upstream_host: str, upstream_port: int, token: str) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
            pass

        def _forward(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            headers = [(k, v) for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP]
            if not any(k.lower() == "authorization" for k, _ in headers):
                headers.append(("Authorization", f"Bearer {token}"))
            conn = http.client.HTTPConnection(upstream_host, upstream_port, timeout=60)
            try:
                conn.putrequest(self.command, self.path, skip_host=True, skip_accept_encoding=True)
                for k, v in headers:
                    conn.putheader(k, v)
                conn.endheaders(body)
                resp = conn.getresponse()
                data = resp.read()
                self.send_response_only(resp.status, resp.reason)
                for k, v in resp.getheaders():
                    if k.lower() not in HOP_BY_HOP and k.lower() != "content-length":
                        self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(data)
            except OSError as exc:
                msg = f"proxy: upstream failed: {exc}".encode()
                self.send_response_only(502)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(msg)))
                self.end_headers()
                self.wfile.write(msg)
            finally:
                conn.close()

        do_GET = do_POST = do_DELETE = do_PUT = do_PATCH = do_OPTIONS = do_HEAD = _forward

    return Handler


class AuthProxy:
    """Starts on 127.0.0.1:<free port> in a daemon thread; `.url` is its base URL."""

    def __init__(self, upstream_port: int, token: str, upstream_host: str = "127.0.0.1") -> None:
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(upstream_host, upstream_port, token))
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


if __name__ == "__main__":
    listen, upstream, tok = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    srv = ThreadingHTTPServer(("127.0.0.1", listen), make_handler("127.0.0.1", upstream, tok))
    print(f"proxy on http://127.0.0.1:{listen} -> 127.0.0.1:{upstream}", flush=True)
    srv.serve_forever()
