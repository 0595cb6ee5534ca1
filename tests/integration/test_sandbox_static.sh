#!/bin/bash
# dcg sandbox holds for what an LD_PRELOAD guard cannot see: static binaries, raw
# syscall(), an inline syscall instruction, dlmopen of a fresh libc, io_uring, a
# syscall newer than libseccomp, env -i and a set-uid binary.
. "$(dirname "$0")/sbx_progs/lib.sh"
sbx_workspace
sbx_require_kernel
sbx_build sbx_ops
sbx_build sbx_dlmopen dyn
OPS=$BIN/sbx_ops

# Refused with EACCES (13) by the supervisor.
while read -r op a b; do
	sbx_expect 13 "$OPS" "$op" "$a" ${b:+"$b"}
done <<'CASES'
read za/key
read za/sub/deep
asm-read za/key
write ro/f
raw-open-write ro/f
truncate ro/f
chmod ro/f
mkdir ro/new
unlink ro/f
unlink nd/f
raw-unlink nd/f
asm-unlink nd/f
rmdir nd/sub
rename nd/f scratch/moved
raw-rename ro/f scratch/moved
rename scratch/../nd/sub/g scratch/moved
link za/key scratch/hl
create ro/new-file
reopen-write ro/f
fchmod ro/f
futimens ro/sub/g
fchmodat-empty ro/f
CASES

# Ordinary work still succeeds.
sbx_expect 0 "$OPS" read ro/f
sbx_expect 0 "$OPS" create scratch/new
sbx_expect 0 "$OPS" write scratch/new
sbx_expect 0 "$OPS" rename scratch/new scratch/renamed
sbx_expect 0 "$OPS" link scratch/renamed scratch/hardlink
sbx_expect 0 "$OPS" chmod scratch/renamed
sbx_expect 0 "$OPS" fchmod scratch/renamed
sbx_expect 0 "$OPS" futimens scratch/renamed
sbx_expect 0 "$OPS" fchmodat-empty scratch/renamed
sbx_expect 0 "$OPS" mkdir scratch/dir
sbx_expect 0 "$OPS" rmdir scratch/dir
sbx_expect 0 "$OPS" unlink scratch/renamed
sbx_expect 0 "$OPS" raw-unlink scratch/hardlink
[ -e "$W/scratch/renamed" ] && fail "allowed unlink did not happen"
grep -q clobbered "$W/scratch/new" 2>/dev/null && fail "renamed file still at its old name"

# A symlink into the zero-access tree does not walk around it; nor does ../
ln -s "$W/za/key" "$W/scratch/link"
sbx_expect 13 "$OPS" read scratch/link
sbx_expect 13 "$OPS" read scratch/../za/./key
ln -s ../nd "$W/scratch/ndlink"
sbx_expect 13 "$OPS" unlink scratch/ndlink/f

# dlmopen of a fresh libc: no wrapper is bound there, the filter still is.
sbx_expect 13 "$BIN/sbx_dlmopen" nd/f

# io_uring is refused outright (EPERM, exit 1 from sbx_ops).
sbx_expect 1 "$OPS" uring x
grep -q "Operation not permitted" "$TMPDIR_TEST/err" || fail "io_uring_setup was not refused with EPERM"
if [ -e /usr/include/liburing.h ]; then
	cat >"$TMPDIR_TEST/uring.c" <<'C'
#include <liburing.h>
#include <stdio.h>
#include <string.h>
int main(void)
{
	struct io_uring r;
	int rc = io_uring_queue_init(8, &r, 0);
	printf("io_uring_queue_init: %s\n", rc < 0 ? strerror(-rc) : "ok");
	return rc < 0 ? 13 : 0;
}
C
	cc -O2 -o "$BIN/uring" "$TMPDIR_TEST/uring.c" -luring || fail "cannot build the liburing program"
	sbx_expect 13 "$BIN/uring"
else
	echo "liburing-dev missing: io_uring checked with the raw syscall only"
fi

# A device node in a free folder would reach the disk under a name no rule covers.
sbx_expect 1 "$OPS" mknod-blk scratch/disk
[ -e "$W/scratch/disk" ] && fail "a block device node was made"
grep -q "device node.*\[sandbox.mknod_device\]" "$TMPDIR_TEST/err" || fail "no refusal line for mknod of a device"

# A syscall newer than libseccomp 2.5.4 (removexattrat, 466) gets ENOSYS (exit 38).
sbx_expect 38 "$OPS" newsys ro/f

# env -i sheds LD_PRELOAD, not the filter.
sbx_expect 13 env -i "$OPS" unlink nd/f
sbx_expect 13 env -i "$OPS" read za/key

# A set-uid binary: no_new_privs keeps it in the filter.
cp "$OPS" "$BIN/sbx_ops_suid"
chmod 4755 "$BIN/sbx_ops_suid"
sbx_expect 13 "$BIN/sbx_ops_suid" unlink nd/f
sbx_expect 13 "$BIN/sbx_ops_suid" read za/key

# The refusals were said on stderr in the preload's format and logged.
grep -q "^dcg: blocked .* of $W/nd/f: noDeletePaths $W/nd/ \[" "$TMPDIR_TEST/err" ||
	fail "no refusal line for nd/f"
grep -q '"layer":"sandbox"' "$DCG_LOG" || fail "no sandbox line in the audit log"

# A static program's refusal is said on its own stderr too, when that is a pipe its
# caller reads (an agent's shell tool: the model must be told), and never written into
# a data file that took fd 2's place.
got=$(cd "$W" && sbx /bin/sh -c '"$0" unlink nd/f 2>&1 >/dev/null | cat' "$OPS" 2>/dev/null)
case $got in
*"dcg: blocked unlink of $W/nd/f: noDeletePaths $W/nd/ ["*) ;;
*) fail "the refusal did not reach the static program's stderr pipe: '$got'" ;;
esac
(cd "$W" && sbx /bin/sh -c '"$0" unlink nd/f 2>"$1"' "$OPS" "$W/scratch/data.txt" 2>/dev/null)
grep -q "dcg:" "$W/scratch/data.txt" && fail "the refusal was written into a data file: $(cat "$W/scratch/data.txt")"

# A stderr pipe too full for the line (nobody reads it) loses the line; it never holds
# the supervisor, which the refused process waits on.
mkfifo "$W/scratch/fifo"
exec 7<>"$W/scratch/fifo"
head -c $((65536 - 100)) /dev/zero >&7
(cd "$W" && timeout 20 "${SANDBOX[@]}" --policy "$W/policy.yaml" -- \
	/bin/sh -c '"$0" unlink nd/f 2>&7 >/dev/null' "$OPS" 2>>"$TMPDIR_TEST/err")
rc=$?
exec 7>&-
[ "$rc" = 13 ] || fail "with a full stderr pipe the refused unlink exited $rc (124: the supervisor blocked)"

# A static program run by a preloaded process, also after env -i: the preload's "cannot
# see inside it" note is false under the sandbox, and its marker file in dcg's own
# folder would be refused: nothing is said.
out=$(cd "$W" && sbx /bin/sh -c '"$0" read ro/f; env -i "$0" read ro/f' "$OPS" 2>&1 >/dev/null)
case $out in *dcg:*) fail "a static program run inside the sandbox made dcg speak: $out" ;; esac

sbx_assert_intact
# Writing in a no-delete tree is allowed (after the fingerprint, which it changes).
sbx_expect 0 "$OPS" append nd/f.log
sbx_assert_no_secret "$TMPDIR_TEST/out" "$TMPDIR_TEST/err" "$DCG_LOG"
echo ok
