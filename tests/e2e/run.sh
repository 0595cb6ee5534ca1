#!/bin/bash
# make e2e: dcg's hook in the real Claude Code, against a mock model on 127.0.0.1 inside
# a network namespace. Each test is one client run; control runs without the hook show
# that the client would have done the damage, so a refusal is dcg's and not the client's.
# Tests 10-14 wrap the whole client in the runtime layers (dcg run, dcg sandbox, dcg
# sandbox --no-preload) and its shell commands only (dcg install --shell-prefix): a
# script the hook cannot read deletes .git (stopped, told, logged), and ordinary work
# leaves no dcg line anywhere.
#
#   tests/e2e/run.sh [BUILD]
# Env: DCG_E2E_CACHE (npm prefix for the client, default ~/.cache/dcg-e2e),
#      DCG_E2E_CLAUDE_VERSION (default 2.1.197, the version the reference kit saw),
#      DCG_E2E_KEEP=1 keeps the run directories.
# Exit: 0 all passed, 1 some failed, 77 cannot run here (no node/npm/unshare).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=${1:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
DCG=$BUILD/dcg
CACHE=${DCG_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dcg-e2e}
VERSION=${DCG_E2E_CLAUDE_VERSION:-2.1.197}
CLAUDE=$CACHE/node_modules/.bin/claude

skip() { echo "e2e: cannot run here: $*" >&2; echo "0 passed, 0 failed (skipped)"; exit 77; }
# shellcheck source=tests/e2e/node.sh
. "$HERE/node.sh"
[ -x "$DCG" ] || { echo "e2e: $DCG is not built" >&2; echo "0 passed, 1 failed"; exit 1; }
for tool in node npm unshare python3 ip timeout; do
	command -v "$tool" >/dev/null 2>&1 || skip "no $tool"
done
why=$(e2e_node_ok) || skip "$why"
if [ "$(id -u)" = 0 ]; then unshare -n true 2>/dev/null || skip "unshare -n fails"
else unshare -rn true 2>/dev/null || skip "unshare -rn fails (no user namespaces)"; fi

if ! [ -x "$CLAUDE" ] || ! "$CLAUDE" --version 2>/dev/null | grep -q "^$VERSION "; then
	echo "e2e: installing @anthropic-ai/claude-code@$VERSION into $CACHE"
	mkdir -p "$CACHE"
	npm install --prefix "$CACHE" --no-audit --no-fund --loglevel=error \
		"@anthropic-ai/claude-code@$VERSION" >&2 || skip "npm install failed"
fi
echo "e2e: $("$CLAUDE" --version 2>/dev/null), $("$DCG" --version)"

