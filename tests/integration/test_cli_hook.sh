#!/bin/bash
# The dcg binary from a shell, as a user and Claude Code meet it: the real samples of
# what Claude Code sends, make demo's script, explain, log, install --user.
set -u
DCG=${DCG_BIN:?}
T=${TMPDIR_TEST:?}
export HOME=$T/home XDG_CONFIG_HOME=$T/home/.config DCG_LOG=$T/audit.jsonl
unset DCG_POLICY XDG_STATE_HOME
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SAMPLES=$ROOT/tests/golden/claude
mkdir -p "$HOME"
cd "$T" || exit 1
fail() { echo "FAIL: $*"; exit 1; }

# Claude Code's own PreToolUse calls: the Bash one ends in rm -rf, the others are
# ordinary file work in a project.
out=$("$DCG" hook < "$SAMPLES/pretooluse_Bash.json" 2>/dev/null) || fail "hook exit $?"
echo "$out" | grep -q '"permissionDecision":"deny"' || fail "Bash sample not denied: $out"
echo "$out" | grep -q 'core.filesystem.rm_rf' || fail "Bash sample: wrong rule: $out"
for t in Read Write Edit; do
	out=$("$DCG" hook < "$SAMPLES/pretooluse_$t.json" 2>&1) || fail "$t: exit $?"
	[ -z "$out" ] || fail "$t sample answered: $out"
done

# make demo's script: dangerous commands denied, harmless ones allowed
demo=$("$ROOT/scripts/demo.sh" "$DCG" 2>&1) || fail "demo exit $?"
echo "$demo" | grep -A12 "git reset --hard" | grep -q "denied (exit 2)" || fail "demo: reset not denied"
echo "$demo" | grep -A2 "check 'ls -la'" | grep -q "allowed (exit 0)" || fail "demo: ls not allowed: $demo"

# explain: the matching rule and the decision
out=$("$DCG" explain 'cd /tmp && git reset --hard'); rc=$?
[ $rc -eq 2 ] || fail "explain exit $rc"
echo "$out" | grep -q "MATCH *core.git.reset_hard" || fail "explain: no match line"
echo "$out" | grep -q "^decision: deny" || fail "explain: no decision"

# log: the hook's deny above is there, readable and as JSON
"$DCG" log | grep -q "core.filesystem.rm_rf" || fail "log: no entry"
"$DCG" log --json --last 1 | python3 -c 'import json,sys; json.loads(sys.stdin.read())' ||
	fail "log --json is not JSON"

# install --user, twice, then uninstall
"$DCG" install --agent claude --user --force >/dev/null || fail "install"
first=$(cat "$HOME/.claude/settings.json")
"$DCG" install --agent claude --user --force >/dev/null || fail "install again"
[ "$first" = "$(cat "$HOME/.claude/settings.json")" ] || fail "second install changed the file"
echo "$first" | grep -q "hook --agent claude" || fail "no hook command: $first"
"$DCG" status | grep -q "hook: *installed for claude" || fail "status does not see the hook"
"$DCG" uninstall --agent claude --user >/dev/null || fail "uninstall"
# the file held only dcg's entry: uninstall takes it away
[ -e "$HOME/.claude/settings.json" ] && fail "uninstall left $(cat "$HOME/.claude/settings.json")"
echo "ok"
