#!/usr/bin/env python3
"""Drives pi in RPC mode (`pi --mode rpc`), where extensions have a UI (ctx.hasUI):
sends one prompt, answers every confirm dialog, records every extension UI request.

Usage: rpc_driver.py --confirm yes|no --log FILE -- COMMAND...
Writes each extension_ui_request (notify, setStatus, confirm, ...) to FILE as a JSON
line, answers confirm dialogs with the given answer, and stops pi after agent_end.
Exit 0 when the agent finished, 1 on timeout or when pi died first.
"""
import argparse
import json
import subprocess
import sys
import threading
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--confirm", choices=["yes", "no"], required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--prompt", default="do it")
    ap.add_argument("--timeout", type=float, default=90)
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=sys.stderr)
    done = threading.Event()
    log = open(a.log, "w")

    def send(obj):
        p.stdin.write((json.dumps(obj) + "\n").encode())
        p.stdin.flush()

    def reader():
        buf = b""
        while True:
            chunk = p.stdout.read1(65536) if hasattr(p.stdout, "read1") else p.stdout.read(1)
            if not chunk:
                break
            buf += chunk
            while b"\n" in buf:  # LF only: JSON strings may hold U+2028
                line, buf = buf.split(b"\n", 1)
                try:
                    ev = json.loads(line.decode("utf-8").rstrip("\r"))
                except ValueError:
                    continue
                if ev.get("type") == "extension_ui_request":
                    log.write(json.dumps(ev) + "\n")
                    log.flush()
                    if ev.get("method") == "confirm":
                        send({"type": "extension_ui_response", "id": ev["id"],
                              "confirmed": a.confirm == "yes"})
                elif ev.get("type") == "agent_end":
                    done.set()
        done.set()

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    send({"id": "e2e-1", "type": "prompt", "message": a.prompt})
    finished = done.wait(a.timeout)
    alive = p.poll() is None
    try:
        p.stdin.close()
    except OSError:
        pass
    if alive:
        p.terminate()
        try:
            p.wait(5)
        except subprocess.TimeoutExpired:
            p.kill()
    log.close()
    sys.exit(0 if finished and alive else 1)


if __name__ == "__main__":
    main()