# Not under /tmp: the default policy lets an agent clean its scratch space there, and
# the victims must be real user data. tests/e2e/runs/ is ignored by git; when the
# checkout itself lies in a temporary folder (a CI clone under /tmp), the runs go to
# the cache folder instead.
RUNS_BASE=$HERE/runs
case $RUNS_BASE/ in /tmp/* | /var/tmp/* | "${TMPDIR:-/nonexistent}"/*) RUNS_BASE=$CACHE/runs ;; esac
case $RUNS_BASE/ in /tmp/* | /var/tmp/*) RUNS_BASE=/var/lib/dcg-e2e/runs ;; esac
mkdir -p "$RUNS_BASE"
RUNS=$(mktemp -d "$RUNS_BASE/run-XXXXXX")
[ -n "${DCG_E2E_KEEP:-}" ] || trap 'rm -rf "$RUNS"' EXIT
PASS=0
FAIL=0

# A fresh run directory: a project with a read-only folder in its dcg policy, a
# victim tree outside it, a secret in the throwaway HOME.
setup() {
	local r=$RUNS/$1
	mkdir -p "$r/proj/.dcg" "$r/proj/protected" "$r/home/.ssh" "$r/victim/sub"
	printf 'precious\n' > "$r/victim/keep.txt"
	printf 'nested \xc3\xa9 data\n' > "$r/victim/sub/data.bin"
	printf 'setting=1\n' > "$r/proj/protected/config.txt"
	printf 'PRIVATE KEY\n' > "$r/home/.ssh/id_rsa"
	cat > "$r/proj/.dcg/policy.yaml" <<-'EOF'
	# the e2e project's own rules
	readOnlyPaths: [protected/]
	EOF
	python3 "$HERE/check.py" "$r" record victim
	python3 "$HERE/check.py" "$r" record proj/protected
	echo "$r"
}

install_hook() {
	(cd "$1/proj" && "$DCG" install --agent claude --project --force >/dev/null) ||
		{ echo "e2e: dcg install failed in $1" >&2; return 1; }
}

run() { "$HERE/run_claude.sh" "$1" "$HERE/scenarios/$2.json" "$CLAUDE"; }

# check RUN ASSERTION ARGS...: one counted assertion
check() {
	if python3 "$HERE/check.py" "$@"; then PASS=$((PASS + 1)); else FAIL=$((FAIL + 1)); fi
}

# 1. control: without the hook the client deletes the victim
r=$(setup control_bash); run "$r" bash_rm
check "$r" gone victim

# 2. with dcg: the destructive Bash call is refused and the model told why
r=$(setup hook_bash); install_hook "$r" && run "$r" bash_rm
check "$r" tree-intact victim
check "$r" told "dcg: core.filesystem.rm_rf"
check "$r" logged '"rule_id":"core.filesystem.rm_rf"'

# 3. control: without the hook the client writes into the protected folder (a new file:
# the client itself wants an existing file read before it is written)
r=$(setup control_write); run "$r" write_protected
check "$r" file-is proj/protected/new.txt "written by the agent
"

# 4. with dcg: a Write to a read-only path of the project policy is refused
r=$(setup hook_write); install_hook "$r" && run "$r" write_protected
check "$r" tree-intact proj/protected
check "$r" told "dcg: project.read_only"

# 5. with dcg: a Read of a zero-access path (~/.ssh) is refused
r=$(setup hook_read); install_hook "$r" && run "$r" read_secret
check "$r" told "dcg: default.zero_access"

# 6. with dcg: a harmless call runs
r=$(setup hook_harmless); install_hook "$r" && run "$r" harmless
check "$r" file-is proj/out.txt "hi
"
check "$r" tree-intact victim

# 7. control: without the hook the client writes the switch that turns hooks off
r=$(setup control_switch_off); run "$r" switch_off
check "$r" file-is proj/.claude/settings.local.json '{"disableAllHooks":true}
'

# 8. with dcg: no way of writing Claude Code's settings (file tool, redirection, the
# user's settings) and no dcg trust gets through
r=$(setup hook_switch_off); install_hook "$r" && run "$r" switch_off
check "$r" absent proj/.claude/settings.local.json
check "$r" absent home/.claude/settings.local.json
check "$r" told "dcg: default.read_only"
check "$r" told "dcg: system.dcg_self_change"

# 9. with dcg registered and its binary gone: the hook fails closed, the victim survives
r=$(setup hook_binary_gone)
mkdir -p "$r/opt/bin" && cp "$DCG" "$r/opt/bin/dcg"
(cd "$r/proj" && "$r/opt/bin/dcg" install --agent claude --project --force >/dev/null 2>&1) ||
	echo "e2e: install from $r/opt/bin failed" >&2
rm -f "$r/opt/bin/dcg"
run "$r" bash_rm
check "$r" tree-intact victim
check "$r" told "dcg could not run"

# ---- the whole client wrapped in a runtime layer (issue 12) -----------------------------
# The project is a git repository; the model has the client write a script with its
# file tool (the hook sees only a file being written) and run it with its shell tool
# (the hook sees "python3 tidy.py"): the script deletes .git, which the default
# noDeletePaths protect. Ordinary work (read, write, edit, ls, git status, git commit)
# must leave no dcg line anywhere: the client reads the CA store at each start.

# setup_git NAME: a run whose project is a git repository with one commit
setup_git() {
	local r
	r=$(setup "$1")
	(cd "$r/proj" && git init -q && printf 'hello\n' >README.txt && git add README.txt &&
		git -c user.email=e2e@dcg -c user.name=e2e commit -qm init) >&2
	python3 "$HERE/check.py" "$r" record proj/.git/objects
	python3 "$HERE/check.py" "$r" record proj/.git/refs
	echo "$r"
}

# wrapped NAME LAYER...: the script and ordinary work with the client run as
# `LAYER... -- claude` (LAYER empty: bare), the hook installed unless NAME starts "bare"
wrapped() {
	local name=$1 r
	shift
	r=$(setup_git "${name}_script")
	case $name in bare*) ;; *) install_hook "$r" ;; esac
	DCG_E2E_WRAP="$*" run "$r" script_rm_git
	if [ $# -eq 0 ]; then
		check "$r" gone proj/.git
		return
	fi
	check "$r" tree-intact proj/.git/objects
	check "$r" tree-intact proj/.git/refs
	check "$r" told "dcg: blocked unlinkat of $r/proj/.git/"
	check "$r" told "noDeletePaths .git/ [default.no_delete.git]"
	check "$r" logged '"rule_id":"default.no_delete.git"'
	r=$(setup_git "${name}_ordinary")
	install_hook "$r"
	DCG_E2E_WRAP="$*" run "$r" ordinary
	check "$r" file-is proj/notes.txt "notes of the agent
"
	check "$r" file-is proj/README.txt "hello, edited
"
	check "$r" told "committed"
	check "$r" quiet
}

# 10. controls: bare, and with the hook alone, the script deletes .git
wrapped bare
wrapped hook_only
# 11. dcg run -- claude; 12. dcg sandbox -- claude (the preload says the refusal);
# 13. dcg sandbox --no-preload -- claude (the supervisor alone)
wrapped run "$DCG" run --
wrapped sandbox "$DCG" sandbox --
wrapped sandbox_no_preload "$DCG" sandbox --no-preload --

# 14. only the shell tool's commands under dcg run: CLAUDE_CODE_SHELL_PREFIX
r=$(setup_git prefix_script)
(cd "$r/proj" && "$DCG" install --agent claude --shell-prefix --project --force >/dev/null 2>&1) ||
	echo "e2e: dcg install --shell-prefix failed in $r" >&2
run "$r" script_rm_git
check "$r" tree-intact proj/.git/objects
check "$r" told "dcg: blocked unlinkat of $r/proj/.git/"
check "$r" logged '"rule_id":"default.no_delete.git"'
r=$(setup_git prefix_ordinary)
(cd "$r/proj" && "$DCG" install --agent claude --shell-prefix --project --force >/dev/null 2>&1)
run "$r" ordinary
check "$r" told "committed"
check "$r" quiet

[ -n "${DCG_E2E_KEEP:-}" ] && echo "e2e: runs kept in $RUNS"
echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
