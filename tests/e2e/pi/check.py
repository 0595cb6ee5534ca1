#!/usr/bin/env python3
"""What the model was told: the tool results in the last request a run's mock logged.

Usage: check.py REQUESTS_JSONL (--has TEXT | --lacks TEXT | --dump)...
Exit 0 when every --has text is in some tool result and no --lacks text is in any.
Understands Anthropic tool_result blocks, OpenAI role "tool" messages, Responses
function_call_output items and Gemini functionResponse parts.
"""
import json
import sys


def tool_results(req):
    b = req.get("body") or {}
    out = []
    for m in b.get("messages") or []:
        c = m.get("content")
        if m.get("role") == "tool":
            out.append(c if isinstance(c, str) else json.dumps(c))
        elif isinstance(c, list):
            out += [json.dumps(x.get("content")) for x in c
                    if isinstance(x, dict) and x.get("type") == "tool_result"]
    for it in b.get("input") or []:
        if isinstance(it, dict) and it.get("type", "").endswith("_output"):
            out.append(json.dumps(it.get("output")))
    for c in b.get("contents") or []:
        for p in c.get("parts") or []:
            if "functionResponse" in p:
                out.append(json.dumps(p["functionResponse"]))
    return out


def main():
    reqs = []
    with open(sys.argv[1]) as f:
        for line in f:
            r = json.loads(line)
            if r.get("method") == "POST" and tool_results(r):
                reqs.append(r)
    results = tool_results(reqs[-1]) if reqs else []
    ok = True
    args = sys.argv[2:]
    for flag, text in zip(args[::2], args[1::2]):
        if flag == "--has" and not any(text in r for r in results):
            print("  model was not told %r; tool results: %r" % (text, results))
            ok = False
        if flag == "--lacks" and any(text in r for r in results):
            print("  model was told %r; tool results: %r" % (text, results))
            ok = False
    if "--dump" in args:
        print(json.dumps(results, indent=1))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
