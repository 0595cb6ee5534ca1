#!/bin/bash
# Wrapping an agent: the process `dcg run` starts is the agent and keeps files owned by
# :agent, its children do not; `dcg --shell-prefix COMMAND` (Claude Code's
# CLAUDE_CODE_SHELL_PREFIX, quoted the way Claude Code quotes it) runs COMMAND with
# $SHELL -c under the guard, as a tool's shell: no agent there.
set -u
: "${BUILD:=build}"
: "${TMPDIR_TEST:=$(mktemp -d)}"
DCG=${DCG_BIN:-$PWD/$BUILD/dcg}
T=$TMPDIR_TEST
W=$T/ws
fail() { echo "FAIL: $*"; exit 1; }
export HOME=$T/home XDG_STATE_HOME=$T/home/.local/state XDG_CONFIG_HOME=$T/home/.config
export SHELL=/bin/bash
unset DCG_POLICY LD_PRELOAD DCG_LOG
mkdir -p "$HOME" "$W/nd"
printf 'keep\n' >"$W/nd/keep"
printf '{}\n' >"$W/own.json"
cat >"$W/policy.yaml" <<POL
noDeletePaths: ['$W/nd/']
readOnlyPaths:
  - {path: '$W/own.json', owners: [':agent']}
POL
touch -d '1 minute ago' "$W/nd/keep" "$W/own.json"
# Older than any session started from now on: a session starts one tick of the
# kernel's coarse clock back (rt_session_now() in runtime/rt.h).
sleep 0.05

# the wrapped process itself keeps its own file; a child it starts may not
"$DCG" run --policy "$W/policy.yaml" -- bash -c "echo '{\"a\":1}' > '$W/own.json'" 2>"$T/e1" ||
	{ cat "$T/e1"; fail "the agent's own process could not write its own settings"; }
grep -q '"a"' "$W/own.json" || fail "own.json not written by the agent itself"
"$DCG" run --policy "$W/policy.yaml" -- bash -c "bash -c \"echo x > '$W/own.json'\"; true" 2>"$T/e2"
grep -q '"a"' "$W/own.json" || fail "a child of the agent wrote the agent's settings"
grep -q "^dcg: blocked .* $W/own.json: readOnlyPaths" "$T/e2" || { cat "$T/e2"; fail "no refusal line for the child"; }

# Claude Code's form: '<prefix executable>' <options> '<command>'
out=$(cd "$W" && bash -c "'$DCG' --policy '$W/policy.yaml' --shell-prefix 'echo hello from the tool'" 2>"$T/e3") ||
	{ cat "$T/e3"; fail "a plain command failed under the shell prefix"; }
[ "$out" = "hello from the tool" ] || fail "shell prefix output: $out"
if grep -q '^dcg:' "$T/e3"; then cat "$T/e3"; fail "the shell prefix said something for a plain command"; fi
(cd "$W" && bash -c "'$DCG' --policy '$W/policy.yaml' --shell-prefix 'rm -f nd/keep; true'") 2>"$T/e4"
[ -f "$W/nd/keep" ] || fail "the shell prefix let a no-delete file go"
grep -q "^dcg: blocked .* of $W/nd/keep" "$T/e4" || { cat "$T/e4"; fail "no refusal line under the shell prefix"; }
(cd "$W" && bash -c "'$DCG' --policy '$W/policy.yaml' --shell-prefix 'echo {} > own.json'") 2>"$T/e5"
grep -q '"a"' "$W/own.json" || fail "under a shell prefix the tool's shell counted as the agent"
grep -q "^dcg: blocked .* $W/own.json: readOnlyPaths" "$T/e5" || { cat "$T/e5"; fail "no refusal line naming own.json"; }

# dcg install --agent claude --shell-prefix sets Claude Code's prefix to this binary;
# uninstall takes it out again and leaves the user's other settings alone.
P=$T/proj
mkdir -p "$P/.claude"
printf '{"env": {"FOO": "1"}, "model": "m"}\n' >"$P/.claude/settings.json"
(cd "$P" && "$DCG" install --agent claude --shell-prefix --force) >"$T/i1" 2>&1 || { cat "$T/i1"; fail "install --shell-prefix"; }
python3 - "$P/.claude/settings.json" "$DCG --shell-prefix" <<'PY' || fail "the prefix is not in the settings"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["env"]["CLAUDE_CODE_SHELL_PREFIX"] == sys.argv[2], d
assert d["env"]["FOO"] == "1" and d["model"] == "m", d
PY
(cd "$P" && "$DCG" uninstall --agent claude) >"$T/i2" 2>&1 || { cat "$T/i2"; fail "uninstall"; }
python3 - "$P/.claude/settings.json" <<'PY' || fail "uninstall left the prefix or lost a setting"
import json, sys
d = json.load(open(sys.argv[1]))
assert "CLAUDE_CODE_SHELL_PREFIX" not in d.get("env", {}), d
assert d["env"]["FOO"] == "1" and d["model"] == "m", d
PY
echo "ok"
