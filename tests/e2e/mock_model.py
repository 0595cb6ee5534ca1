#!/usr/bin/env python3
"""A stand-in for the model API, for driving the real Claude Code client offline.

    mock_model.py --port PORT --scenario FILE --log FILE

The scenario is JSON: {"steps": [{"name": TOOL, "input": {...}}, ...], "final_text": "..."}.
Each POST /v1/messages that offers tools is answered with the next step as a tool_use,
where "next" is the number of tool results already in the conversation; once the steps
are used up, with final_text. Requests without tools (titles and other side calls) get
a short text. Streaming (SSE) and plain JSON answers are both spoken. Every request
body is appended to the log, one JSON object per line, so that a test can read what
the client told the model (the tool results)."""
import argparse
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
IDS = {"n": 0}


def new_id(prefix):
    with LOCK:
        IDS["n"] += 1
        return "%s_dcg_e2e_%04d" % (prefix, IDS["n"])


def tool_turns(body):
    """Completed tool turns: user messages that carry tool_result blocks."""
    n = 0
    for m in body.get("messages", []):
        c = m.get("content")
        if m.get("role") == "user" and isinstance(c, list) and any(
                isinstance(b, dict) and b.get("type") == "tool_result" for b in c):
            n += 1
    return n


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    scenario = None
    log_path = None

    def log_message(self, fmt, *args):
        sys.stderr.write("[mock] " + (fmt % args) + "\n")

    def send_json(self, code, obj):
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def event(self, name, data):
        self.wfile.write(("event: %s\ndata: %s\n\n" % (name, json.dumps(data))).encode())
        self.wfile.flush()

    def do_HEAD(self):
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self):
        if self.path.startswith("/v1/models"):
            return self.send_json(200, {"data": [{"id": "mock-model", "type": "model",
                                                  "display_name": "mock"}],
                                        "has_more": False})
        self.send_json(404, {"type": "error", "error": {"type": "not_found_error",
                                                         "message": self.path}})

    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = {}
        with LOCK:
            with open(self.log_path, "a") as f:
                f.write(json.dumps({"path": self.path, "body": body}) + "\n")
        path = self.path.split("?")[0]
        if path.endswith("/count_tokens"):
            return self.send_json(200, {"input_tokens": 42})
        if not path.endswith("/v1/messages"):
            return self.send_json(404, {"type": "error", "error": {
                "type": "not_found_error", "message": self.path}})
        self.messages(body)

    def messages(self, body):
        steps = self.scenario.get("steps", [])
        n = tool_turns(body)
        if body.get("tools") and n < len(steps):
            step = steps[n]
            blocks = [{"type": "tool_use", "id": new_id("toolu"), "name": step["name"],
                       "input": step["input"]}]
            stop = "tool_use"
        else:
            text = self.scenario.get("final_text", "done") if body.get("tools") else "E2E title"
            blocks = [{"type": "text", "text": text}]
            stop = "end_turn"
        msg = {"id": new_id("msg"), "type": "message", "role": "assistant",
               "model": body.get("model", "mock-model"), "content": blocks,
               "stop_reason": stop, "stop_sequence": None,
               "usage": {"input_tokens": 10, "output_tokens": 5}}
        if not body.get("stream"):
            return self.send_json(200, msg)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        start = dict(msg, content=[], stop_reason=None)
        self.event("message_start", {"type": "message_start", "message": start})
        for i, b in enumerate(blocks):
            if b["type"] == "tool_use":
                self.event("content_block_start", {"type": "content_block_start", "index": i,
                           "content_block": dict(b, input={})})
                self.event("content_block_delta", {"type": "content_block_delta", "index": i,
                           "delta": {"type": "input_json_delta",
                                     "partial_json": json.dumps(b["input"])}})
            else:
                self.event("content_block_start", {"type": "content_block_start", "index": i,
                           "content_block": {"type": "text", "text": ""}})
                self.event("content_block_delta", {"type": "content_block_delta", "index": i,
                           "delta": {"type": "text_delta", "text": b["text"]}})
            self.event("content_block_stop", {"type": "content_block_stop", "index": i})
        self.event("message_delta", {"type": "message_delta",
                   "delta": {"stop_reason": stop, "stop_sequence": None},
                   "usage": {"output_tokens": 5}})
        self.event("message_stop", {"type": "message_stop"})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--scenario", required=True)
    ap.add_argument("--log", required=True)
    a = ap.parse_args()
    with open(a.scenario) as f:
        Handler.scenario = json.load(f)
    Handler.log_path = a.log
    srv = ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    srv.daemon_threads = True
    sys.stderr.write("[mock] listening on 127.0.0.1:%d\n" % a.port)
    sys.stderr.flush()
    srv.serve_forever()


if __name__ == "__main__":
    main()
