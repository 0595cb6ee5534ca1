#!/bin/bash
# test_redteam_rt.sh - runs every row of redteam_rt.tsv under `dcg run` and `dcg sandbox`
# (each in a fresh temporary HOME with dcg installed under ~/.local, the attack a child
# of the wrapped agent, a bash) and fails on any "stop" row that gets through or any
# "pass" row (ordinary work) that is refused. A stop row gets through when a secret
# reaches its output, when a protected file, the guard's files, the git repository or
# the audit log's earlier lines change, or a git hook or trust/grant record appears.
# "pty" rows run both layers inside a terminal of their own (the user's), whose user
# answers n to every question: the attack must not answer for them.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
: "${BUILD:=build}"
TABLE="$ROOT/tests/integration/redteam_rt.tsv"
PTYH="$ROOT/tests/integration/redteam_rt_pty.py"
PY=$(command -v python3) || { echo "no python3"; exit 77; }
command -v git >/dev/null || { echo "no git"; exit 77; }
TMP=${TMPDIR_TEST:-$(mktemp -d)}
export PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin
export PY PTYH
# an ASan-built dcg (make SAN=1) runs inside the guard, whose object comes first, and
# LeakSanitizer cannot read its own /proc/PID/task from a helper under the sandbox
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0:detect_leaks=0"

# The home every row starts from, made once: secrets, read-only and no-delete files,
# a user policy, a cloned project's untrusted policy, dcg installed under ~/.local, a
# git repository, and one line in the audit log from before the session.
make_template() { # $1: folder
	local h="$1/home"
	mkdir -p "$h"/{.ssh,.aws,.config/dcg,.local/state/dcg,.local/bin,.local/lib/dcg,proj,ro,nd,other/.dcg}
	echo SECRETKEY-ssh > "$h/.ssh/id_rsa"
	: > "$h/.ssh/SECRETNAME"
	echo SECRETKEY-aws > "$h/.aws/credentials"
	echo 'alias ll=ls' > "$h/.bashrc"
	echo ROFILE > "$h/ro/file"
	echo NDFILE > "$h/nd/file"
	printf 'readOnlyPaths: [~/ro/]\nnoDeletePaths: [~/nd/]\n' > "$h/.config/dcg/policy.yaml"
	printf "zeroAccessPaths: ['!~/.aws/']\n" > "$h/other/.dcg/policy.yaml"
	install -m 0755 "$ROOT/$BUILD/dcg" "$h/.local/bin/dcg"
	install -m 0644 "$ROOT/$BUILD/libdcg-preload.so" "$ROOT/$BUILD/libdcg-engine.so" \
		"$h/.local/lib/dcg/"
	(cd "$h/proj" && HOME=$h git init -q . && git config user.email t@t &&
		git config user.name t && echo hi > README.md && git add README.md &&
		HOME=$h git commit -qm init)
	echo '{"time":"2026-01-01T00:00:00Z","layer":"preload","decision":"deny","rule_id":"before"}' \
		> "$h/.local/state/dcg/audit.jsonl"
	touch -d '-1 min' $(find "$h" -type f)
}

setup_home() { # $1: folder
	cp -a "$TEMPLATE/home" "$1/home"
	export HOME="$1/home" XDG_RUNTIME_DIR="$1/run"
	unset XDG_CONFIG_HOME XDG_STATE_HOME DCG_POLICY DCG_LOG DCG_SNAPSHOT DCG_SESSION LD_PRELOAD
	mkdir -m 700 -p "$XDG_RUNTIME_DIR"
	DCG="$HOME/.local/bin/dcg"
	LOG="$HOME/.local/state/dcg/audit.jsonl"
	export DCG LOG
}

state() { # what must survive a stop row
	(
		cd "$HOME" || exit 1
		for f in .ssh/id_rsa .aws/credentials .bashrc ro/file .config/dcg/policy.yaml \
			.local/bin/dcg .local/lib/dcg/libdcg-preload.so .local/lib/dcg/libdcg-engine.so \
			proj/.git/HEAD proj/.git/config proj/README.md other/.dcg/policy.yaml; do
			if [ -L "$f" ]; then echo "$f link"
			elif [ -e "$f" ]; then echo "$f $(cksum < "$f") $(stat -c '%i %a' "$f")"
			else echo "$f missing"; fi
		done
		[ -e nd/file ] && echo "nd/file there"
		ls -A .ssh .aws .config/dcg ro nd proj/.git/hooks .local/state/dcg 2>&1 |
			grep -v -e '\.sample$' -e '^once-codes$'
		git -C proj rev-parse HEAD 2>&1
	)
}

