#!/bin/bash
# The preload guard under real programs: bash, coreutils, python3, perl, node, env -i,
# symlinks, `..` and cd tricks, run with `dcg run --policy` in a workspace holding a
# zero-access (za/), a read-only (ro/) and a no-delete (nd/) tree. Asserts that the
# protected trees survive byte for byte (and inode for inode), that the secret reaches
# no output, that refusals are reported as DESIGN.md says, and that ordinary work
# (reads of ro/, writes in nd/, a build in a scratch folder) still succeeds.
set -u
BUILD=${BUILD:-build}
T=${TMPDIR_TEST:?}
DCG=${DCG_BIN:-$PWD/$BUILD/dcg}
PROBE=$PWD/$BUILD/progs/preload_probe
[ -x "$DCG" ] || { echo "no $DCG"; exit 1; }
[ -e "$BUILD/libdcg-preload.so" ] || { echo "no $BUILD/libdcg-preload.so"; exit 1; }

fail=0
bad() { echo "FAIL: $*"; fail=1; }

WS=$T/ws
ORIG=$T/orig
OUT=$T/out.log
export DCG_LOG=$T/audit.jsonl
export XDG_RUNTIME_DIR=$T/run && mkdir -m 700 -p "$XDG_RUNTIME_DIR"
SECRET="TOPSECRET-$$-$RANDOM$RANDOM"

mkdir -p "$WS"/{za/sub,ro/sub,nd/sub,free,scratch}
cd "$WS" || exit 1
echo "$SECRET" > za/secret
echo "$SECRET in a sub folder" > za/sub/deep
printf 'alpha\nbeta\n' > ro/a.txt
printf 'read only sub\n' > ro/sub/b.txt
printf 'keep me\n' > nd/f1
printf 'keep me too\n' > nd/sub/f2
printf 'scratch\n' > free/x
printf '#!/bin/sh\ntouch "$1"\n' > za/run.sh && chmod +x za/run.sh # exec of zero-access
cat > policy.yaml <<'EOF'
zeroAccessPaths: [za/]
readOnlyPaths: [ro/]
noDeletePaths: [nd/]
EOF
# Older than any session started from now on: a session starts one tick of the
# kernel's coarse clock back (rt_session_now() in runtime/rt.h).
sleep 0.05

snapshot() { # what must not change: content, inode, mode, mtime of every entry
	(cd "$WS" && find za ro nd -printf '%p %i %m %y %s %T@\n' | sort)
}
mkdir -p "$ORIG" && cp -a za ro nd "$ORIG"/
before=$(snapshot)

guarded() { # runs a bash script under the guard; output appended to $OUT
	"$DCG" run --policy "$WS/policy.yaml" -- bash -c "$1" >>"$OUT" 2>&1
}

