#!/bin/bash
# The guard defends itself (DESIGN.md; issue 28): dcg installed under a user prefix
# (~/.local in a temporary HOME), an agent wrapped whole (`dcg run -- AGENT`, `dcg
# sandbox -- AGENT`) whose tools run each attack in a child shell. Every attack is first
# shown to work without dcg on a copy of the set-up; under each layer the guard's own
# files must stay byte for byte, the log keep its first line, the protected file
# survive. Then ordinary work in the same set-up (git stash, worktree, rebase, gc,
# atomic saves in a no-delete folder), under /opt-like and ~/.local prefixes, says nothing.
set -u
# An ASan-built dcg (make SAN=1) refuses to start when another object is preloaded ahead of
# the ASan runtime, as the foreign-code attack does: let it start, as a plain build would.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
: "${BUILD:=build}"
: "${TMPDIR_TEST:=$(mktemp -d)}"
ROOT=$PWD
T=$TMPDIR_TEST
fail() {
	echo "FAIL: $*"
	exit 1
}
export SHELL=/bin/bash
unset DCG_POLICY LD_PRELOAD DCG_LOG DCG_PRELOAD DCG_SNAPSHOT DCG_SESSION DCG_SANDBOX
command -v python3 >/dev/null || { echo "no python3"; exit 77; }
command -v git >/dev/null || { echo "no git"; exit 77; }

# A user's set-up in folder $1 (HOME $1/home, prefix $2): dcg installed as `make install`
# puts it, a policy, a protected folder, the audit log with a first line.
setup() {
	local base=$1 prefix=$2
	rm -rf "$base"
	mkdir -p "$base/home/.config/dcg" "$base/home/.local/state/dcg" "$base/home/.claude" \
		"$base/ws/ro" "$base/ws/nd" "$base/run"
	chmod 700 "$base/run"
	install -D -m 0755 "$ROOT/$BUILD/dcg" "$prefix/bin/dcg"
	install -D -m 0644 "$ROOT/$BUILD/libdcg-preload.so" "$prefix/lib/dcg/libdcg-preload.so"
	install -D -m 0644 "$ROOT/$BUILD/libdcg-engine.so" "$prefix/lib/dcg/libdcg-engine.so"
	printf 'readOnlyPaths: [%s/ws/ro/]\nnoDeletePaths: [%s/ws/nd/]\n' "$base" "$base" \
		>"$base/policy.yaml"
	printf '# the user policy\n' >"$base/home/.config/dcg/policy.yaml"
	printf '%s\n' "/some/project/.dcg/policy.yaml 0123" >"$base/home/.local/state/dcg/trusted"
	printf '{"hooks": {"PreToolUse": [{"hooks": [{"command": "%s hook"}]}]}}\n' \
		"$prefix/bin/dcg" >"$base/home/.claude/settings.json"
	printf '{"first": "line"}\n' >"$base/home/.local/state/dcg/audit.jsonl"
	printf 'keep\n' >"$base/ws/ro/keep"
	printf 'keep\n' >"$base/ws/nd/keep"
	touch -d '1 minute ago' "$base/ws/nd/keep"
}

# The environment of a user of $1 with dcg under prefix $2.
user_env() {
	export HOME=$1/home XDG_CONFIG_HOME=$1/home/.config XDG_STATE_HOME=$1/home/.local/state
	export XDG_RUNTIME_DIR=$1/run P=$2 B=$1 BIN=$2/bin/dcg
	export LIB=$2/lib/dcg/libdcg-preload.so ENG=$2/lib/dcg/libdcg-engine.so
	export POL=$1/policy.yaml LOG=$1/home/.local/state/dcg/audit.jsonl
}

# An object that, preloaded into dcg's own binary, truncates the log and writes dcg's
# state as if it were dcg (":dcg").
cat >"$T/evil.c" <<'C'
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
__attribute__((constructor)) static void evil(void)
{
	const char *log = getenv("EVIL_LOG"), *state = getenv("EVIL_STATE");
	int fd;
	if (log && (fd = open(log, O_WRONLY | O_APPEND)) >= 0) {
		ftruncate(fd, 0);
		close(fd);
	}
	if (state && (fd = open(state, O_WRONLY | O_CREAT | O_TRUNC, 0600)) >= 0) {
		write(fd, "x\n", 2);
		close(fd);
	}
}
C
cc -shared -fPIC -o "$T/evil.so" "$T/evil.c" 2>"$T/cc.err" || { cat "$T/cc.err"; echo "no C compiler"; exit 77; }

