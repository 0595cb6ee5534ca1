#!/usr/bin/env python3
"""A scripted model API on 127.0.0.1 for the end-to-end runs of real agent clients.

Usage: mock_model.py --port N --scenario FILE --log FILE

Speaks enough of four APIs for a client to run tools:
  POST .../v1/messages                    Anthropic Messages (SSE or JSON)       Claude Code, pi
  POST .../chat/completions               OpenAI chat completions (SSE or JSON)  pi
  POST .../responses                      OpenAI Responses (SSE)                 Codex CLI
  POST .../models/M:streamGenerateContent Gemini API (SSE) and :generateContent  Gemini CLI

Scenario (JSON): {"steps": [{"name": TOOL, "input": {...}}, ...], "final_text": "..."}
The answer to a request is steps[n] as a tool call, where n counts the tool results
already in the conversation, then final_text. A step's name may be a list of
candidates ("exec_command|shell"): the first one the client offered is used; with
"input_by_tool": {"shell": {...}} the input may depend on the name chosen. Requests
that offer no tools (titles, summaries) get a short text. Every request is logged
as one JSON line.
"""
import argparse
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
ARGS = None
SEQ = {"n": 0}


def next_id(prefix):
    with LOCK:
        SEQ["n"] += 1
        return "%s_e2e_%04d" % (prefix, SEQ["n"])


def log(rec):
    with LOCK:
        with open(ARGS.log, "a") as f:
            f.write(json.dumps(rec) + "\n")


def scenario():
    with open(ARGS.scenario) as f:
        return json.load(f)


def pick(step, offered):
    """The tool name and input of a step, given the names the client offered."""
    names = step["name"].split("|")
    name = next((n for n in names if n in offered), names[0])
    inp = step.get("input_by_tool", {}).get(name, step.get("input", {}))
    return name, inp


def decide(n_results, offered, has_tools):
    sc = scenario()
    steps = sc.get("steps", [])
    if not has_tools:
        return ("text", sc.get("side_text", "E2E side answer"))
    if n_results < len(steps):
        st = steps[n_results]
        return ("tool", [pick(s, offered) for s in st.get("parallel", [st])])
    return ("text", sc.get("final_text", "E2E final answer: done."))


