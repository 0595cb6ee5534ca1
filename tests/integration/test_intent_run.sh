#!/bin/bash
# Intent scopes at runtime: `dcg run --intent INT-001` in a project whose intent owns
# src/auth/ (but not its *.test.ts files). Real programs (bash, coreutils, python3,
# perl) try to write, create, delete, rename and chmod files outside the scope: every
# attempt must fail, the files outside the scope must survive byte for byte (and inode
# for inode), the refusals must carry SCOPE_VIOLATION in the stderr line and the audit
# log; writes inside the scope, reads anywhere and scratch files outside the project
# must still work. Also: unknown IDs are refused before anything runs, neither env -i
# nor a changed DCG_INTENT sheds the confinement, and `dcg sandbox --intent` refuses
# the same writes without the preload (its supervisor alone).
set -u
BUILD=${BUILD:-build}
T=${TMPDIR_TEST:?}
DCG=${DCG_BIN:-$PWD/$BUILD/dcg}
[ -x "$DCG" ] || { echo "no $DCG"; exit 1; }
[ -e "$BUILD/libdcg-preload.so" ] || { echo "no $BUILD/libdcg-preload.so"; exit 1; }

fail=0
bad() { echo "FAIL: $*"; fail=1; }

WS=$T/proj
OUT=$T/out.log
export HOME=$T/home XDG_STATE_HOME=$T/state XDG_CONFIG_HOME=$T/config DCG_LOG=$T/audit.jsonl
export XDG_RUNTIME_DIR=$T/run && mkdir -m 700 -p "$XDG_RUNTIME_DIR"
unset DCG_POLICY DCG_INTENT DCG_INTENTS_FILE
mkdir -p "$HOME" "$WS"/{.orchestration,src/auth/sub,src/api/sub,docs} "$T/scratch"
cd "$WS" || exit 1
cat > .orchestration/active_intents.yaml <<'EOF'
active_intents:
  - id: INT-001
    name: JWT authentication
    status: IN_PROGRESS
    owned_scope: ["src/auth/**", "!**/*.test.ts"]
  - id: INT-002
    name: Documentation
    owned_scope: ["docs/**"]
EOF
printf 'export const api = 1;\n' > src/api/keep.ts
printf 'deep\n' > src/api/sub/deep.ts
printf '# project\n' > README.md
printf 'it("works")\n' > src/auth/login.test.ts
printf 'export const auth = 1;\n' > src/auth/login.ts
ln -s ../api src/auth/to-api

snapshot() { # what must not change, outside the scope
	find src/api README.md docs .orchestration src/auth/login.test.ts \
		-printf '%p %i %m %y %s %T@\n' | sort
	find src/api README.md docs .orchestration src/auth/login.test.ts -type f \
		-exec sha256sum {} + | sort
}
before=$(snapshot)

guarded() { # a bash script under the guard with INT-001; output appended to $OUT
	"$DCG" run --intent INT-001 -- bash -c "$1" >>"$OUT" 2>&1
}

# ---- unknown intents are refused before anything runs ---------------------------------
"$DCG" run --intent INT-404 -- bash -c "echo ran > $T/ran" >"$T/err" 2>&1 && bad "unknown intent ran"
[ -e "$T/ran" ] && bad "the command ran under an unknown intent"
grep -q INT-001 "$T/err" && grep -q INT-002 "$T/err" || bad "known IDs not listed: $(cat "$T/err")"

# ---- attacks outside the scope ---------------------------------------------------------
attacks=(
	'echo pwned > src/api/keep.ts' 'echo pwned >> src/api/keep.ts' 'echo x > src/api/new.ts'
	': > README.md' 'echo x > src/auth/login.test.ts' 'echo x > src/auth/to-api/keep.ts'
	'echo x > src/auth/../api/up.ts' 'echo x > docs/guide.md' 'echo x > .orchestration/active_intents.yaml'
	'rm -f src/api/keep.ts' 'rm -rf src/api' 'rm -f src/auth/login.test.ts'
	'mv src/api/keep.ts src/auth/' 'mv src/auth/login.ts src/api/' 'mv README.md src/auth/'
	'cp src/auth/login.ts src/api/copy.ts' 'touch README.md' 'touch src/api/touched.ts'
	'chmod 600 src/api/keep.ts' 'mkdir src/api/newdir' 'truncate -s 0 src/api/keep.ts'
	'sed -i s/api/pwned/ src/api/keep.ts' 'echo x | tee src/api/tee.ts'
	'ln -s /etc/hostname src/api/link' 'ln src/auth/login.ts src/api/hard.ts'
	'cd src/api && echo x > cd.ts' 'cd src/auth && rm -f ../api/keep.ts'
	'env -i /bin/bash -c "echo x > src/api/envi.ts"' 'env -i /bin/rm -f src/api/keep.ts'
	'DCG_INTENT=INT-002 bash -c "echo x > src/api/other.ts"'
	'DCG_INTENTS_FILE=/nonexistent bash -c "echo x > src/api/other2.ts"'
	"python3 -c 'open(\"src/api/keep.ts\",\"w\").write(\"pwned\")'"
	"python3 -c 'import os; os.remove(\"src/api/keep.ts\")'"
	"python3 -c 'import os; os.rename(\"src/api/keep.ts\", \"src/auth/k.ts\")'"
	"python3 -c 'import shutil; shutil.rmtree(\"src/api\")'"
	"perl -e 'unlink \"src/api/keep.ts\"'" "perl -e 'open F, \">README.md\"; print F 1'"
)
have() { command -v "$1" >/dev/null 2>&1; }
n=0
for a in "${attacks[@]}"; do
	case $a in python3*) have python3 || continue ;; perl*) have perl || continue ;; esac
	guarded "$a"
	n=$((n + 1))