# ---- attacks: each may fail any way it likes; the data must survive ----------------------
attacks=(
	# bash redirections
	'echo pwned > ro/a.txt' 'echo pwned >> ro/a.txt' 'echo pwned 1<> ro/a.txt'
	'exec 3> ro/a.txt; echo pwned >&3' ': > ro/sub/b.txt' 'echo x > ro/new.txt'
	'cat < za/secret' 'while read l; do echo "$l"; done < za/secret'
	# coreutils
	'rm nd/f1' 'rm -rf nd' 'rm -rf ro za' 'rm -f za/secret' 'rm -r nd/sub'
	'mv nd/f1 free/' 'mv nd free/nd' 'mv ro/a.txt free/' 'mv free/x ro/a.txt' 'mv free/x nd/f1'
	'cp free/x ro/a.txt' 'cp za/secret free/leak' 'cp -r za free/leakdir'
	'ln nd/f1 free/hard; rm nd/f1' 'ln za/secret free/hl' 'ln -sf /tmp ro/a.txt'
	'truncate -s 0 ro/a.txt' 'truncate -s 0 za/secret' 'touch ro/a.txt' 'touch -d 2001-01-01 za/secret'
	'mkdir ro/newdir' 'mkdir za/newdir' 'chmod 000 ro/a.txt' 'chmod 777 za/secret'
	'sed -i s/alpha/omega/ ro/a.txt' 'echo pwned | tee ro/a.txt' 'echo pwned | tee -a ro/sub/b.txt'
	'dd if=/dev/zero of=ro/a.txt bs=1 count=3' 'dd if=za/secret of=free/dd.out'
	'install -m 644 free/x ro/a.txt' 'find nd -delete' 'find ro -name "*.txt" -delete'
	'cat za/secret' 'head -c 100 za/secret' 'tail za/sub/deep' 'grep -r . za' 'ls za'
	'od -c za/secret' 'base64 za/secret' 'cat za/*'
	# symlinks into protected trees, .. and cd
	'ln -s ../za/secret free/sl; cat free/sl' 'ln -s ../ro free/rolink; echo pwned > free/rolink/a.txt'
	'ln -s ../nd free/ndlink; rm free/ndlink/f1' 'cat free/../za/secret' 'echo pwned > ./free/../ro//a.txt'
	'cd ro && echo pwned > a.txt' 'cd za && cat secret' 'cd nd/sub && rm -f f2 ../f1'
	'cd free && mv ../nd ../nd2' "cd / && mv '$WS' '$WS.moved'" 'mv nd/sub free/sub'
	# exec of a zero-access program
	'za/run.sh free/ran' './za/run.sh free/ran' "python3 -c 'import subprocess; subprocess.run([\"za/run.sh\", \"free/ran\"])'"
	# env tricks
	'env -i /bin/rm -f nd/f1' 'env -i bash -c "cat za/secret"' 'env -u LD_PRELOAD rm -f nd/f1'
	'LD_PRELOAD= cat za/secret' 'DCG_SNAPSHOT=/dev/null rm -f nd/f1' 'unset LD_PRELOAD; rm -f nd/f1'
	# python3
	"python3 -c 'print(open(\"za/secret\").read())'"
	"python3 -c 'open(\"ro/a.txt\",\"w\").write(\"pwned\")'"
	"python3 -c 'import os; os.remove(\"nd/f1\")'"
	"python3 -c 'import shutil; shutil.rmtree(\"nd\")'"
	"python3 -c 'import os; os.rename(\"nd/f1\", \"free/f1\")'"
	"python3 -c 'import os; os.truncate(\"ro/a.txt\", 0)'"
	"python3 -c 'import os; os.chmod(\"ro/a.txt\", 0)'"
	"python3 -c 'import subprocess; subprocess.run([\"rm\", \"-f\", \"nd/f1\"], env={})'"
	"python3 -c 'import os; os.system(\"cat za/secret\")'"
	'python3 - <<EOF
import os, shutil
print(open("za/sub/deep").read())
os.unlink("nd/sub/f2")
shutil.copy("free/x", "ro/a.txt")
EOF'
	# perl
	"perl -i -pe s/alpha/omega/ ro/a.txt" "perl -e 'unlink \"nd/f1\"'" "perl -e 'open F, \"za/secret\"; print <F>'"
	"perl -e 'rename \"nd/f1\", \"free/f1\"'" "perl -e 'system(\"rm -f nd/f1\")'"
	# node (synchronous fs: libuv's io_uring path is only for asynchronous calls)
	"node -e 'console.log(require(\"fs\").readFileSync(\"za/secret\", \"utf8\"))'"
	"node -e 'require(\"fs\").writeFileSync(\"ro/a.txt\", \"pwned\")'"
	"node -e 'require(\"fs\").unlinkSync(\"nd/f1\")'"
	"node -e 'require(\"fs\").rmSync(\"nd\", {recursive: true, force: true})'"
	"node -e 'require(\"fs\").renameSync(\"nd/f1\", \"free/f1\")'"
	"node -e 'require(\"child_process\").execSync(\"rm -f nd/f1\", {env: {}})'"
)
have() { command -v "$1" >/dev/null 2>&1; }
n=0
for a in "${attacks[@]}"; do
	case $a in python3*) have python3 || continue ;; perl*) have perl || continue ;;
	node*) have node || continue ;; esac
	guarded "$a"
	n=$((n + 1))
done
echo "ran $n attacks"

after=$(snapshot)
if [ "$before" != "$after" ]; then
	bad "protected trees changed:"
	diff <(echo "$before") <(echo "$after") | head -20
fi
for d in za ro nd; do
	diff -r "$ORIG/$d" "$WS/$d" >/dev/null || bad "$d differs from its copy"
