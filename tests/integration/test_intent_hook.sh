#!/bin/bash
# Intent scopes through `dcg hook`: Claude Code's real PreToolUse input (the samples in
# tests/golden/claude/, paths moved into a temporary project) against a project with
# .orchestration/active_intents.yaml. Checks each answer (nothing for an allowed call,
# ask/deny with the structured JSON error in permissionDecisionReason), the human
# message on stderr, `dcg intent` itself, per-session selection, Codex's apply_patch,
# and tool classes from the policy's `tools:` key.
set -u
BUILD=${BUILD:-build}
T=${TMPDIR_TEST:?}
DCG=${DCG_BIN:-$PWD/$BUILD/dcg}
[ -x "$DCG" ] || { echo "no $DCG"; exit 1; }
command -v python3 >/dev/null || { echo "python3 is needed to read the answers"; exit 77; }
SAMPLES=$PWD/tests/golden/claude

# expect runs at the end of pipelines (in subshells): failures are counted in a file.
rm -f "$T/failed"
bad() { echo "FAIL: $*"; echo x >> "$T/failed"; }

WS=$T/proj
export HOME=$T/home XDG_STATE_HOME=$T/state XDG_CONFIG_HOME=$T/config DCG_LOG=$T/audit.jsonl
unset DCG_POLICY DCG_SESSION_ID
mkdir -p "$HOME" "$WS"/{.orchestration,src/auth,src/api,docs} "$T/outside"
cd "$WS" || exit 1
echo 'export const x = 1;' > src/auth/old.ts
ln -s ../../../outside src/auth/escape

# A Claude Code sample with its project path moved to $WS and fields replaced.
#   claude SAMPLE SESSION KEY=VALUE...   (tool_input keys; tool_name=NAME for the tool)
claude() {
	local sample=$1 session=$2
	shift 2
	python3 - "$SAMPLES/pretooluse_$sample.json" "$WS" "$session" "$@" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
ws, session = sys.argv[2], sys.argv[3]
d = json.loads(json.dumps(d).replace("/home/user/run/proj", ws))
d["session_id"] = session
for kv in sys.argv[4:]:
    k, v = kv.split("=", 1)
    if k == "tool_name":
        d["tool_name"] = v
        d["tool_input"] = {}
    else:
        d["tool_input"][k] = v.replace("@WS", ws)
print(json.dumps(d))
EOF
}

# field JSON-PATH: reads a field of the answer on stdin ("" when absent).
field() {
	python3 -c '
import json, sys
t = sys.stdin.read()
if not t.strip():
    print(""); sys.exit(0)
d = json.loads(t)["hookSpecificOutput"]
for k in sys.argv[1].split("."):
    if k == "REASON_JSON":
        d = json.loads(d["permissionDecisionReason"])
    else:
        d = d.get(k, "") if isinstance(d, dict) else ""
print(d if not isinstance(d, bool) else str(d).lower())' "$1"
}

# expect NAME DECISION [ERROR-CODE] < input: runs the hook, checks its answer.
expect() {
	local name=$1 want=$2 code=${3:-} out err
	out=$("$DCG" hook 2>"$T/err")
	rc=$?
	[ $rc -eq 0 ] || bad "$name: exit $rc"
	if [ "$want" = allow ]; then
		[ -z "$out" ] || bad "$name: expected no answer, got $out"
		return
	fi
	got=$(printf '%s' "$out" | field permissionDecision)
	[ "$got" = "$want" ] || bad "$name: decision '$got', want '$want' ($out)"
	if [ -n "$code" ]; then
		got=$(printf '%s' "$out" | field REASON_JSON.error)
		[ "$got" = "$code" ] || bad "$name: error '$got', want '$code' ($out)"
		rec=$(printf '%s' "$out" | field REASON_JSON.recoverable)
		[ "$rec" = true ] || bad "$name: recoverable '$rec'"
		sug=$(printf '%s' "$out" | field REASON_JSON.suggestion)
		[ -n "$sug" ] || bad "$name: no suggestion"
		grep -q "Outside the active intent's scope" "$T/err" || bad "$name: no human message: $(cat "$T/err")"
	fi
}

# 1. No intents file: intents do not confine anything.
claude Write s1 file_path="$WS/src/api/a.ts" | expect "no intents file" allow
"$DCG" intent list >/dev/null 2>"$T/err" && bad "intent list without a file should fail"
grep -q "no .orchestration/active_intents.yaml" "$T/err" || bad "intent list: $(cat "$T/err")"

