#!/bin/bash
# The guard's compact path index and argv filter against its engine, on real programs:
# the same work under dcg run twice, once with the index and the filter dcg run writes
# beside the snapshot (most path and exec checks settled in the lean guest), once
# through a copy of the snapshot with neither beside it (every check goes to
# libdcg-engine.so). Each step reports ok or
# refused; the two runs must agree line for line, refuse every write, deletion and
# read the policy forbids, leave the protected files byte for byte, and do the
# ordinary work. The programs reach the paths through their own code (Python with
# paths from the environment, cp, sed -i, rm, mv, a shell redirection), so the libc
# wrappers decide, not the command-line analysis.
set -u
: "${BUILD:=build}"
: "${TMPDIR_TEST:=$(mktemp -d)}"
ROOT=$PWD
DCG=${DCG_BIN:-$ROOT/$BUILD/dcg}
T=$TMPDIR_TEST
fail() { echo "FAIL: $*"; exit 1; }
export HOME=$T/home XDG_CONFIG_HOME=$T/home/.config XDG_STATE_HOME=$T/home/.local/state
export XDG_RUNTIME_DIR=$T/run DCG_LOG=$T/audit.jsonl
unset DCG_POLICY LD_PRELOAD DCG_SNAPSHOT
mkdir -p "$HOME" && mkdir -m 700 -p "$XDG_RUNTIME_DIR"
command -v python3 >/dev/null || { echo "no python3"; exit 77; }

W=$T/w
POL=$T/policy.yaml
printf 'readOnlyPaths: ["%s/ro/"]\nnoDeletePaths: ["%s/nd/"]\nzeroAccessPaths: ["%s/za/"]\n' \
	"$W" "$W" "$W" >"$POL"

LONG=$(printf 'l%.0s' $(seq 100))/$(printf 'm%.0s' $(seq 100))/$(printf 'n%.0s' $(seq 100))
# A fresh tree for each run; the protected files' contents are kept aside to compare.
setup() {
	rm -rf "$W" && mkdir -p "$W/ro" "$W/nd" "$W/za" "$W/free/sub"
	printf 'read only\n' >"$W/ro/file"
	printf 'keep me\n' >"$W/nd/keep"
	printf 'secret\n' >"$W/za/secret"
	printf 'alpha\n' >"$W/free/f"
	printf 'beta\n' >"$W/free/gone"
	printf '#!/bin/sh\nexit 0\n' >"$W/za/tool" && chmod +x "$W/za/tool"
	# programs whose paths outgrow the exec check's short buffer (256 bytes)
	mkdir -p "$W/za/$LONG" "$W/free/$LONG"
	cp "$W/za/tool" "$W/za/$LONG/tool" && cp "$W/za/tool" "$W/free/$LONG/tool"
	ln -s ../za "$W/free/zl"
	# a program that opens nothing of its own (not a script, which its interpreter
	# would read), reached through symlinks: a folder (absolute target), the file
	# itself, a relative link to a link, an allowed one
	cp "$ROOT/$BUILD/progs/openloop" "$W/za/elf"
	cp "$ROOT/$BUILD/progs/openloop" "$W/free/sub/elf"
	ln -s "$W/za" "$W/free/zabs"
	ln -s "$W/za/elf" "$W/free/zelf"
	ln -s zabs/elf "$W/free/chain"
	ln -s "$W/free/sub/elf" "$W/free/okelf"
	rm -rf "$T/orig" && cp -a "$W" "$T/orig"
	# Older than any session started from now on: a session starts one tick of the
	# kernel's coarse clock back (rt_session_now() in runtime/rt.h).
	sleep 0.05
}

