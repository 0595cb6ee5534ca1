#!/usr/bin/env python3
"""Assertions over a finished e2e run directory.

    check.py RUN_DIR ASSERTION [ARGS...]

  tree-intact DIR         every file under RUN_DIR/DIR is byte for byte as recorded in
                          RUN_DIR/DIR.sha256 before the run
  gone DIR                RUN_DIR/DIR no longer exists (the control runs)
  file-is PATH TEXT       RUN_DIR/PATH holds exactly TEXT
  absent PATH             RUN_DIR/PATH does not exist
  told TEXT               the client's last request to the model carries a tool result
                          containing TEXT (what the model was told)
  logged TEXT             dcg's audit log in the run's HOME has a line containing TEXT
  quiet                   no line of the client's stderr (err.txt) starts with "dcg:", no
                          tool result the model got holds "dcg:", and the audit log holds
                          no entry but allows (ordinary work under a runtime layer)
Prints one line, "ok ..." or "FAIL ...", and exits 0 or 1."""
import hashlib
import json
import os
import sys


def digest_tree(root):
    out = {}
    for d, _, files in os.walk(root):
        for f in files:
            p = os.path.join(d, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, root)] = hashlib.sha256(fh.read()).hexdigest()
    return out


def record(run, rel):
    with open(os.path.join(run, rel + ".sha256"), "w") as f:
        json.dump(digest_tree(os.path.join(run, rel)), f, sort_keys=True)


def tool_results(run):
    last = None
    with open(os.path.join(run, "requests.jsonl")) as f:
        for line in f:
            r = json.loads(line)
            body = r.get("body") or {}
            if r.get("path", "").split("?")[0].endswith("/v1/messages") and body.get("tools"):
                last = body
    out = []
    for m in (last or {}).get("messages", []):
        c = m.get("content")
        if isinstance(c, list):
            for b in c:
                if isinstance(b, dict) and b.get("type") == "tool_result":
                    out.append(json.dumps(b.get("content")))
    return out


def main():
    run, what, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    name = os.path.basename(run)
    if what == "record":
        record(run, args[0])
        return 0
    if what == "tree-intact":
        with open(os.path.join(run, args[0] + ".sha256")) as f:
            want = json.load(f)
        path = os.path.join(run, args[0])
        got = digest_tree(path) if os.path.isdir(path) else None
        ok, why = got == want, "differs from before the run" if got is not None else "is gone"
    elif what == "gone":
        ok, why = not os.path.exists(os.path.join(run, args[0])), "still exists"
    elif what == "absent":
        ok, why = not os.path.lexists(os.path.join(run, args[0])), "exists"
    elif what == "file-is":
        p = os.path.join(run, args[0])
        text = open(p).read() if os.path.exists(p) else None
        ok, why = text == args[1], "holds %r" % (text,)
    elif what == "told":
        results = tool_results(run)
        ok, why = any(args[0] in r for r in results), "tool results: %r" % (results,)
    elif what == "logged":
        p = os.path.join(run, "home/.local/state/dcg/audit.jsonl")
        text = open(p).read() if os.path.exists(p) else ""
        ok, why = args[0] in text, "audit log: %r" % (text[-400:],)
    elif what == "quiet":
        why = []
        p = os.path.join(run, "err.txt")
        err = open(p, errors="replace").read().splitlines() if os.path.exists(p) else []
        why += ["stderr: " + l for l in err if l.startswith("dcg:")][:5]
        why += ["told: " + r[:300] for r in tool_results(run) if "dcg:" in r][:5]
        p = os.path.join(run, "home/.local/state/dcg/audit.jsonl")
        log = open(p, errors="replace").read().splitlines() if os.path.exists(p) else []
        why += ["logged: " + l[:300] for l in log if '"decision":"allow"' not in l][:5]
        ok, why = not why, "; ".join(why)
    else:
        print("check.py: unknown assertion %s" % what)
        return 2
    desc = "%s: %s %s" % (name, what, " ".join(a if "\n" not in a else repr(a) for a in args))
    print(("ok   " if ok else "FAIL ") + desc + ("" if ok else " -- " + why))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
