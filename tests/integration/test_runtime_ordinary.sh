#!/bin/bash
# Ordinary work under both runtime layers (dcg run, dcg sandbox) with the embedded
# default policy: a real Makefile built and cleaned (rm -rf build, rm -f), sed -i,
# perl -pi, Python's atomic save and git commits inside a no-delete folder, git stash,
# worktrees and a clone with submodules, a Python
# venv, pip's copy of certifi's CA bundle, clean scripts as python -c and node -e, TLS
# clients reading the system CA store, tar (also --remove-files), cp -r, mktemp and
# cleanup.
# Each must succeed with no `dcg:` line on stderr and nothing in the audit log; and a
# pre-existing no-delete file still cannot be deleted or replaced by an older file.
set -u
: "${BUILD:=build}"
: "${TMPDIR_TEST:=$(mktemp -d)}"
ROOT=$PWD
DCG=${DCG_BIN:-$ROOT/$BUILD/dcg}
T=$TMPDIR_TEST
fail() { echo "FAIL: $*"; exit 1; }
export HOME=$T/home XDG_CONFIG_HOME=$T/home/.config XDG_STATE_HOME=$T/home/.local/state
unset DCG_POLICY LD_PRELOAD DCG_LOG
mkdir -p "$HOME"
git config --global user.email t@example.invalid 2>/dev/null
git config --global user.name t 2>/dev/null
git config --global init.defaultBranch main 2>/dev/null

# The work, as an agent's shell would run it (a script file: the hook never saw it).
cat >"$T/work.sh" <<'SH'
set -e
cd "$1"
# a real Makefile: build, clean (rm -rf build, rm -f), build again
make -s && make -s clean && make -s && test -x build/hello
# edits of files in the no-delete folder, every way editors and tools make them
sed -i 's/one/ONE/' nd/notes.txt
perl -pi -e 's/two/TWO/' nd/notes.txt
python3 - <<'PY'
import os, tempfile
fd, tmp = tempfile.mkstemp(dir="nd", prefix=".notes.")
with os.fdopen(fd, "w") as f:
    f.write(open("nd/notes.txt").read() + "three\n")
os.replace(tmp, "nd/notes.txt")
PY
grep -q ONE nd/notes.txt && grep -q TWO nd/notes.txt && grep -q three nd/notes.txt
# a scratch file of the session in the no-delete folder, made and removed
echo scratch > nd/scratch.tmp && rm nd/scratch.tmp
# git inside the no-delete folder: lock files renamed over index and refs
cd nd/repo && echo change >> file && git add file && git commit -qm change && cd ../..
# git's own plumbing, which the system's git may run (owners: ['git stash', ...]): git
# stash and git worktree add run `git reset --hard`, a clone with submodules
# `git checkout -f`
cd sup && echo wip >> .gitmodules && git stash -q && ! grep -q wip .gitmodules &&
	git stash pop -q && grep -q wip .gitmodules && git checkout -q .gitmodules &&
	git worktree add -q ../wt && git worktree remove ../wt && cd ..
git -c protocol.file.allow=always clone -q --recurse-submodules sup sup2 && test -f sup2/sub/s
# a Python virtual environment (no network)
python3 -m venv --without-pip venv && venv/bin/python -c 'import sys; print(sys.prefix)' >/dev/null
rm -rf venv
# What pip does when it runs from its wheel (python -m venv with pip, ensurepip, pip.pyz):
# certifi's CA bundle is copied out of the zip by importlib.resources into the temporary
# folder, as tmpXXXXXXXXcacert.pem, and read there (a *.pem file the default's
# zero-access rules must let through, as they let certifi's own cacert.pem)
python3 - <<'PY'
import importlib.resources, os, sys, tempfile, zipfile
d = tempfile.mkdtemp()
whl = os.path.join(d, "bundle.whl")
with zipfile.ZipFile(whl, "w") as z:
    z.writestr("certs/__init__.py", "")
    z.writestr("certs/cacert.pem", "-----BEGIN CERTIFICATE-----\npublic\n-----END CERTIFICATE-----\n")
sys.path.insert(0, whl)
with importlib.resources.as_file(importlib.resources.files("certs") / "cacert.pem") as p:
    assert os.path.basename(p).startswith("tmp") and p.name.endswith("cacert.pem"), p
    assert open(p).read().startswith("-----BEGIN CERTIFICATE-----")