done
[ -d "$WS.moved" ] && { bad "the workspace was renamed away"; mv "$WS.moved" "$WS"; }
[ -e "$WS/free/ran" ] && bad "a zero-access program was executed"
if grep -rqa "$SECRET" "$OUT" "$WS/free" "$DCG_LOG" 2>/dev/null; then
	bad "the secret reached an output:"
	grep -rla "$SECRET" "$OUT" "$WS/free" "$DCG_LOG" | head
fi

# ---- the refusal line and the audit log -------------------------------------------------
: > "$T/one.log"
# A plain unlink() (no argv analysis in the way): -1/EACCES and exactly one line.
"$DCG" run --policy "$WS/policy.yaml" -- "$PROBE" unlink nd/f1 2>"$T/one.log"
rc=$?
[ $rc -eq 13 ] || bad "unlink(nd/f1) did not fail with EACCES (probe exit $rc)"
grep -qxE 'dcg: blocked unlink of /[^ ]*/nd/f1: noDeletePaths nd/ \[[a-z_.0-9]+\]' "$T/one.log" &&
	[ "$(grep -c '^dcg: blocked' "$T/one.log")" -eq 1 ] || { bad "refusal line not as specified:"; cat "$T/one.log"; }
[ -s "$DCG_LOG" ] || bad "no audit log"
grep -q '"layer":"preload"' "$DCG_LOG" || bad "audit log has no preload line"
grep -q '"tool":"unlink"' "$DCG_LOG" || bad "audit log misses the unlink refusal"

# A refusal of CMD itself (dcg run checks it before the first exec) is logged too.
"$DCG" run --policy "$WS/policy.yaml" -- bash -c 'git reset --hard' >/dev/null 2>&1 &&
	bad "dcg run ran a refused CMD"
grep -q '"tool":"exec".*"rule_id":"core.git.reset_hard"' "$DCG_LOG" ||
	bad "audit log misses the refusal of dcg run's own CMD"

# The exit status is CMD's.
"$DCG" run --policy "$WS/policy.yaml" -- bash -c 'exit 7'
[ $? -eq 7 ] || bad "dcg run did not return CMD's status"

# ---- ordinary work still succeeds -------------------------------------------------------
ok() { "$DCG" run --policy "$WS/policy.yaml" -- bash -c "$1" >>"$T/ok.log" 2>&1 || bad "ordinary work failed: $1"; }
ok 'cat ro/a.txt > free/copy && cmp ro/a.txt free/copy'
ok 'grep -q beta ro/a.txt && head -1 ro/sub/b.txt >/dev/null && ls ro nd free >/dev/null'
ok 'echo more >> nd/f1 && printf "keep me\n" > nd/f1 && cmp nd/f1 '"'$ORIG/nd/f1'"
ok 'echo new > nd/new && cat nd/new >/dev/null'
ok 'cp ro/a.txt free/c2 && mv free/c2 free/c3 && rm free/c3 && mkdir -p free/d/e && rmdir free/d/e free/d'
ln -s ../ro "$WS/free/rl" # made outside the guard: the current shell analysis refuses
ok 'cat free/rl/a.txt >/dev/null && cat free/rl/sub/b.txt >/dev/null' # `ln -s ../ro` itself
ok 'cd scratch && printf "#include <stdio.h>\nint main(void){puts(\"built\");return 0;}\n" > m.c && cc -o m m.c && ./m | grep -q built'
ok 'cd scratch && printf "all: out\nout: in\n\tcp in out\n" > Makefile && echo hi > in && make -s && cmp in out'
have python3 && ok "python3 -c 'import os, shutil; open(\"free/p\",\"w\").write(open(\"ro/a.txt\").read()); os.makedirs(\"scratch/src/a\"); shutil.copytree(\"scratch/src\", \"scratch/t\"); os.rmdir(\"scratch/src/a\"); os.rmdir(\"scratch/t/a\"); os.remove(\"free/p\")'"
have perl && ok "perl -e 'open F, \">\", \"free/pl\" or die; print F 1; close F; unlink \"free/pl\" or die'"
have node && ok "node -e 'const fs=require(\"fs\"); fs.writeFileSync(\"free/n\",\"1\"); fs.readFileSync(\"ro/a.txt\"); fs.unlinkSync(\"free/n\")'"
ok 'env -i /bin/cat ro/a.txt >/dev/null'
# A shell that closed fd 2 (the script's argv shows nothing to refuse).
printf 'exec 2>&-\nrm nd/f1\ntest -e nd/f1\n' > "$T/fd2.sh"
ok "bash '$T/fd2.sh'"
[ -e nd/f1 ] || bad "nd/f1 deleted with fd 2 closed"

