#!/bin/bash
# What the hook cannot see is asked about; what the runtime layers see is not (issue 32).
# The hook answers a command whose name it cannot expand, with destructive-looking
# arguments, with "ask" and a reason that says what dcg could not see; the same program
# run for real under dcg run (its name and arguments seen at exec) runs, quietly. And a
# program that runs a command it is handed (tmux, here a real tmux server when there is
# one) has that command judged by the hook.
set -u
: "${BUILD:=build}"
: "${TMPDIR_TEST:=$(mktemp -d)}"
ROOT=$PWD
DCG=${DCG_BIN:-$ROOT/$BUILD/dcg}
T=$TMPDIR_TEST
fail() { echo "FAIL: $*"; exit 1; }
export HOME=$T/home XDG_CONFIG_HOME=$T/home/.config XDG_STATE_HOME=$T/home/.local/state
unset DCG_POLICY LD_PRELOAD DCG_LOG
mkdir -p "$HOME" "$T/proj"
cd "$T/proj" || exit 1

call() { # a Claude Code Bash call of $1
	python3 -c 'import json,sys; print(json.dumps({"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":sys.argv[1]},"cwd":sys.argv[2]}))' "$1" "$T/proj"
}

# the hook: an unknown name with a forced delete verb is asked about, with the reason
out=$(call '$TOOL --force --yes delete prod' | "$DCG" hook 2>/dev/null) || fail "hook exit $?"
echo "$out" | grep -q '"permissionDecision":"ask"' || fail "unknown name not asked: $out"
echo "$out" | grep -q 'shell.unseen.name' || fail "wrong rule: $out"
echo "$out" | grep -q 'cannot see' || fail "the reason does not say what dcg could not see: $out"
# ... and the same construct doing ordinary work passes
out=$(call '${PAGER:-less} notes.txt' | "$DCG" hook 2>/dev/null) || fail "hook exit $?"
[ -z "$out" ] || fail "ordinary unknown name answered: $out"
# a copy of rm run under another name is rm
out=$(call 'cp /bin/rm ./tidy && ./tidy -rf /srv' | "$DCG" hook 2>/dev/null)
echo "$out" | grep -q '"permissionDecision":"deny"' || fail "copied rm not denied: $out"
# the runner table: tmux types the command into a shell
out=$(call "tmux send-keys -t w 'rm -rf ~' Enter" | "$DCG" hook 2>/dev/null)
echo "$out" | grep -q '"permissionDecision":"deny"' || fail "tmux send-keys not judged: $out"
out=$(call "tmux send-keys -t w 'make test' Enter" | "$DCG" hook 2>/dev/null)
[ -z "$out" ] || fail "tmux send-keys make test answered: $out"

# the runtime layer: the program is seen at its exec, nothing is asked
mkdir -p bin
cat >bin/frob <<'SH'
#!/bin/sh
echo "$*" >"$(dirname "$0")/../frob.ran"
SH
chmod +x bin/frob
err=$(TOOL=$PWD/bin/frob "$DCG" run -- bash -c '"$TOOL" -rf /srv/data' 2>&1) ||
	fail "dcg run refused the program it saw: $err"
[ "$(cat frob.ran 2>/dev/null)" = "-rf /srv/data" ] || fail "frob did not run: $err"
echo "$err" | grep -q 'dcg:' && fail "dcg run printed: $err"

# with a real tmux, the command typed in really runs (the evasion is real)
if command -v tmux >/dev/null; then
	export TMUX_TMPDIR=$T/tmux
	mkdir -p "$TMUX_TMPDIR" victim
	tmux new -d -s w "bash --norc" && tmux send-keys -t w "rm -rf $PWD/victim" Enter
	for _ in 1 2 3 4 5 6 7 8 9 10; do [ -e victim ] || break; sleep 0.3; done
	tmux kill-server 2>/dev/null
	[ -e victim ] && fail "tmux send-keys did not run the command it was handed"
fi
echo "ok"