# name|layers (run, sandbox or both)|attack (bash, run by a tool's shell). The variables
# of user_env() are set; $SNAP is the session's snapshot ($DCG_SNAPSHOT, or the newest).
ATTACKS=$(cat <<'EOF'
policy file given with --policy|both|printf -- "- '!**'\n" >>"$POL"
the user's policy file|both|printf 'disable: [core.git]\n' >>"$XDG_CONFIG_HOME/dcg/policy.yaml"
preload library replaced|both|cp /bin/true "$LIB.new" && mv -f "$LIB.new" "$LIB"
engine truncated|both|: >"$ENG"
dcg binary replaced|both|mv -f "$BIN" "$BIN.old"; cp /bin/true "$BIN"
dcg binary written|both|printf x >>"$BIN"
the snapshot written|both|for f in "$XDG_RUNTIME_DIR"/dcg/snap-*; do printf x >>"$f"; done
the snapshot's index removed|both|rm -f "$XDG_RUNTIME_DIR"/dcg/snap-*.paths
trust records written|both|printf '/x/.dcg/policy.yaml abc\n' >>"$XDG_STATE_HOME/dcg/trusted"
a new file in dcg's state|both|printf x >"$XDG_STATE_HOME/dcg/allow-once.json"
hook registration rewritten|both|printf '{}\n' >"$HOME/.claude/settings.json"
log truncated|both|: >"$LOG"
log ftruncate after an append open|both|python3 -c 'import os,sys; fd=os.open(sys.argv[1], os.O_WRONLY|os.O_APPEND); os.ftruncate(fd, 0)' "$LOG"
log O_APPEND cleared|both|python3 -c 'import os,fcntl,sys; fd=os.open(sys.argv[1], os.O_WRONLY|os.O_APPEND); fcntl.fcntl(fd, fcntl.F_SETFL, 0); os.pwrite(fd, b"X"*64, 0)' "$LOG"
dcg's binary with foreign code|both|EVIL_LOG="$LOG" EVIL_STATE="$XDG_STATE_HOME/dcg/evil" LD_PRELOAD="$EVIL" "$BIN" --version >/dev/null
core dump into a read-only folder|both|cd "$B/ws/ro" && ulimit -c unlimited && python3 -c 'import os,signal; os.kill(os.getpid(), signal.SIGSEGV)'
EOF
)

# The guard's files and the protected ones: name and content hash of each, and the log's
# first line, with the state folder's listing.
fingerprint() {
	(
		cd "$B" || exit 1
		for f in "$POL" "$XDG_CONFIG_HOME/dcg/policy.yaml" "$LIB" "$ENG" "$BIN" \
			"$XDG_STATE_HOME/dcg/trusted" "$HOME/.claude/settings.json" \
			"$B/ws/ro/keep" "$B/ws/nd/keep" "$XDG_RUNTIME_DIR"/dcg/snap-*; do
			printf '%s ' "$f"
			sha256sum <"$f" 2>/dev/null | cut -c1-16 || echo missing
		done
		ls "$XDG_STATE_HOME/dcg" | grep -v '^audit.jsonl' | tr '\n' ' '
		ls "$B/ws/ro" | tr '\n' ' '
		echo
		head -n 1 "$LOG" 2>/dev/null
	)
}

# Without dcg, each attack changes what it aims at (the table is no list of no-ops).
n=0
while IFS='|' read -r name layers attack; do
	[ -n "$name" ] || continue
	n=$((n + 1))
	base=$T/bare$n
	setup "$base" "$base/home/.local"
	(
		user_env "$base" "$base/home/.local"
		(cd "$B/ws" && "$BIN" run --policy "$POL" -- true) >/dev/null 2>&1 # a snapshot
		before=$(fingerprint)
		(export EVIL=$T/evil.so; cd "$B/ws" && bash -c "$attack") >/dev/null 2>&1
		after=$(fingerprint)
		[ "$before" != "$after" ] || fail "without dcg, '$name' changed nothing"
	) || exit 1
done <<<"$ATTACKS"
echo "$n attacks work without dcg"

# Under each layer, the agent wrapped whole: its tools' shells attack.
for layer in run sandbox; do
	if [ "$layer" = sandbox ] && ! "$ROOT/$BUILD/dcg" sandbox -- /bin/true >/dev/null 2>&1; then
		echo "no dcg sandbox on this kernel: the sandbox rows are skipped"
		continue
	fi
	k=0
	while IFS='|' read -r name layers attack; do
		[ -n "$name" ] || continue
		k=$((k + 1))
		[ "$layers" = both ] || [ "$layers" = "$layer" ] || continue
		base=$T/$layer$k
		setup "$base" "$base/home/.local"
		(
			user_env "$base" "$base/home/.local"
			# this session's snapshot, made beforehand as the session will make it
			(cd "$B/ws" && "$BIN" "$layer" --policy "$POL" -- true) >/dev/null 2>&1
			before=$(fingerprint)
			printf '%s\n' "$attack" >"$base/attack.sh"
			# the agent: a shell whose tool runs the attack in a shell of its own
			(cd "$B/ws" && EVIL=$T/evil.so "$BIN" "$layer" --policy "$POL" -- \
				bash -c 'bash "$0"; true' "$base/attack.sh") >"$base/out" 2>&1
			after=$(fingerprint)
			if [ "$before" != "$after" ]; then
				cat "$base/out"
				diff <(echo "$before") <(echo "$after")
				fail "dcg $layer: '$name' changed the guard's files"
			fi
			[ ! -e "$B/ws/ro/core" ] && ! ls "$B/ws/ro" | grep -q '^core' ||
				fail "dcg $layer: a core dump was written into the read-only folder"
		) || exit 1
	done <<<"$ATTACKS"
	echo "dcg $layer: $k attacks held"