# The work: one line per step. Paths come from the environment, so that only the
# programs' own calls name them.
cat >"$T/work.sh" <<'SH'
cd "$1" || exit 1
step() { name=$1; shift; if "$@" >/dev/null; then echo "ok $name"; else echo "refused $name"; fi; }
py() { python3 -c "import os, sys; $1"; }
export RO=ro/file ND=nd/keep ZA=za/secret FREE=free/f GONE=free/gone
step py-append-ro py 'open(os.environ["RO"], "a").write("x")'
step py-read-ro py 'sys.exit(open(os.environ["RO"]).read() != "read only\n")'
step py-read-za py 'open(os.environ["ZA"]).read()'
step py-unlink-nd py 'os.unlink(os.environ["ND"])'
step py-rename-nd py 'os.rename(os.environ["ND"], "free/moved")'
step py-replace-ro py 'open("free/new", "w").write("n"); os.replace("free/new", os.environ["RO"])'
step py-chmod-ro py 'os.chmod(os.environ["RO"], 0o777)'
step py-append-free py 'open(os.environ["FREE"], "a").write("more\n")'
step py-listdir-za py 'os.listdir("za")'
step py-listdir-free py 'sys.exit("f" not in os.listdir("free"))'
step sh-redirect-ro sh -c 'echo x >> "$RO"'
step sh-redirect-free sh -c 'echo gamma >> "$FREE"'
step cp-into-ro sh -c 'cp "$FREE" ro/'
step cp-from-ro sh -c 'cp "$RO" free/copy'
step sed-ro sh -c 'sed -i s/read/READ/ "$RO"'
step sed-free sh -c 'sed -i s/alpha/ALPHA/ "$FREE"'
step rm-nd sh -c 'rm -f "$ND"'
step rm-free sh -c 'rm -f "$GONE"'
step mv-nd-dir sh -c 'mv nd free/nd2'
step mkdir-free sh -c 'mkdir free/sub/new'
SH
# Execs whose argv the guest's filter judges (policy/argvidx.h): a plain program no rule
# can match, one a command rule refuses, a program in a zero-access folder.
mkdir -p "$T/bin"
for p in mkfs.ext4 plain-tool; do printf '#!/bin/sh\nexit 0\n' >"$T/bin/$p"; done
chmod +x "$T/bin/"*
cat >>"$T/work.sh" <<SH
step exec-plain "$T/bin/plain-tool" -c x.c -o x.o
step exec-mkfs "$T/bin/mkfs.ext4" /dev/sdz9
step exec-za "\$1/za/tool"
step exec-za-long "\$1/za/$LONG/tool"
step exec-za-long-link "\$1/free/zl/$LONG/tool"
step exec-free-long "\$1/free/$LONG/tool"
step exec-za-elf "\$1/za/elf" 0 x
step exec-za-abslink "\$1/free/zabs/elf" 0 x
step exec-za-filelink "\$1/free/zelf" 0 x
step exec-za-chain "\$1/free/chain" 0 x
step exec-za-dotlink "\$1/free/zl/elf" 0 x
step exec-free-link "\$1/free/okelf" 0 x
# the same shell, a folder link swapped between two of its execs
ln -sfn "\$1/free/sub" "\$1/free/sw"
step exec-swap-free "\$1/free/sw/elf" 0 x
ln -sfn "\$1/za" "\$1/free/sw"
step exec-swap-za "\$1/free/sw/elf" 0 x
ln -sfn "\$1/free/sub" "\$1/free/sw"
step exec-swap-back "\$1/free/sw/elf" 0 x
SH

# run LABEL [SNAPSHOT]: the work under dcg run, with the snapshot dcg run writes, or
# with another one handed on in DCG_SNAPSHOT.
run() {
	local label=$1 snap=${2:-}
	setup
	if [ -n "$snap" ]; then
		(cd "$W" && "$DCG" run --policy "$POL" -- env DCG_SNAPSHOT="$snap" \
			/bin/bash "$T/work.sh" "$W") >"$T/$label.out" 2>"$T/$label.err"
	else
		(cd "$W" && "$DCG" run --policy "$POL" -- /bin/bash "$T/work.sh" "$W") \
			>"$T/$label.out" 2>"$T/$label.err"
	fi
	# the protected files, byte for byte
	cmp -s "$W/ro/file" "$T/orig/ro/file" || fail "$label: ro/file changed"
	cmp -s "$W/nd/keep" "$T/orig/nd/keep" || fail "$label: nd/keep changed or gone"
	cmp -s "$W/za/secret" "$T/orig/za/secret" || fail "$label: za/secret changed"
	# the ordinary work
	grep -q '^ALPHA$' "$W/free/f" && grep -q '^more$' "$W/free/f" &&
		grep -q '^gamma$' "$W/free/f" || fail "$label: free/f not edited: $(cat "$W/free/f")"
	[ ! -e "$W/free/gone" ] || fail "$label: free/gone not removed"
	[ -f "$W/free/copy" ] && [ -d "$W/free/sub/new" ] || fail "$label: copy or mkdir missing"
}

# 1. With the index. dcg run wrote it beside the snapshot it hands on.
run indexed
snap=$(cd "$W" && "$DCG" run --policy "$POL" -- /bin/sh -c 'printf %s "$DCG_SNAPSHOT"')
[ -f "$snap" ] && [ -s "$snap.paths" ] && [ -s "$snap.argv" ] ||
	fail "no index or argv filter beside the snapshot ($snap)"

# 2. The same snapshot, copied where no index lies beside it: the engine decides all.
mkdir -m 700 -p "$T/plain"
cp "$snap" "$T/plain/snap"
run engine "$T/plain/snap"

for label in indexed engine; do
	for s in py-append-ro py-read-za py-unlink-nd py-rename-nd py-replace-ro py-chmod-ro \
		py-listdir-za sh-redirect-ro cp-into-ro sed-ro rm-nd mv-nd-dir exec-mkfs exec-za \
		exec-za-long exec-za-long-link exec-za-elf exec-za-abslink exec-za-filelink \
		exec-za-chain exec-za-dotlink exec-swap-za; do
		grep -qx "refused $s" "$T/$label.out" ||
			fail "$label: $s was not refused: $(cat "$T/$label.out" "$T/$label.err")"
	done
	for s in py-read-ro py-append-free py-listdir-free sh-redirect-free cp-from-ro sed-free \
		rm-free mkdir-free exec-plain exec-free-long exec-free-link exec-swap-free \
		exec-swap-back; do
		grep -qx "ok $s" "$T/$label.out" ||
			fail "$label: $s failed: $(cat "$T/$label.out" "$T/$label.err")"
	done
	grep -q 'dcg: blocked' "$T/$label.err" || fail "$label: no refusal line"
done
diff "$T/indexed.out" "$T/engine.out" >"$T/diff" ||
	fail "the index and the engine disagree: $(cat "$T/diff")"
echo "ok: $(wc -l <"$T/indexed.out") steps, index and engine agree"
