"""A stand-in SMS gateway for Rollcall's tests: an HTTP server on loopback that keeps every POST it receives.

Each request is written to DIR/requests/NNNN.json (path, headers, body). When listening, the port is written to
DIR/ready. With --fail N, the first N requests are answered 503, as a gateway that is down would.

    python sms_gateway.py --dir DIR [--fail N]
"""

import argparse
import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--fail", type=int, default=0)
    options = parser.parse_args()
    directory = Path(options.dir)
    requests = directory / "requests"
    requests.mkdir(parents=True, exist_ok=True)
    state = {"seen": 0}

    class Gateway(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            state["seen"] += 1
            if state["seen"] <= options.fail:
                self.send_response(503)
                self.end_headers()
                return
            number = len(list(requests.glob("*.json"))) + 1
            (requests / f"{number:04d}.json").write_text(
                json.dumps({"path": self.path, "headers": dict(self.headers), "body": body.decode()})
            )
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(b'{"accepted": true}')

        def log_message(self, *arguments):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Gateway)
    (directory / "ready.tmp").write_text(str(server.server_address[1]))
    (directory / "ready.tmp").rename(directory / "ready")
    server.serve_forever()


if __name__ == "__main__":
    main()