cat > .orchestration/active_intents.yaml <<'EOF'
active_intents:
  - id: INT-001
    name: JWT authentication
    status: IN_PROGRESS
    owned_scope: ["src/auth/**", "src/middleware/jwt.ts", "!**/*.test.ts"]
    constraints: ["keep the public API"]
    acceptance_criteria: ["unit tests pass"]
  - id: INT-002
    name: Documentation
    status: PLANNED
    owned_scope: ["docs/**", "README.md"]
EOF

cp .orchestration/active_intents.yaml "$T/intents.orig"

# 2. No active intent: writes are denied with MISSING_INTENT, reads pass.
claude Write s1 file_path="$WS/src/auth/a.ts" | expect "missing intent" deny MISSING_INTENT
claude Read s1 file_path="$WS/src/api/a.ts" | expect "read without intent" allow
claude Write s1 file_path="$T/outside/scratch.txt" | expect "outside the project" allow

# 3. dcg intent select: unknown IDs are refused with the known ones.
"$DCG" intent select INT-404 >/dev/null 2>"$T/err" && bad "unknown intent accepted"
grep -q "INT-001" "$T/err" && grep -q "INT-002" "$T/err" || bad "known IDs not listed: $(cat "$T/err")"
"$DCG" intent select INT-001 >/dev/null || bad "select INT-001"
"$DCG" intent show | grep -q 'src/auth/\*\*' || bad "intent show lacks the scope"
"$DCG" intent list | grep -q '^\* INT-001' || bad "intent list does not mark INT-001"

# 4. Writes inside and outside the scope, through every write tool.
claude Write s1 file_path="$WS/src/auth/new.ts" | expect "write in scope" allow
claude Write s1 file_path="$WS/src/api/new.ts" | expect "write out of scope" ask SCOPE_VIOLATION
claude Edit s1 file_path="$WS/src/auth/old.ts" | expect "edit in scope" allow
claude Edit s1 file_path="$WS/README.md" | expect "edit out of scope" ask SCOPE_VIOLATION
claude Write s1 file_path="$WS/src/auth/old.test.ts" | expect "excluded test file" ask SCOPE_VIOLATION
claude Write s1 file_path="$WS/src/auth/escape/x.ts" | expect "symlink out of scope" ask SCOPE_VIOLATION
claude Write s1 file_path='@WS\src\api\win.ts' | expect "backslashes" ask SCOPE_VIOLATION
claude Write s1 tool_name=MultiEdit file_path="$WS/src/api/m.ts" | expect "MultiEdit" ask SCOPE_VIOLATION
claude Write s1 tool_name=NotebookEdit notebook_path="$WS/nb.ipynb" | expect "NotebookEdit" ask SCOPE_VIOLATION
claude Bash s1 command="echo hi > $WS/src/auth/out.txt" | expect "bash write in scope" allow
claude Bash s1 command="echo hi > src/api/out.txt" | expect "bash redirect out of scope" ask SCOPE_VIOLATION
claude Bash s1 command="rm -f src/api/x.ts" | expect "bash rm out of scope" ask SCOPE_VIOLATION
claude Bash s1 command="ls -la src && cat README.md" | expect "bash read-only" allow
claude Read s1 file_path="$WS/src/api/x.ts" | expect "read out of scope" allow
# The reason names the path and the intent.
out=$(claude Write s1 file_path="$WS/src/api/new.ts" | "$DCG" hook 2>/dev/null)
reason=$(printf '%s' "$out" | field REASON_JSON.reason)
case $reason in *src/api/new.ts*INT-001*) ;; *) bad "reason: $reason" ;; esac

# 5. Sessions: a session's own selection wins; others keep the project's.
"$DCG" intent select INT-002 --session s2 >/dev/null || bad "select for session s2"
claude Write s2 file_path="$WS/docs/guide.md" | expect "session s2 in its scope" allow
claude Write s2 file_path="$WS/src/auth/a.ts" | expect "session s2 out of its scope" ask SCOPE_VIOLATION
claude Write s1 file_path="$WS/src/auth/a.ts" | expect "session s1 keeps the project's" allow
DCG_SESSION_ID=s2 "$DCG" intent show | grep -q 'INT-002 (active)' || bad "show for session s2"
"$DCG" intent clear --session s2 >/dev/null || bad "clear session s2"
claude Write s2 file_path="$WS/src/auth/a.ts" | expect "session s2 back to the project's" allow

# 6. The active intent disappears from the file: INTENT_NOT_FOUND.
"$DCG" intent select INT-002 >/dev/null
sed -i '/INT-002/,$d' .orchestration/active_intents.yaml
claude Write s1 file_path="$WS/docs/a.md" | expect "intent not found" deny INTENT_NOT_FOUND
"$DCG" intent clear >/dev/null || bad "intent clear"
claude Write s1 file_path="$WS/src/auth/a.ts" | expect "cleared" deny MISSING_INTENT
"$DCG" intent select INT-001 >/dev/null

