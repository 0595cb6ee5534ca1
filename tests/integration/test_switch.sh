#!/bin/bash
# The guard cannot be switched off from below: the hook command dcg install writes
# fails closed when the binary is gone or dies (run through sh as the agents run it),
# install refuses a binary in a temporary or build folder, and a project's policy file
# loosens nothing until the user trusts it (trust, untrust, status, rules list, the
# hook's stderr, allow into an untrusted file).
set -u
DCG=${DCG_BIN:?}
T=${TMPDIR_TEST:?}
export HOME=$T/home XDG_CONFIG_HOME=$T/home/.config XDG_STATE_HOME=$T/state
export DCG_LOG=$T/audit.jsonl DCG_SYSTEM_POLICY=$T/no-system.yaml
unset DCG_POLICY DCG_TRUST_FILE
mkdir -p "$HOME" "$T/proj" "$T/opt/bin"
fail() { echo "FAIL: $*"; exit 1; }

# ---- install refuses a transient binary, and the hook it writes fails closed -------
cp "$DCG" "$T/opt/bin/dcg"
BIN=$T/opt/bin/dcg # in TMPDIR_TEST, itself under a temporary folder
cd "$T/proj" || exit 1
out=$("$BIN" install --agent claude --project 2>&1) && fail "install from a temporary folder: $out"
echo "$out" | grep -q -- "--force" || fail "no hint of --force: $out"
[ ! -e .claude/settings.json ] || fail "a refused install wrote settings"

mkcall() { # mkcall EVENT TOOL: a shell call in the agents' common shape, %s for the command
	echo '{"session_id":"s","hook_event_name":"'$1'","tool_name":"'$2'","cwd":"'$T/proj'","tool_input":{"command":"%s"}}'
}
for agent in claude codex gemini; do
	case $agent in
	claude) f=.claude/settings.json call=$(mkcall PreToolUse Bash) ;;
	codex) f=.codex/hooks.json call=$(mkcall PreToolUse Bash) ;;
	gemini) f=.gemini/settings.json call=$(mkcall BeforeTool run_shell_command) ;;
	esac
	"$BIN" install --agent $agent --project --force >/dev/null 2>&1 || fail "$agent: install --force"
	cmd=$(python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
for ev in d["hooks"].values():
    for e in ev:
        for h in e.get("hooks", [e]):
            if "hook --agent" in h.get("command",""): print(h["command"]); sys.exit(0)' "$f") ||
		fail "$agent: no hook command in $f"
	# as the agent runs it: through a shell, the call on stdin
	printf "$call" "ls" | sh -c "$cmd" >/dev/null 2>&1; rc=$?
	[ $rc -eq 0 ] || fail "$agent: an allowed call exits $rc"
	printf "$call" "rm -rf ~" | sh -c "$cmd" >"$T/out" 2>&1; rc=$?
	[ $rc -eq 0 ] || [ $rc -eq 2 ] || fail "$agent: a denied call exits $rc"
	grep -q "deny\|block" "$T/out" || fail "$agent: rm -rf ~ not refused: $(cat "$T/out")"
	# the binary gone: the agent is told to refuse (exit 2 with a reason on stderr)
	mv "$BIN" "$BIN.away"
	printf "$call" "ls" | sh -c "$cmd" >"$T/out" 2>"$T/err"; rc=$?
	mv "$BIN.away" "$BIN"
	[ $rc -eq 2 ] || fail "$agent: missing binary exits $rc, not 2"
	grep -q "dcg could not run" "$T/err" || fail "$agent: no reason on stderr: $(cat "$T/err")"
	# the binary dies
	printf '#!/bin/sh\nkill -SEGV $$\n' >"$T/crash" && chmod +x "$T/crash"
	crashcmd=${cmd//$BIN/$T/crash}
	printf "$call" "ls" | sh -c "$crashcmd" >/dev/null 2>&1; rc=$?
	[ $rc -eq 2 ] || fail "$agent: a crashing binary exits $rc, not 2"
done
grep -q '"failClosed":[[:space:]]*true' <("$BIN" install --agent cursor --project --force 2>/dev/null; cat .cursor/hooks.json) ||
	fail "cursor: no failClosed"

# ---- trust ------------------------------------------------------------------------
cd "$T/proj" || exit 1
call=$(mkcall PreToolUse Bash)
mkdir -p .dcg
printf 'disable: [core, default, system, heredoc]\nallow:\n  - {rule: core.git.reset_hard, reason: x}\n' >.dcg/policy.yaml
"$DCG" check 'git reset --hard' >/dev/null 2>&1 && fail "an untrusted allow: entry applied"
"$DCG" check 'rm -rf ~' >/dev/null 2>&1 && fail "an untrusted disable: entry applied"
st=$("$DCG" status 2>&1)
echo "$st" | grep -q "not trusted" || fail "status says nothing of trust: $st"
echo "$st" | grep -q "dcg trust $T/proj/.dcg/policy.yaml" || fail "status: no way to trust: $st"
"$DCG" rules list 2>&1 | grep -q "disable core" || fail "rules list: ignored entries not listed"
printf "$call" "git reset --hard" | "$DCG" hook >/dev/null 2>"$T/err"
grep -q "dcg trust" "$T/err" || fail "hook stderr: no trust note: $(cat "$T/err")"
# the agent cannot trust it for itself
printf "$call" "dcg trust" | "$DCG" hook 2>/dev/null | grep -q "system.dcg_self_change" ||
	fail "the agent may run dcg trust"
"$DCG" trust >/dev/null || fail "dcg trust"
"$DCG" check 'git reset --hard' >/dev/null 2>&1 || fail "a trusted allow: entry did not apply"
echo "# edited" >>.dcg/policy.yaml
"$DCG" check 'git reset --hard' >/dev/null 2>&1 && fail "a changed file stayed trusted"
"$DCG" status | grep -q "changed since it was trusted" || fail "status: changed file not said"
"$DCG" trust >/dev/null && "$DCG" untrust >/dev/null || fail "untrust"
"$DCG" check 'git reset --hard' >/dev/null 2>&1 && fail "untrust did not take effect"
# dcg allow into an untrusted project file: written, said not to apply yet
out=$("$DCG" allow core.git.clean_force -r "scratch" 2>&1) || fail "allow: $out"
echo "$out" | grep -q "not trusted" || fail "allow: no note about trust: $out"
"$DCG" check 'git clean -fdx' >/dev/null 2>&1 && fail "allow into an untrusted file applied"
# a corrupt trust record never trusts
mkdir -p "$XDG_STATE_HOME/dcg"
echo "garbage $T/proj/.dcg/policy.yaml" >"$XDG_STATE_HOME/dcg/trusted"
"$DCG" check 'git clean -fdx' >/dev/null 2>&1 && fail "a corrupt record trusted"
"$DCG" status | grep -q "malformed" || fail "status: corrupt record not said"
echo ok
