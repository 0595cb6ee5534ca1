#!/bin/bash
# Observe mode end to end: with `mode: observe` in the user's file the hook lets a
# destructive call through and says on stderr that dcg only observes; dcg status says
# so; the runtime layer lets the exec run; dcg log and dcg stats show the would-be
# refusals apart from the real ones. A project file's `mode: observe` changes nothing.
set -u
DCG=${DCG_BIN:?}
T=${TMPDIR_TEST:?}
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/lib.sh
P=$T/proj
mkdir -p "$P" "$XDG_CONFIG_HOME/dcg"
hook() { # COMMAND: the answer on stdout, stderr in $T/hook.err
	python3 -c 'import json,sys; print(json.dumps({"hook_event_name": "PreToolUse",
		"tool_name": "Bash", "tool_input": {"command": sys.argv[1]}, "cwd": sys.argv[2]}))' \
		"$1" "$P" | "$DCG" hook 2>"$T/hook.err"
}

# a project file cannot set it
mkdir -p "$P/.dcg" && printf 'mode: observe\n' >"$P/.dcg/policy.yaml"
[ -n "$(hook 'git reset --hard')" ] || fail "a project file's mode: observe let it through"
(cd "$P" && "$DCG" status) | grep -q "^mode: *enforce" || fail "status: $(cd "$P" && "$DCG" status)"
rm -r "$P/.dcg"

printf 'mode: observe\n' >"$XDG_CONFIG_HOME/dcg/policy.yaml"
out=$(hook 'git reset --hard')
[ -z "$out" ] || fail "observe mode refused: $out"
grep -q "dcg observes only: .*would have been refused by core.git.reset_hard" "$T/hook.err" ||
	fail "the hook's stderr does not say it only observes: $(cat "$T/hook.err")"
[ -z "$(hook 'git status'; cat "$T/hook.err")" ] || fail "an ordinary call is not quiet"
(cd "$P" && "$DCG" status) | grep -q "^mode: *observe: dcg only observes" || fail "status"
cd "$P" || exit 1
git init -q . 2>/dev/null
"$DCG" run -- sh -c 'true; git reset --hard' >/dev/null 2>"$T/run.err" ||
	fail "dcg run refused under observe mode: $(cat "$T/run.err")"
grep -q "blocked" "$T/run.err" && fail "dcg run printed a refusal: $(cat "$T/run.err")"

# a real refusal beside them (the system file forbids observe from now on)
printf 'mode: enforce\n' >"$T/system.yaml"
DCG_SYSTEM_POLICY=$T/system.yaml hook 'git reset --hard' | grep -q deny ||
	fail "the system file's mode: enforce did not hold"
log=$("$DCG" log)
echo "$log" | grep -c "w-deny *core.git.reset_hard" | grep -q '^2$' || fail "log: $log"
echo "$log" | grep -q " deny  *core.git.reset_hard" || fail "log: the real deny: $log"
[ "$("$DCG" log --observed | tail -n +2 | grep -c .)" = 2 ] || fail "log --observed"
"$DCG" stats | grep -Eq "^core.git.reset_hard +2 +0 +0 +0 +2 +0" || fail "stats: $("$DCG" stats)"
echo ok
