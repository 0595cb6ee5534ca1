#!/bin/bash
# allow-once codes end to end: the hook's refusal carries a code; `dcg allow-once CODE`
# refuses without a terminal and grants at one (script(1) gives it a pty); the grant
# lets that exact command pass in that folder once; the agent's own `dcg allow-once`
# is refused by the hook and at runtime; the runtime layers offer codes and honour
# grants at exec; guarded processes cannot write the grants.
set -u
DCG=${DCG_BIN:?}
T=${TMPDIR_TEST:?}
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/lib.sh
command -v script >/dev/null || { echo "no script(1) here"; exit 77; }
command -v git >/dev/null || { echo "no git here"; exit 77; }
STATE=$XDG_STATE_HOME/dcg
P=$T/proj
mkdir -p "$P/src" "$T/elsewhere"
git -C "$P" init -q . && git -C "$P" -c user.email=t@t -c user.name=t commit -q --allow-empty -m one ||
	fail "git init"

hook() { # CWD COMMAND: the answer on stdout
	python3 -c 'import json,sys; print(json.dumps({"hook_event_name": "PreToolUse",
		"tool_name": "Bash", "tool_input": {"command": sys.argv[1]}, "cwd": sys.argv[2]}))' \
		"$2" "$1" | "$DCG" hook 2>"$T/hook.err"
}
code_of() { grep -o 'dcg allow-once [0-9A-Z]\{8\}' | head -n 1 | awk '{print $3}'; }
at_tty() { # COMMAND...: run at a pseudo-terminal, answering y
	printf 'y\n' | script -qec "$*" /dev/null
}

# 1. the hook: a code in the agent's reason and on stderr
out=$(hook "$P/src" 'git reset --hard HEAD~1')
echo "$out" | grep -q '"permissionDecision":"deny"' || fail "not denied: $out"
code=$(echo "$out" | code_of)
[ -n "$code" ] || fail "no code in the agent's reason: $out"
grep -q "dcg allow-once $code" "$T/hook.err" || fail "no code on stderr: $(cat "$T/hook.err")"
[ "$(hook "$P/src" 'git reset --hard HEAD~1' | code_of)" = "$code" ] ||
	fail "the same refusal got another code"

# 2. no terminal: refused, nothing granted; --dry-run shows the command
out=$("$DCG" allow-once "$code" </dev/null 2>&1) && fail "redeemed without a terminal: $out"
echo "$out" | grep -q "not a terminal" || fail "no terminal: wrong message: $out"
[ ! -s "$STATE/once-grants" ] || fail "a grant was written without a terminal"
out=$("$DCG" allow-once --dry-run "$code" </dev/null) || fail "dry run: $out"
echo "$out" | grep -q "| git reset --hard HEAD~1" || fail "dry run hides the command: $out"
echo "$out" | grep -q "Folder: *$P\$" || fail "dry run: not the repository's root: $out"
"$DCG" allow-once --list | grep -q "$code *offered" || fail "list: $("$DCG" allow-once --list)"

# 3. at a terminal: granted; the exact command passes once, in that folder only
out=$(at_tty "$DCG" allow-once "$code") || fail "redeem at a terminal: $out"
echo "$out" | grep -q "Granted" || fail "not granted: $out"
[ -n "$(hook "$T/elsewhere" 'git reset --hard HEAD~1')" ] || fail "passed in another folder"
[ -n "$(hook "$P" 'git reset --hard HEAD~2')" ] || fail "another command passed"
[ -z "$(hook "$P" 'git reset --hard HEAD~1')" ] || fail "the granted command was refused"
out=$(hook "$P" 'git reset --hard HEAD~1')
[ -n "$out" ] || fail "passed twice"
code2=$(echo "$out" | code_of)
[ -n "$code2" ] && [ "$code2" != "$code" ] || fail "a spent code offered again: $code2"
"$DCG" log --json | grep -q '"allowed_by_once":true' || fail "the pass is not logged"