done

# The sandbox refuses what would rewrite a process's identity or stall the supervisor.
if "$ROOT/$BUILD/dcg" sandbox -- /bin/true >/dev/null 2>&1; then
	out=$("$ROOT/$BUILD/dcg" sandbox -- python3 - <<'PY' 2>&1
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
PR_SET_MM, PR_SET_MM_EXE_FILE = 35, 13
fd = os.open("/bin/true", os.O_RDONLY)
r = libc.prctl(PR_SET_MM, PR_SET_MM_EXE_FILE, fd, 0, 0)
print("prctl", r, ctypes.get_errno() == errno.EPERM)
if os.path.exists("/dev/userfaultfd"):
    try:
        u = os.open("/dev/userfaultfd", os.O_RDWR)
        r = libc.ioctl(u, 0xAA00, 0)
        print("uffd", r, ctypes.get_errno() == errno.EPERM)
    except OSError:
        print("uffd -1 True")
else:
    print("uffd -1 True")
r = libc.setrlimit(4, (ctypes.c_ulong * 2)(1 << 20, 1 << 20))
print("core", r)
r = libc.setrlimit(4, (ctypes.c_ulong * 2)(0, 0))
print("core0", r)
PY
	)
	printf '%s\n' "$out" | grep -qx 'prctl -1 True' || fail "prctl(PR_SET_MM) not refused: $out"
	printf '%s\n' "$out" | grep -qx 'uffd -1 True' || fail "USERFAULTFD_IOC_NEW not refused: $out"
	printf '%s\n' "$out" | grep -qx 'core -1' || fail "RLIMIT_CORE raised: $out"
	# Setting it to 0 (ssh-agent, gpg-agent, any ASan-built program) is no harm.
	printf '%s\n' "$out" | grep -qx 'core0 0' || fail "RLIMIT_CORE lowered to 0 refused: $out"
fi

# A process that moves the log in its own environment (DCG_LOG, XDG_STATE_HOME, HOME)
# still has its refusals written where the session's log is: under dcg run the guard
# inside the process writes them, from the values the process started with.
base=$T/logmove
setup "$base" "$base/home/.local"
(
	user_env "$base" "$base/home/.local"
	cd "$B/ws" || exit 1
	for layer in run sandbox; do
		"$BIN" "$layer" --policy "$POL" -- python3 -c '
import os
d = os.getcwd()
os.environ.update(DCG_LOG=d + "/moved.jsonl", XDG_STATE_HOME=d, HOME=d)
try:
    open(os.path.join(d, "r" + "o", "keep"), "a").write("x")
except OSError:
    pass
' >"$base/out" 2>&1
		[ ! -e "$B/ws/moved.jsonl" ] || fail "dcg $layer: a refusal was logged where the process moved the log"
		grep -q "ws/ro/keep" "$LOG" || { cat "$base/out"; fail "dcg $layer: the refusal is not in the session's log"; }
		grep -qx keep "$B/ws/ro/keep" || fail "dcg $layer: the read-only file changed"
	done
) || exit 1

# The hook (the installed binary, as every agent runs it) refuses the same files, in its
# file tools and its shell forms.
base=$T/hook
setup "$base" "$base/home/.local"
(
	user_env "$base" "$base/home/.local"
	cd "$B/ws" || exit 1
	for f in "$BIN" "$LIB" "$ENG" "$XDG_CONFIG_HOME/dcg/policy.yaml" \
		"$XDG_STATE_HOME/dcg/trusted" "$XDG_STATE_HOME/dcg/new-state" "$LOG" \
		"$XDG_RUNTIME_DIR/dcg/snap-0"; do
		for call in \
			"{\"tool_name\": \"Write\", \"tool_input\": {\"file_path\": \"$f\", \"content\": \"x\"}}" \
			"{\"tool_name\": \"Bash\", \"tool_input\": {\"command\": \"cp /bin/true $f\"}}" \
			"{\"tool_name\": \"Bash\", \"tool_input\": {\"command\": \"echo x >> $f\"}}"; do
			out=$(printf '%s' "$call" | "$BIN" hook 2>/dev/null)
			case $out in
			*'"permissionDecision": "deny"'* | *'"permissionDecision":"deny"'*) ;;
			*) fail "the hook let through: $call: $out" ;;
			esac
		done
	done
	# and --policy's file when a session names one
	out=$(printf '{"tool_name": "Write", "tool_input": {"file_path": "%s", "content": "x"}}' "$POL" |
		DCG_POLICY=$POL "$BIN" hook 2>/dev/null)
	case $out in *deny*) ;; *) fail "the hook let the policy in force be written: $out" ;; esac
) || exit 1