# 7. A broken intents file refuses writes instead of dropping the confinement.
cp .orchestration/active_intents.yaml "$T/intents.bak"
echo 'active_intents: [oops' > .orchestration/active_intents.yaml
claude Write s1 file_path="$WS/src/auth/a.ts" | expect "broken file" deny INVALID_INTENTS_FILE
"$DCG" intent list >/dev/null 2>"$T/err"
grep -q 'active_intents.yaml:' "$T/err" || bad "no diagnostic for the broken file: $(cat "$T/err")"
cp "$T/intents.bak" .orchestration/active_intents.yaml

# 8. Tool classes from the policy: a destructive tool dcg cannot see into asks when the
# policy says destructive tools need approval; a tool named read-only passes.
cat > "$T/policy.yaml" <<'EOF'
tools:
  read_only: [mcp__github__get_*]
  destructive: [mcp__fs__*]
  destructive_need_approval: true
EOF
claude Write s1 tool_name=mcp__fs__write_file | DCG_POLICY=$T/policy.yaml expect "mcp destructive" ask UNCHECKED_TOOL
claude Write s1 tool_name=mcp__github__get_issue | DCG_POLICY=$T/policy.yaml expect "mcp read-only" allow
claude Write s1 tool_name=mcp__fs__write_file | expect "no approval asked by default" allow

# 9. Codex: every file of an apply_patch is checked (Codex has no ask: it is a deny).
patch() {
	python3 - "$WS" "$1" <<'EOF'
import json, sys
ws, f = sys.argv[1], sys.argv[2]
p = "*** Begin Patch\n*** Add File: %s\n+x\n*** Update File: src/auth/old.ts\n@@\n-a\n+b\n*** End Patch\n" % f
print(json.dumps({"session_id": "c1", "cwd": ws, "hook_event_name": "PreToolUse",
                  "tool_name": "apply_patch", "tool_input": {"command": p}}))
EOF
}
out=$(patch src/auth/p.ts | "$DCG" hook --agent codex 2>/dev/null)
[ -z "$out" ] || bad "codex patch in scope: $out"
out=$(patch src/api/p.ts | "$DCG" hook --agent codex 2>/dev/null)
case $out in *SCOPE_VIOLATION*) ;; *) bad "codex patch out of scope not refused: $out" ;; esac

# A patch naming more files than one call holds: the file outside the scope is found
# even when it comes last.
python3 - "$WS" > "$T/big_patch.json" <<'EOF'
import json, sys
ws = sys.argv[1]
p = "*** Begin Patch\n"
for i in range(6):
    p += "*** Add File: src/auth/f%d.ts\n+x\n" % i
p += "*** Add File: src/api/last.ts\n+x\n*** End Patch\n"
print(json.dumps({"session_id": "c1", "cwd": ws, "hook_event_name": "PreToolUse",
                  "tool_name": "apply_patch", "tool_input": {"command": p}}))
EOF
out=$("$DCG" hook --agent codex < "$T/big_patch.json" 2>/dev/null)
case $out in *SCOPE_VIOLATION*) ;; *) bad "codex: the 7th file of a patch out of scope not refused: $out" ;; esac

# Codex sessions have their own selection too.
cp "$T/intents.orig" .orchestration/active_intents.yaml
"$DCG" intent select INT-002 --session c2 >/dev/null || bad "select for codex session c2"
patch docs/p.md | sed 's/"session_id": "c1"/"session_id": "c2"/' > "$T/c2.json"
out=$("$DCG" hook --agent codex < "$T/c2.json" 2>/dev/null)
case $out in *SCOPE_VIOLATION*) ;; *) bad "codex session c2: src/auth/old.ts is outside INT-002: $out" ;; esac
python3 - "$WS" > "$T/c2docs.json" <<'EOF'
import json, sys
p = "*** Begin Patch\n*** Add File: docs/new.md\n+x\n*** End Patch\n"
print(json.dumps({"session_id": "c2", "cwd": sys.argv[1], "hook_event_name": "PreToolUse",
                  "tool_name": "apply_patch", "tool_input": {"command": p}}))
EOF
out=$("$DCG" hook --agent codex < "$T/c2docs.json" 2>/dev/null)
[ -z "$out" ] || bad "codex session c2 in its scope: $out"
"$DCG" intent clear --session c2 >/dev/null

# 10. The audit log has the scope decisions.
grep -q '"scope.violation"' "$DCG_LOG" || bad "no scope.violation in the audit log"

[ -e "$T/failed" ] && { echo "intent hook: $(wc -l < "$T/failed") failures"; exit 1; }
echo "intent hook: all passed"