done
echo "ran $n attacks"
after=$(snapshot)
if [ "$before" != "$after" ]; then
	bad "files outside the scope changed:"
	diff <(echo "$before") <(echo "$after") | head -20
fi
for f in src/api/new.ts src/api/up.ts docs/guide.md src/api/copy.ts src/api/touched.ts \
	src/api/newdir src/api/tee.ts src/api/link src/api/hard.ts src/api/cd.ts src/api/envi.ts \
	src/api/other.ts src/api/other2.ts src/auth/k.ts src/auth/keep.ts src/auth/README.md; do
	[ -e "$f" ] || [ -L "$f" ] && bad "$f was created"
done
grep -q 'SCOPE_VIOLATION' "$OUT" || bad "no SCOPE_VIOLATION on stderr"
grep -q 'scope.violation' "$OUT" || bad "no rule ID on stderr"
grep -q '"rule_id":"scope.violation"' "$DCG_LOG" || bad "no scope.violation in the audit log"
grep -q 'SCOPE_VIOLATION' "$DCG_LOG" || bad "no SCOPE_VIOLATION in the audit log"

# ---- ordinary work in the scope still succeeds -----------------------------------------
: > "$OUT"
guarded 'echo new > src/auth/new.ts && echo more >> src/auth/login.ts && mkdir -p src/auth/d/e &&
	touch src/auth/d/e/f.ts && mv src/auth/new.ts src/auth/sub/new.ts && rm src/auth/d/e/f.ts &&
	cat README.md src/api/keep.ts >/dev/null && ls src/api >/dev/null &&
	echo scratch > '"$T"'/scratch/x && cat /dev/null > /dev/null && echo done' \
	|| bad "work in the scope failed: $(cat "$OUT")"
grep -q '^done$' "$OUT" || bad "work in the scope did not finish: $(cat "$OUT")"
[ -f src/auth/sub/new.ts ] || bad "src/auth/sub/new.ts missing"
grep -q more src/auth/login.ts || bad "src/auth/login.ts not appended"
[ -f "$T/scratch/x" ] || bad "scratch file outside the project missing"
grep -q 'scope\.' "$OUT" && bad "refusals during work in the scope: $(cat "$OUT")"
if have python3; then
	guarded "python3 -c 'open(\"src/auth/py.ts\",\"w\").write(\"ok\")'"
	[ -f src/auth/py.ts ] || bad "python could not write in the scope"
fi

# ---- another intent confines differently ------------------------------------------------
"$DCG" run --intent INT-002 -- bash -c 'echo x > docs/guide.md; echo y > src/auth/doc.ts' >"$OUT" 2>&1
[ -f docs/guide.md ] || bad "INT-002 could not write docs/"
[ -e src/auth/doc.ts ] && bad "INT-002 wrote src/auth/"

# ---- both launchers: --intent=ID, a session, and --help read before anything -----------
env=$("$DCG" run --intent=INT-002 -- sh -c 'echo "$DCG_INTENT|$DCG_SESSION|${DCG_SANDBOX:-}"' 2>&1)
case $env in INT-002\|?*\|) ;; *) bad "run environment: $env" ;; esac
for launcher in run sandbox; do
	out=$("$DCG" $launcher --intent INT-404 --help 2>&1) || bad "$launcher --help failed: $out"
	case $out in "usage: dcg $launcher"*) ;; *) bad "$launcher --help: $out" ;; esac
done

# ---- dcg sandbox --intent: the supervisor alone (no preload) refuses too ---------------
if "$DCG" sandbox --no-preload -- true >/dev/null 2>&1; then
	before=$(snapshot)
	"$DCG" sandbox --intent INT-001 --no-preload -- bash -c 'echo x > src/api/keep.ts;
		rm -f src/api/keep.ts; echo y > src/api/sbx.ts; mv README.md src/auth/;
		echo ok > src/auth/sbx.ts' >"$OUT" 2>&1
	after=$(snapshot)
	[ "$before" = "$after" ] || bad "sandbox: files outside the scope changed"
	[ -e src/api/sbx.ts ] && bad "sandbox: src/api/sbx.ts was created"
	[ -f src/auth/sbx.ts ] || bad "sandbox: could not write in the scope: $(cat "$OUT")"
	grep -q 'SCOPE_VIOLATION' "$OUT" || bad "sandbox: no SCOPE_VIOLATION on stderr: $(cat "$OUT")"
	"$DCG" sandbox --intent INT-404 -- true >/dev/null 2>&1 && bad "sandbox: unknown intent ran"
	# the environment both launchers build (cli/launch.c): --intent=ID, a session
	env=$("$DCG" sandbox --intent=INT-002 -- sh -c 'echo "$DCG_INTENT|$DCG_SESSION|$DCG_SANDBOX"' 2>&1)
	case $env in INT-002\|?*\|1) ;; *) bad "sandbox environment: $env" ;; esac
else
	echo "dcg sandbox cannot run here: its part is skipped"
fi

[ $fail -eq 0 ] && echo "intent run: all passed"
exit $fail