os.remove(whl)
os.rmdir(d)
PY
# TLS clients read the system CA store (public *.pem files)
python3 -c 'import ssl; c = ssl.create_default_context(); c.load_verify_locations(capath="/etc/ssl/certs")'
if command -v openssl >/dev/null && [ -f /etc/ssl/certs/ca-certificates.crt ]; then
	openssl storeutl -noout -certs /etc/ssl/certs/ca-certificates.crt >/dev/null
fi
# clean scripts as inline code: judged by the files they delete and the commands they run
mkdir -p pyclean/x && python3 -c 'import shutil; shutil.rmtree("pyclean")' && test ! -e pyclean
python3 -c 'import os, sys; sys.exit(os.system("ls > /dev/null"))'
if command -v node >/dev/null; then
	mkdir -p dist/x && node -e "require('fs').rmSync('dist', {recursive: true, force: true})" &&
		test ! -e dist
fi
# tar, cp -r, mktemp and cleanup
tar -cf src.tar src && mkdir -p x && tar -xf src.tar -C x && rm -rf x src.tar
cp -r src src2 && rm -rf src2
# an archiver that deletes what it packed (tar --remove-files, like rimraf and zip -m a
# local deleter): judged by the files it deletes
mkdir -p logs && echo a >logs/a.log && tar --remove-files -cf logs.tar logs && test ! -e logs &&
	rm logs.tar
d=$(mktemp -d) && f=$(mktemp) && echo x >"$f" && cp "$f" "$d/" && rm -rf "$d" "$f"
SH

prepare() {
	local w=$1
	rm -rf "$w"
	mkdir -p "$w/src" "$w/nd"
	cat >"$w/src/hello.c" <<'C'
#include <stdio.h>
int main(void) { puts("hello"); return 0; }
C
	printf 'build/hello: src/hello.c\n\tmkdir -p build\n\t$(CC) -o $@ $<\nclean:\n\trm -rf build\n\trm -f *.o core\n' >"$w/Makefile"
	printf 'one\ntwo\n' >"$w/nd/notes.txt"
	printf 'keep me\n' >"$w/nd/keep"
	printf 'an older file\n' >"$w/older"
	(cd "$w/nd" && mkdir repo && cd repo && git init -q && echo a >file && git add file &&
		git commit -qm init) || fail "git set-up"
	(cd "$w" && git init -q sub && cd sub && echo s >s && git add s && git commit -qm s &&
		cd .. && git init -q sup && cd sup &&
		git -c protocol.file.allow=always submodule add -q "$w/sub" sub &&
		git commit -qm sup) || fail "submodule set-up"
	printf "noDeletePaths: ['%s/nd/']\n" "$w" >"$w/policy.yaml"
	# Everything above existed before the session.
	touch -d '2 minutes ago' "$w/nd/keep" "$w/older" "$w/nd/notes.txt"
}

sandbox_ok=1
if ! out=$("$DCG" sandbox -- /bin/true 2>&1); then
	case $out in
	*"without protection"*) echo "no dcg sandbox here: $out"; sandbox_ok=0 ;;
	*) fail "dcg sandbox -- /bin/true failed: $out" ;;
	esac
fi