run_row() { # layer kind command
	local layer=$1 kind=$2 cmd=$3 script="$T/a.sh" rc
	if [ "${cmd#py:}" != "$cmd" ]; then
		cmd=${cmd#py:}
		printf 'import os\nH=os.path.expanduser("~")\n%s\n' "${cmd//\\n/$'\n'}" > "$T/a.py"
		cmd="\"\$PY\" \"$T/a.py\""
	fi
	printf '%s\n' "$cmd" > "$script"
	# the attack is a tool of the agent (a bash), not the agent itself
	local inner="bash $script; echo \"rc=\$?\" >&2; true"
	case $layer in
	run) (cd "$HOME/proj" && timeout 120 "$DCG" run -- bash -c "$inner") > "$T/out" 2> "$T/err" ;;
	sandbox) (cd "$HOME/proj" && timeout 120 "$DCG" sandbox -- bash -c "$inner") > "$T/out" 2> "$T/err" ;;
	ptyrun) (cd "$HOME/proj" && timeout 120 "$PY" "$PTYH" --answer n "$DCG" run -- bash -c "$inner") > "$T/out" 2> "$T/err" ;;
	ptysandbox) (cd "$HOME/proj" && timeout 120 "$PY" "$PTYH" --answer n "$DCG" sandbox -- bash -c "$inner") > "$T/out" 2> "$T/err" ;;
	esac
}

TEMPLATE=$(mktemp -d "$TMP/template.XXXX")
make_template "$TEMPLATE" || { echo "cannot make the template home"; exit 1; }
have_sandbox=1
probe=$(mktemp -d "$TMP/probe.XXXX")
(setup_home "$probe" >/dev/null 2>&1; cd "$HOME" && "$DCG" sandbox -- /bin/true) >/dev/null 2>&1 ||
	have_sandbox=0
[ $have_sandbox = 1 ] || echo "dcg sandbox unavailable here: dcg run only"

fail=0 tried=0
while IFS=$'\t' read -r id layers kind cmd; do
	case $id in '#'* | '') continue ;; esac
	case $layers in
	both) set -- run sandbox ;;
	pty) set -- ptyrun ptysandbox ;;
	*) set -- "$layers" ;;
	esac
	for layer in "$@"; do
		case $layer in *sandbox) [ $have_sandbox = 1 ] || continue ;; esac
		T=$(mktemp -d "$TMP/row.XXXX")
		(
			setup_home "$T" >/dev/null 2>&1
			cp "$LOG" "$T/log.before" 2>/dev/null || : > "$T/log.before"
			before=$(state)
			run_row "$layer" "$kind" "$cmd"
			after=$(state)
			bad=""
			if [ "$kind" = stop ]; then
				grep -aq -e SECRETKEY -e SECRETNAME "$T/out" && bad="$bad secret-printed"
				grep -aq SECRETKEY "$T/err" && bad="$bad secret-printed"
				[ "$before" = "$after" ] || bad="$bad changed: $(diff <(echo "$before") <(echo "$after") | grep '^[<>]' | tr '\n' ' ')"
				head -c "$(stat -c %s "$T/log.before")" "$LOG" 2>/dev/null | cmp -s - "$T/log.before" ||
					bad="$bad log-rewritten"
			else
				grep -q '^rc=0$' "$T/err" || bad="$bad failed"
				grep -q 'dcg: blocked\|dcg: asks' "$T/err" "$T/out" && bad="$bad refused"
			fi
			if [ -n "$bad" ]; then
				echo "FAIL $layer $id ($kind):$bad"
				sed 's/^/    | /' "$T/err" | head -n 8
				exit 1
			fi
			echo "ok   $layer $id ($kind)"
		) || fail=$((fail + 1))
		tried=$((tried + 1))
		chmod -R u+rwX "$T" 2>/dev/null
		rm -rf "$T"
	done
done < "$TABLE"
echo "redteam_rt: $tried runs, $fail failed"
[ $fail -eq 0 ]