# :agent dies with the agent: once the wrapped agent has exited, a process that takes
# its pid over (root: /proc/sys/kernel/ns_last_pid) is not the agent. Shown first to get
# the pid without dcg; skipped where the pid cannot be taken over.
takeover() { # $1: the command that wraps the agent (empty: none); writes $B/newpid
	rm -f "$B/done" "$B/newpid"
	$1 bash -c '
		agent=$$
		( while kill -0 $agent 2>/dev/null; do sleep 0.02; done
		  echo $((agent - 1)) >/proc/sys/kernel/ns_last_pid
		  bash -c "echo \$\$ >\"$0\"/newpid; [ \$\$ = $agent ] && echo taken >\"$0\"/ws/own.json"
		  touch "$0/done" ) >/dev/null 2>&1 &
		exit 0' "$B" >/dev/null 2>&1
	for _ in $(seq 250); do [ -e "$B/done" ] && break; sleep 0.02; done
}
if [ "$(id -u)" = 0 ] && [ -w /proc/sys/kernel/ns_last_pid ]; then
	for layer in none run sandbox; do
		base=$T/takeover-$layer
		setup "$base" "$base/home/.local"
		(
			user_env "$base" "$base/home/.local"
			printf '{}\n' >"$B/ws/own.json"
			printf "readOnlyPaths: [{path: '%s/ws/own.json', owners: [':agent']}]\n" "$B" >>"$POL"
			if [ $layer = none ]; then takeover ""; else takeover "$BIN $layer --policy $POL --"; fi
			agent_took=$(cat "$B/newpid" 2>/dev/null)
			if [ $layer = none ]; then
				grep -q taken "$B/ws/own.json" || { echo "pid not taken over here: skipped"; exit 3; }
			elif grep -q taken "$B/ws/own.json"; then
				fail "dcg $layer: a process that took the dead agent's pid ($agent_took) wrote the agent's file"
			fi
		)
		rc=$?
		[ $rc = 3 ] && break
		[ $rc = 0 ] || exit 1
	done
fi

# Ordinary work in the same set-up says nothing: git's stash, worktree, rebase and gc
# (whose reflog expire uses the default 90/30 days), an editor's atomic save and sed -i
# inside a no-delete folder; installed under ~/.local and under an /opt-like prefix.
for prefix in home/.local opt/x; do
	for layer in run sandbox; do
		if [ "$layer" = sandbox ] && ! "$ROOT/$BUILD/dcg" sandbox -- /bin/true >/dev/null 2>&1; then
			continue
		fi
		base=$T/work-$layer-${prefix//\//_}
		setup "$base" "$base/$prefix"
		(
			user_env "$base" "$base/$prefix"
			mkdir -p "$B/ws/repo"
			cd "$B/ws/repo" && git init -q -b main . && git config user.email t@t &&
				git config user.name t && echo a >f && git add f && git commit -qm a &&
				git checkout -qb topic && echo b >g && git add g && git commit -qm b &&
				git checkout -q main && echo c >h && git add h && git commit -qm c &&
				git checkout -q topic || fail "git set-up"
			"$BIN" "$layer" --policy "$POL" -- bash -c '
				set -e
				echo x >>f; git stash -q; git stash pop -q; git commit -qam x
				git worktree add -q ../wt2 main
				git rebase -q main
				git gc -q
				git reflog expire --all
				python3 -c "import os; open(\"../nd/keep.tmp\", \"w\").write(\"new\\n\"); os.replace(\"../nd/keep.tmp\", \"../nd/keep\")"
				sed -i s/new/newer/ ../nd/keep
				echo done' >"$base/out" 2>&1 || { cat "$base/out"; fail "dcg $layer ($prefix): ordinary work failed"; }
			if grep -q '^dcg:' "$base/out"; then
				cat "$base/out"
				fail "dcg $layer ($prefix): ordinary work got a dcg: line"
			fi
			grep -qx newer "$B/ws/nd/keep" || fail "dcg $layer ($prefix): the atomic save did not land"
		) || exit 1
	done
done
echo "ok"