# git reset --hard run by make (not typed by the agent) is caught at the exec.
if have git && have make; then
	R=$T/repo
	mkdir -p "$R" && cd "$R" && git init -q && echo committed > f.txt && git add f.txt &&
		git -c user.email=t@t -c user.name=t commit -qm init && echo uncommitted > f.txt &&
		printf 'reset:\n\tgit reset --hard\n' > Makefile
	"$DCG" run --policy "$WS/policy.yaml" -- make -s reset >"$T/make.log" 2>&1
	[ "$(cat f.txt)" = uncommitted ] || bad "git reset --hard from a Makefile ran"
	grep -q '^dcg: blocked .*git reset --hard.*\[core\.git\.reset_hard\]' "$T/make.log" ||
		{ bad "no refusal line for make's git reset --hard"; cat "$T/make.log"; }
	cd "$WS" || exit 1
fi

# ask at runtime: asked on /dev/tty; without a terminal (setsid) it is a refusal.
if command -v setsid >/dev/null; then
	printf 'bashToolPatterns:\n  - pattern: "\\\\bdcg-ask-me\\\\b"\n    reason: asks first\n    ask: true\n' > "$T/ask.yaml"
	mkdir -p free/dcg-ask-me
	printf 'cd free && ls -d dcg-ask-me > asked\n' > "$T/ask.sh"
	setsid -w "$DCG" run --policy "$T/ask.yaml" -- bash "$T/ask.sh" 2>"$T/ask.log" </dev/null
	[ -s free/asked ] && bad "an ask rule ran without a terminal to ask on"
	grep -q '^dcg: blocked execve of ls -d dcg-ask-me: asks first' "$T/ask.log" ||
		{ bad "no refusal line for the unanswered ask"; cat "$T/ask.log"; }
fi

# git keeps its own .git/ (the default policy's no-delete rule names git as its owner),
# while nobody else may delete or move it.
if have git; then
	G=$T/gitwork
	mkdir -p "$G" && cd "$G" || exit 1
	printf 'git init -q && echo a > a && git add a && git -c user.email=t@t -c user.name=t commit -qm one && echo b >> a && git -c user.email=t@t -c user.name=t commit -qam two\n' > "$T/git.sh"
	"$DCG" run -- bash "$T/git.sh" >"$T/git.log" 2>&1 || { bad "git init/add/commit failed under the guard"; cat "$T/git.log"; }
	[ "$(git log --oneline 2>/dev/null | wc -l)" -eq 2 ] || bad "git history incomplete"
	printf 'mv .git .git2\n' > "$T/gitmv.sh"
	"$DCG" run -- bash "$T/gitmv.sh" >/dev/null 2>&1
	[ -d .git ] && [ ! -e .git2 ] || bad "mv .git .git2 was not refused"
	cd "$WS" || exit 1
fi

# A static program the agent starts: said once per session, however many processes run it.
printf 'int main(void) { return 0; }\n' > "$T/st.c"
if cc -static -o "$T/static_true" "$T/st.c" 2>/dev/null; then
	"$DCG" run --policy "$WS/policy.yaml" -- bash -c "'$T/static_true'; '$T/static_true'; bash -c '$T/static_true'" 2>"$T/static.log"
	[ "$(grep -c "dcg: note: $T/static_true is statically linked" "$T/static.log")" -eq 1 ] ||
		{ bad "the static-binary note was not given exactly once"; cat "$T/static.log"; }
	# one that a tool deeper in the agent's work starts (esbuild, go, sudo) is not said:
	# its line would reach the agent's output in every session
	"$DCG" run --policy "$WS/policy.yaml" -- bash -c "bash -c '$T/static_true; true'; true" 2>"$T/static2.log"
	! grep -q "dcg: note:" "$T/static2.log" ||
		{ bad "the static-binary note was given for a grandchild of the agent"; cat "$T/static2.log"; }
fi

if [ $fail -ne 0 ]; then
	echo "---- guarded output (tail)"; tail -n 40 "$OUT"
	echo "---- ordinary work output"; tail -n 20 "$T/ok.log"
fi
exit $fail