for layer in run sandbox; do
	[ $layer = sandbox ] && [ $sandbox_ok = 0 ] && continue
	w=$T/ws-$layer
	prepare "$w"
	log=$HOME/.local/state/dcg/audit.jsonl
	rm -f "$log"
	keep_inode=$(stat -c %i "$w/nd/keep")
	"$DCG" $layer --policy "$w/policy.yaml" -- bash "$T/work.sh" "$w" >"$T/$layer.out" 2>"$T/$layer.err" ||
		{ cat "$T/$layer.err"; fail "ordinary work failed under dcg $layer"; }
	if grep -a '^dcg:' "$T/$layer.err"; then fail "dcg $layer said something during ordinary work"; fi
	if [ -s "$log" ]; then cat "$log"; fail "dcg $layer logged during ordinary work"; fi

	# Still refused: deleting a file that existed before, replacing it with an older one.
	"$DCG" $layer --policy "$w/policy.yaml" -- bash -c "cd '$w' && rm -f nd/keep; mv older nd/keep; true" \
		2>"$T/$layer.neg"
	[ "$(cat "$w/nd/keep")" = "keep me" ] && [ "$(stat -c %i "$w/nd/keep")" = "$keep_inode" ] ||
		fail "dcg $layer let a pre-existing no-delete file go"
	[ -f "$w/older" ] || fail "dcg $layer let an older file replace a no-delete name"
	grep -q "^dcg: blocked .* of $w/nd/keep: noDeletePaths" "$T/$layer.neg" ||
		{ cat "$T/$layer.neg"; fail "dcg $layer: no refusal line naming the whole path"; }
	[ -s "$log" ] || fail "dcg $layer: the refusal is not in the audit log"
	# an inline script aimed at the home folder is still refused at exec
	mkdir -p "$HOME/keepme"
	"$DCG" $layer --policy "$w/policy.yaml" -- python3 -c \
		'import os, shutil; shutil.rmtree(os.path.expanduser("~/keepme"))' 2>"$T/$layer.home" &&
		fail "dcg $layer let an inline script delete in the home folder"
	grep -q "heredoc.python.shutil_rmtree" "$T/$layer.home" ||
		{ cat "$T/$layer.home"; fail "dcg $layer: no refusal of the script aimed at ~"; }
	[ -d "$HOME/keepme" ] || fail "dcg $layer: the script deleted ~/keepme"
	# git reset --hard from a shell is still refused: the uncommitted change stays
	echo unsaved >>"$w/sup/.gitmodules"
	"$DCG" $layer --policy "$w/policy.yaml" -- bash -c "cd '$w/sup' && git reset -q --hard" \
		2>"$T/$layer.reset" && fail "dcg $layer let a shell run git reset --hard"
	grep -q "core.git.reset_hard" "$T/$layer.reset" ||
		{ cat "$T/$layer.reset"; fail "dcg $layer: no refusal of git reset --hard"; }
	grep -q unsaved "$w/sup/.gitmodules" || fail "dcg $layer: git reset --hard lost the change"
	# nor through an alias that git runs as a command of its own (no shell between)
	"$DCG" $layer --policy "$w/policy.yaml" -- bash -c \
		"cd '$w/sup' && git -c alias.x='!git' x reset -q --hard" 2>"$T/$layer.alias" &&
		fail "dcg $layer let git run git reset --hard for an alias"
	grep -q unsaved "$w/sup/.gitmodules" || fail "dcg $layer: an alias's git reset --hard lost the change"
	# A session started in the project: `find . -delete` and a Makefile's clean step with
	# find are judged by each file find deletes, not refused at exec for what the project
	# folder holds. The agent's settings there (.claude/settings.json) survive byte for
	# byte, and so does the rest once a find aims at them.
	p=$T/proj-$layer
	rm -rf "$p" && mkdir -p "$p/a/__pycache__" "$p/b" "$p/.claude"
	printf '{"hooks":1}\n' >"$p/.claude/settings.json"
	touch -d '2 minutes ago' "$p/.claude/settings.json"
	touch "$p/a/__pycache__/m.pyc" "$p/b/x.o" "$p/b/y.o"
	printf 'clean:\n\tfind . -name "*.o" -delete\n' >"$p/Makefile"
	(cd "$p" && "$DCG" $layer -- bash -c 'find . -name "*.pyc" -delete && make -s clean &&
		find . -type d -empty -delete') 2>"$T/$layer.find" ||
		{ cat "$T/$layer.find"; fail "dcg $layer refused find -delete from the project's root"; }
	if grep -a '^dcg:' "$T/$layer.find"; then fail "dcg $layer said something for find -delete"; fi
	[ ! -e "$p/a" ] && [ ! -e "$p/b/x.o" ] || fail "dcg $layer: find -delete left files"
	# (not the last command of `bash -c`, which bash would exec in its own process: the
	# wrapped agent's, which may write its own settings)
	(cd "$p" && "$DCG" $layer -- bash -c 'find . -name "*.json" -delete; exit $?') \
		2>"$T/$layer.find2" &&
		fail "dcg $layer let find -delete take the agent's settings"
	[ "$(cat "$p/.claude/settings.json")" = '{"hooks":1}' ] ||
		fail "dcg $layer: find -delete deleted .claude/settings.json"
	grep -q "^dcg: blocked unlinkat of $p/.claude/settings.json: readOnlyPaths" "$T/$layer.find2" ||
		{ cat "$T/$layer.find2"; fail "dcg $layer: no refusal line for the settings"; }
	echo "dcg $layer: ordinary work quiet, protected file kept"
done