# 4. the agent's own allow-once: refused by the hook, with no code of its own
out=$(hook "$P" "dcg allow-once $code2")
echo "$out" | grep -q "system.dcg_self_change" || fail "the hook let dcg allow-once through: $out"
[ -z "$(echo "$out" | code_of | grep -v "$code2")" ] || fail "a code offered for dcg allow-once"

# 5. runtime: refused at exec with a code; redeemed; passes once
cd "$P" || fail "cd"
printf 'git reset --hard HEAD\n' >"$T/reset.sh"
err=$("$DCG" run -- sh "$T/reset.sh" 2>&1) && fail "dcg run let git reset --hard run: $err"
rcode=$(echo "$err" | code_of)
[ -n "$rcode" ] || fail "no code in the runtime's line: $err"
at_tty "$DCG" allow-once "$rcode" >/dev/null || fail "redeem the runtime's code"
"$DCG" run -- sh "$T/reset.sh" >/dev/null 2>&1 || fail "the granted exec was refused"
"$DCG" run -- sh "$T/reset.sh" >/dev/null 2>&1 && fail "the granted exec passed twice"

# 6. the agent's dcg allow-once at runtime, even at a terminal: refused at exec
mkdir -p "$T/bin" && cp "$DCG" "$T/bin/dcg"
printf '"%s" allow-once %s\n' "$T/bin/dcg" "$rcode" >"$T/self.sh"
out=$(at_tty "$DCG" run -- sh "$T/self.sh" 2>&1)
echo "$out" | grep -q "system.dcg_self_change" || fail "dcg allow-once ran under dcg run: $out"

# 7. tampering with the state from a guarded process is refused, in both layers
before=$(cat "$STATE/once-grants")
"$DCG" run -- sh -c "echo 'G ZZZZZZZZ 9999999999 9 0 x 2f 2f' >> '$STATE/once-grants'" 2>/dev/null
"$DCG" run -- sh -c "echo 'U $rcode h 0' >> '$STATE/once-grants'" 2>/dev/null
[ "$before" = "$(cat "$STATE/once-grants")" ] || fail "dcg run: a guarded process wrote the grants"
if [ "$sandbox_ok" = 1 ]; then
	"$DCG" sandbox --no-preload -- sh -c "echo 'X *' >> '$STATE/once-grants'" 2>/dev/null
	[ "$before" = "$(cat "$STATE/once-grants")" ] || fail "dcg sandbox: a tracee wrote the grants"
	# the sandbox offers and honours codes too (the supervisor takes the use)
	printf 'git reset --hard HEAD~0\n' >"$T/reset0.sh"
	err=$("$DCG" sandbox -- sh "$T/reset0.sh" 2>&1) && fail "sandbox let it run: $err"
	scode=$(echo "$err" | code_of)
	[ -n "$scode" ] || fail "no code from the sandbox: $err"
	at_tty "$DCG" allow-once "$scode" >/dev/null || fail "redeem the sandbox's code"
	"$DCG" sandbox -- sh "$T/reset0.sh" >/dev/null 2>&1 || fail "sandbox: the grant was refused"
	"$DCG" sandbox -- sh "$T/reset0.sh" >/dev/null 2>&1 && fail "sandbox: the grant passed twice"
	grep -q "^U $scode e " "$STATE/once-grants" || fail "sandbox: the use is not recorded"
fi

# 8. revoke
c3=$(hook "$P" 'git clean -fdx' | code_of)
[ -n "$c3" ] || fail "no code for git clean"
at_tty "$DCG" allow-once --uses 2 --for 30m "$c3" >/dev/null || fail "redeem with --uses"
"$DCG" allow-once --revoke "$c3" >/dev/null || fail "revoke"
[ -n "$(hook "$P" 'git clean -fdx')" ] || fail "a revoked grant let it pass"
"$DCG" allow-once --list | grep -q "$c3" && fail "a revoked code is listed"
echo "ok"
