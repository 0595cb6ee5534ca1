# tests/e2e/lib.sh: what the agent e2e scripts (pi, codex, gemini) share. Source it,
# then call e2e_client; ROOT must be the repository root.
#
#   e2e_client NAME NPM-PACKAGE VERSION ENTRY [TOOL...] -- "$@"
#
# Sets CACHE (npm prefix, outside git), RUNS (run folders), DCG (the binary) and CLIENT
# (the client's entry script); checks node, npm and the TOOLs, installs the client when
# missing, then runs the calling script again inside a network namespace with only
# loopback (unshare -n; unshare -rn when not root), so nothing leaves the machine.
# Exits 77 with a reason when the run cannot happen here.

# shellcheck source=tests/e2e/node.sh
. "$ROOT/tests/e2e/node.sh"

PASS=0
FAIL=0
ok() { PASS=$((PASS + 1)); echo "PASS $*"; }
ko() { FAIL=$((FAIL + 1)); echo "FAIL $*"; }

# Prints the closing line and returns the script's status.
e2e_finish() {
	echo "$PASS passed, $FAIL failed"
	[ "$FAIL" -eq 0 ]
}

e2e_client() {
	local name=$1 pkg=$2 version=$3 entry=$4 tool NS
	shift 4
	local tools=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		tools+=("$1")
		shift
	done
	[ "${1:-}" = -- ] && shift
	E2E_NAME=$name
	CACHE=${DCG_E2E_CACHE:-$HOME/.cache/dcg-e2e-agents}/$name
	RUNS=${DCG_E2E_RUNS:-$ROOT/tests/e2e/runs}/$name
	DCG=$(readlink -f "${DCG:-$ROOT/${DCG_BUILD:-build}/dcg}")
	CLIENT=$CACHE/node_modules/$pkg/$entry
	[ -n "${DCG_E2E_IN_NETNS:-}" ] && { ip link set lo up 2>/dev/null || true; return 0; }

	[ -x "$DCG" ] || { echo "no dcg binary at $DCG (make first)"; echo "0 passed, 1 failed"; exit 1; }
	for tool in node npm "${tools[@]}"; do
		command -v "$tool" >/dev/null || e2e_skip "$tool is needed"
	done
	local why
	why=$(e2e_node_ok) || e2e_skip "$why"
	if [ ! -f "$CLIENT" ]; then
		echo "installing $pkg@$version into $CACHE"
		mkdir -p "$CACHE" && { [ -f "$CACHE/package.json" ] || echo '{"private":true}' >"$CACHE/package.json"; }
		npm install --prefix "$CACHE" --no-audit --no-fund --loglevel=error \
			"$pkg@$version" >"$CACHE/install.log" 2>&1 ||
			e2e_skip "npm install failed (see $CACHE/install.log)"
	fi
	NS=(unshare -n)
	[ "$(id -u)" = 0 ] || NS=(unshare -rn)
	"${NS[@]}" true 2>/dev/null || e2e_skip "cannot create a network namespace (unshare -n)"
	exec env DCG_E2E_IN_NETNS=1 DCG="$DCG" "${NS[@]}" "$0" "$@"
}

e2e_skip() {
	echo "SKIP ${E2E_NAME:-e2e} e2e: $*"
	echo "0 passed, 0 failed (skipped)"
	exit 77
}

# e2e_git_victim RUN: RUN/proj becomes a git repository whose work.txt holds
# uncommitted work (what git reset --hard would lose); RUN/work.orig keeps its bytes.
e2e_git_victim() {
	local r=$1
	git -C "$r/proj" init -q
	printf 'committed\n' >"$r/proj/work.txt"
	git -C "$r/proj" -c user.email=e2e@dcg -c user.name=e2e add work.txt
	git -C "$r/proj" -c user.email=e2e@dcg -c user.name=e2e commit -qm init
	printf 'precious uncommitted work\n' >"$r/proj/work.txt"
	cp "$r/proj/work.txt" "$r/work.orig"
}

# e2e_wrapped RUN_FN SCRIPT_SCENARIO ORDINARY_SCENARIO: the client wrapped whole in each
# runtime layer (issue 12). RUN_FN runs the client with $E2E_WRAP before its command
# and DCG_LOG=$R/audit.jsonl; new_run makes $R with a git repository in $R/proj. The
# script scenario has the client write a script with its file tool and run it with its
# shell tool; the script deletes .git (the default noDeletePaths). The ordinary one
# must leave its marks (notes.txt, "listed" told) and no dcg line anywhere.
# E2E_SKIP_run / E2E_SKIP_sandbox: the reason a combination cannot run here (skipped).
# E2E_NOTE_run: the text of the one "dcg: note:" line dcg run may print on the client's
# own stderr (Codex: its statically linked binary is out of the preload's sight).
e2e_wrapped() {
	local fn=$1 script=$2 ordinary=$3 layer why v note
	new_run wrap_control
	E2E_WRAP= "$fn" "$script"
	[ -e "$R/proj/.git" ] && ko "control: the script did not delete .git (rc $(cat "$R/rc.txt")): $(tail -3 "$R/err.txt")" ||
		ok "control: without dcg the script the client writes and runs deletes .git"
	for layer in run sandbox; do
		v=E2E_SKIP_$layer
		why=${!v:-}
		if [ -n "$why" ]; then
			echo "SKIP $E2E_NAME under dcg $layer: $why"
			continue
		fi
		new_run "wrap_${layer}_script"
		E2E_WRAP="$DCG $layer --" "$fn" "$script"
		if git -C "$R/proj" rev-parse -q --verify HEAD >/dev/null && [ -f "$R/proj/.git/description" ] &&
			told --has "dcg: blocked unlinkat of $R/proj/.git/" --has "noDeletePaths .git/ [default.no_delete.git]" >/dev/null &&
			grep -q '"rule_id":"default.no_delete.git"' "$R/audit.jsonl" 2>/dev/null; then
			ok "dcg $layer -- $E2E_NAME: the script's deletion of .git is stopped, the model told the rule and the whole path, the audit log has it"
		else
			ko "dcg $layer -- $E2E_NAME, script: .git=$([ -f "$R/proj/.git/description" ] && echo kept || echo damaged) rc=$(cat "$R/rc.txt") log=$(head -c 200 "$R/audit.jsonl" 2>/dev/null); $(tail -3 "$R/err.txt")"
			told --has "dcg: blocked" --dump
		fi
		new_run "wrap_${layer}_ordinary"
		E2E_WRAP="$DCG $layer --" "$fn" "$ordinary"
		v=E2E_NOTE_$layer
		note=${!v:-}
		if [ -f "$R/proj/notes.txt" ] && told --has listed --lacks "dcg:" >/dev/null &&
			! grep '^dcg:' "$R/err.txt" | grep -qv "^dcg: note: .*${note:-^}" &&
			! grep -qv '"decision":"allow"' "$R/audit.jsonl" 2>/dev/null; then
			ok "dcg $layer -- $E2E_NAME: starts and does ordinary work with no dcg line on stderr, to the model or in the log"
		else
			ko "dcg $layer -- $E2E_NAME, ordinary work: notes=$([ -f "$R/proj/notes.txt" ] && echo yes || echo no) rc=$(cat "$R/rc.txt") stderr: $(grep '^dcg:' "$R/err.txt" | sort | uniq -c | head -5) log: $(head -c 300 "$R/audit.jsonl" 2>/dev/null)"
			told --has listed --lacks "dcg:" --dump
		fi
	done
}