class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *a):
        sys.stderr.write("[mock] " + (fmt % a) + "\n")

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        try:
            return json.loads(raw) if raw else {}
        except ValueError:
            return {"_raw": raw.decode("utf-8", "replace")}

    def send_json(self, code, obj):
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def sse_start(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def sse(self, event, data):
        if event:
            self.wfile.write(("event: %s\n" % event).encode())
        self.wfile.write(("data: %s\n\n" % json.dumps(data)).encode())
        self.wfile.flush()

    def do_HEAD(self):
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self):
        log({"t": time.time(), "method": "GET", "path": self.path})
        if "/models" in self.path:
            # one list in the OpenAI and the Anthropic shapes at once
            return self.send_json(200, {"object": "list", "data": [
                {"id": "mock-model", "object": "model", "type": "model", "display_name": "mock",
                 "created": 0, "owned_by": "e2e"}], "models": [], "has_more": False})
        self.send_json(404, {"error": {"message": "mock: no GET " + self.path}})

    def do_POST(self):
        b = self.body()
        log({"t": time.time(), "method": "POST", "path": self.path, "body": b})
        path = self.path.split("?")[0]
        if path.endswith("/messages/count_tokens"):
            return self.send_json(200, {"input_tokens": 42})
        if path.endswith("/messages"):
            return self.anthropic(b)
        if path.endswith("/chat/completions"):
            return self.openai_chat(b)
        if path.endswith("/responses"):
            return self.openai_responses(b)
        if ":streamGenerateContent" in path or ":generateContent" in path:
            return self.gemini(b, ":streamGenerateContent" in path)
        if ":countTokens" in path:
            return self.send_json(200, {"totalTokens": 42})
        self.send_json(404, {"error": {"message": "mock: no POST " + self.path}})

    # ---- Anthropic Messages ----
    def anthropic(self, b):
        n = sum(1 for m in b.get("messages", []) if m.get("role") == "user"
                and isinstance(m.get("content"), list)
                and any(isinstance(c, dict) and c.get("type") == "tool_result" for c in m["content"]))
        offered = [t.get("name") for t in b.get("tools") or []]
        kind, val = decide(n, offered, bool(b.get("tools")))
        if kind == "tool":
            blocks = [{"type": "tool_use", "id": next_id("toolu"), "name": nm, "input": inp}
                      for nm, inp in val]
            stop = "tool_use"
        else:
            blocks = [{"type": "text", "text": val}]
            stop = "end_turn"
        msg = {"id": next_id("msg"), "type": "message", "role": "assistant",
               "model": b.get("model", "mock-model"), "stop_sequence": None,
               "usage": {"input_tokens": 10, "output_tokens": 5}}
        if not b.get("stream"):
            return self.send_json(200, dict(msg, content=blocks, stop_reason=stop))
        self.sse_start()
        self.sse("message_start", {"type": "message_start",
                                   "message": dict(msg, content=[], stop_reason=None)})
        for i, blk in enumerate(blocks):
            if blk["type"] == "tool_use":
                self.sse("content_block_start", {"type": "content_block_start", "index": i,
                         "content_block": dict(blk, input={})})
                self.sse("content_block_delta", {"type": "content_block_delta", "index": i,
                         "delta": {"type": "input_json_delta",
                                   "partial_json": json.dumps(blk["input"])}})
            else:
                self.sse("content_block_start", {"type": "content_block_start", "index": i,
                         "content_block": {"type": "text", "text": ""}})
                self.sse("content_block_delta", {"type": "content_block_delta", "index": i,
                         "delta": {"type": "text_delta", "text": blk["text"]}})
            self.sse("content_block_stop", {"type": "content_block_stop", "index": i})
        self.sse("message_delta", {"type": "message_delta",
                 "delta": {"stop_reason": stop, "stop_sequence": None},
                 "usage": {"output_tokens": 5}})
        self.sse("message_stop", {"type": "message_stop"})

    # ---- OpenAI chat completions ----
    def openai_chat(self, b):
        msgs = b.get("messages", [])
        n = sum(1 for i, m in enumerate(msgs) if m.get("role") == "assistant" and m.get("tool_calls")
                and i + 1 < len(msgs) and msgs[i + 1].get("role") == "tool")
        offered = [(t.get("function") or {}).get("name") for t in b.get("tools") or []]
        kind, val = decide(n, offered, bool(b.get("tools")))
        cid, created, model = next_id("chatcmpl"), int(time.time()), b.get("model", "mock-model")
        if kind == "tool":
            tcs = [{"id": next_id("call"), "type": "function",
                    "function": {"name": nm, "arguments": json.dumps(inp)}} for nm, inp in val]
            msg, finish = {"role": "assistant", "content": None, "tool_calls": tcs}, "tool_calls"
        else:
            msg, finish = {"role": "assistant", "content": val}, "stop"
        usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        if not b.get("stream"):
            return self.send_json(200, {"id": cid, "object": "chat.completion", "created": created,
                                        "model": model, "usage": usage, "choices": [
                                            {"index": 0, "message": msg, "finish_reason": finish}]})
        self.sse_start()

        def chunk(delta, fr=None):
            self.sse(None, {"id": cid, "object": "chat.completion.chunk", "created": created,
                            "model": model,
                            "choices": [{"index": 0, "delta": delta, "finish_reason": fr}]})
        chunk({"role": "assistant", "content": ""})
        if kind == "tool":
            for i, tc in enumerate(msg["tool_calls"]):
                chunk({"tool_calls": [dict(tc, index=i)]})
        else:
            chunk({"content": val})
        chunk({}, finish)
        if (b.get("stream_options") or {}).get("include_usage"):
            self.sse(None, {"id": cid, "object": "chat.completion.chunk", "created": created,
                            "model": model, "choices": [], "usage": usage})
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()

    # ---- OpenAI Responses (Codex) ----
    def openai_responses(self, b):
        items = b.get("input") or []
        n = sum(1 for it in items if isinstance(it, dict) and it.get("type") in
                ("function_call_output", "custom_tool_call_output", "local_shell_call_output"))
        offered = [t.get("name") for t in b.get("tools") or [] if isinstance(t, dict)]
        kind, val = decide(n, offered, bool(b.get("tools")))
        rid = next_id("resp")
        self.sse_start()
        base = {"id": rid, "object": "response", "created_at": int(time.time()),
                "model": b.get("model", "mock-model"), "status": "in_progress", "output": []}
        self.sse("response.created", {"type": "response.created", "response": base})
        out = []
        if kind == "tool":
            tools = {t.get("name"): t for t in b.get("tools") or [] if isinstance(t, dict)}
            for nm, inp in val:
                if tools.get(nm, {}).get("type") == "custom":
                    item = {"type": "custom_tool_call", "id": next_id("ctc"), "status": "completed",
                            "call_id": next_id("call"), "name": nm,
                            "input": inp if isinstance(inp, str) else inp.get("input", "")}
                else:
                    item = {"type": "function_call", "id": next_id("fc"), "status": "completed",
                            "call_id": next_id("call"), "name": nm, "arguments": json.dumps(inp)}
                out.append(item)
        else:
            out.append({"type": "message", "id": next_id("m"), "role": "assistant",
                        "status": "completed",
                        "content": [{"type": "output_text", "text": val, "annotations": []}]})
        for i, item in enumerate(out):
            self.sse("response.output_item.added", {"type": "response.output_item.added",
                                                    "output_index": i, "item": item})
            self.sse("response.output_item.done", {"type": "response.output_item.done",
                                                   "output_index": i, "item": item})
        done = dict(base, status="completed", output=out,
                    usage={"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
                           "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0},
                           "total_tokens": 15})
        self.sse("response.completed", {"type": "response.completed", "response": done})

    # ---- Gemini API (Gemini CLI) ----
    def gemini(self, b, stream):
        contents = b.get("contents") or []
        n = sum(1 for c in contents if any("functionResponse" in p for p in c.get("parts") or []))
        offered = []
        for t in b.get("tools") or []:
            for d in t.get("functionDeclarations") or []:
                offered.append(d.get("name"))
        kind, val = decide(n, offered, bool(offered))
        if kind == "tool":
            parts = [{"functionCall": {"name": nm, "args": inp}} for nm, inp in val]
        else:
            parts = [{"text": val}]
        resp = {"candidates": [{"content": {"role": "model", "parts": parts},
                                "finishReason": "STOP", "index": 0}],
                "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5,
                                  "totalTokenCount": 15},
                "modelVersion": "mock-model"}
        if not stream:
            return self.send_json(200, resp)
        self.sse_start()
        self.sse(None, resp)


def main():
    global ARGS
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--scenario", required=True)
    ap.add_argument("--log", required=True)
    ARGS = ap.parse_args()
    srv = ThreadingHTTPServer(("127.0.0.1", ARGS.port), H)
    srv.daemon_threads = True
    srv.serve_forever()


if __name__ == "__main__":
    main()
