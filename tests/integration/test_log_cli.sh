#!/bin/bash
# dcg log and dcg stats as a person reads them: what was targeted is shown (only
# secrets redacted), an allowlisted pass is there with its entry, the filters
# --since --rule --agent --decision, colour only when asked or on a terminal, and a
# rotated log still read.
set -u
DCG=${DCG_BIN:?}
T=${TMPDIR_TEST:?}
export HOME=$T/home XDG_CONFIG_HOME=$T/home/.config DCG_LOG=$T/audit.jsonl
unset DCG_POLICY XDG_STATE_HOME NO_COLOR DCG_LOG_MAX_BYTES
mkdir -p "$HOME"
cd "$T" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
hook() { # AGENT COMMAND
	python3 -c 'import json,sys; print(json.dumps({"hook_event_name": "PreToolUse",
		"tool_name": "Bash", "tool_input": {"command": sys.argv[1]}, "cwd": sys.argv[2]}))' \
		"$2" "$T" | "$DCG" hook --agent "$1" >/dev/null 2>&1
}

hook claude "python3 -c \"import shutil; shutil.rmtree('/srv/data')\""
hook claude 'GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123 gh repo delete me/app'
hook codex 'git push --force origin main'
"$DCG" allow core.git.reset_hard -r "scratch repo" --user >/dev/null || fail "allow"
hook claude 'git reset --hard HEAD~1'

out=$("$DCG" log)
echo "$out" | grep -qF "shutil.rmtree('/srv/data')" || fail "log hides what was targeted: $out"
echo "$out" | grep -q "ghp_abcdef" && fail "log shows a token: $out"
echo "$out" | grep -q "gh repo delete me/app" || fail "log lost the command around the token: $out"
echo "$out" | grep -q "allow .*core.git.reset_hard.*\[allowed: scratch repo, .*policy.yaml:" ||
	fail "the allowlisted pass is not logged with its entry: $out"
[ "$(printf '%s' "$out" | grep -c $'\033')" = 0 ] || fail "colour when not on a terminal"

n() { "$DCG" log "$@" | tail -n +2 | grep -c .; }
[ "$(n --agent codex)" = 1 ] || fail "--agent codex: $("$DCG" log --agent codex)"
[ "$(n --decision allow)" = 1 ] || fail "--decision allow"
[ "$(n --decision deny)" = 3 ] || fail "--decision deny: $("$DCG" log --decision deny)"
[ "$(n --rule 'core.git.*')" = 2 ] || fail "--rule glob: $("$DCG" log --rule 'core.git.*')"
[ "$(n --rule core.git.push_force)" = 1 ] || fail "--rule ID"
[ "$(n --since 1h)" = 4 ] || fail "--since 1h"
[ "$("$DCG" log --since 2099-01-01 | grep -c .)" = 0 ] || fail "--since the future"
[ "$(n --since 2000-01-01T00:00 --agent claude --decision deny)" = 2 ] || fail "combined filters"
"$DCG" log --since yesterday 2>/dev/null && fail "--since yesterday accepted"
"$DCG" log --decision maybe 2>/dev/null && fail "--decision maybe accepted"
"$DCG" log --json --agent codex | python3 -c 'import json,sys; [json.loads(l) for l in sys.stdin]' ||
	fail "log --json"

# colour: asked for, refused, and NO_COLOR on a terminal
"$DCG" log --color=always | grep -q $'\033\\[1;31mdeny' || fail "--color=always has no colour"
"$DCG" log --color=never | grep -q $'\033' && fail "--color=never has colour"
"$DCG" log --color=sometimes 2>/dev/null && fail "--color=sometimes accepted"
if command -v script >/dev/null; then
	script -qec "'$DCG' log" /dev/null | grep -q $'\033\\[1;31m' || fail "no colour on a terminal"
	NO_COLOR=1 script -qec "'$DCG' log" /dev/null | grep -q $'\033\\[' && fail "NO_COLOR ignored"
fi

# stats: refusals by rule and agent, allowlisted passes
st=$("$DCG" stats)
echo "$st" | grep -E -q '^claude +2 +0 +0 +1 +0 +0$' || fail "stats by agent: $st"
echo "$st" | grep -E -q '^codex +1 +0 +0 +0 +0 +0$' || fail "stats by agent: $st"
echo "$st" | grep -E -q '^core.git.reset_hard +0 +0 +0 +1 +0 +0$' || fail "stats by rule: $st"
"$DCG" stats --json | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["entries"] == 4' ||
	fail "stats --json"

# a rotated log: FILE.1 is read before FILE
export DCG_LOG_MAX_BYTES=1024
for i in 1 2 3 4 5 6; do hook codex "git push --force origin b$i"; done
[ -e "$DCG_LOG.1" ] || fail "the log did not rotate at 1024 bytes"
[ "$(n --agent codex --last 100)" -ge 4 ] || fail "rotated entries not read: $("$DCG" log --agent codex)"
echo ok
