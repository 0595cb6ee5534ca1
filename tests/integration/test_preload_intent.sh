#!/bin/bash
# `dcg run --intent ID`: every guarded process refuses writes, creations, deletions and
# renames outside the intent's owned_scope (reads stay free), with the error code in its
# one-line message and in the audit log; an ID the project does not hold is refused
# before anything runs.
set -u
BUILD=${BUILD:-build}
T=${TMPDIR_TEST:?}
DCG=${DCG_BIN:-$PWD/$BUILD/dcg}
PROBE=$PWD/$BUILD/progs/preload_probe
[ -x "$DCG" ] && [ -x "$PROBE" ] || { echo "missing $DCG or $PROBE"; exit 1; }
fail=0
bad() { echo "FAIL: $*"; fail=1; }
export DCG_LOG=$T/audit.jsonl XDG_STATE_HOME=$T/state XDG_RUNTIME_DIR=$T/run
mkdir -m 700 -p "$XDG_RUNTIME_DIR"

P=$T/proj
mkdir -p "$P"/.orchestration "$P"/src "$P"/docs
cd "$P" || exit 1
cat > .orchestration/active_intents.yaml <<'YAML'
active_intents:
  - id: INT-001
    name: auth
    status: IN_PROGRESS
    owned_scope: ["src/"]
YAML
echo keep > docs/readme.md
echo old > src/a.c

run() { "$DCG" run --intent INT-001 -- "$@"; }

# Inside the scope: writes, creations and deletions work.
run bash -c 'echo new > src/a.c && echo b > src/b.c && rm src/b.c && cat docs/readme.md >/dev/null' \
	2>"$T/in.log" || { bad "work inside the scope failed"; cat "$T/in.log"; }
[ "$(cat src/a.c)" = new ] || bad "src/a.c not written"

# Outside: refused, with the error code on the one line.
printf 'echo x > docs/readme.md\n' > "$T/w.sh"
run bash "$T/w.sh" 2>"$T/out.log"
[ "$(cat docs/readme.md)" = keep ] || bad "docs/readme.md written outside the scope"
grep -q '^dcg: blocked .*docs/readme.md: SCOPE_VIOLATION' "$T/out.log" ||
	{ bad "no SCOPE_VIOLATION line"; cat "$T/out.log"; }
run "$PROBE" unlink docs/readme.md 2>"$T/unlink.log"
[ $? -eq 13 ] || bad "unlink outside the scope not refused with EACCES"
[ -e docs/readme.md ] || bad "docs/readme.md deleted"
grep -q 'SCOPE_VIOLATION' "$DCG_LOG" 2>/dev/null || bad "the audit log lacks SCOPE_VIOLATION"
# env -i does not shed the scope.
run env -i /bin/sh "$T/w.sh" 2>/dev/null
[ "$(cat docs/readme.md)" = keep ] || bad "env -i shed the intent scope"

# An unknown intent: nothing runs.
"$DCG" run --intent INT-404 -- touch "$T/ran" 2>"$T/unknown.log"
[ $? -ne 0 ] || bad "dcg run --intent INT-404 succeeded"
[ -e "$T/ran" ] && bad "the command ran under an unknown intent"
exit $fail
