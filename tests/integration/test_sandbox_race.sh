#!/bin/bash
# The path-flipping race: one thread flips a buffer between a harmless and a
# protected path while another calls unlink (or opens for writing) on it. The
# supervisor checks a path and performs the call on that same path, so the
# protected file survives all 100,000 attempts.
. "$(dirname "$0")/sbx_progs/lib.sh"
sbx_workspace
sbx_require_kernel
sbx_build sbx_race

harmless=$W/scratch/harmless-file-with-a-long-name
touch "$harmless"
(cd "$W" && sbx "$BIN/sbx_race" unlink "$harmless" "$W/nd/f" 100000) \
	>"$TMPDIR_TEST/out" 2>"$TMPDIR_TEST/err"
rc=$?
cat "$TMPDIR_TEST/out"
[ $rc = 0 ] || fail "unlink race: exit $rc ($(tail -n 3 "$TMPDIR_TEST/err"))"
# The race really ran both ways: some calls hit the harmless path, some were refused.
grep -q 'harmless [1-9]' "$TMPDIR_TEST/out" || fail "the harmless path was never unlinked"
grep -q 'blocked unlinkat of' "$TMPDIR_TEST/err" || fail "the protected path was never tried"

(cd "$W" && sbx "$BIN/sbx_race" open "$harmless" "$W/ro/f" 20000) \
	>"$TMPDIR_TEST/out" 2>"$TMPDIR_TEST/err"
rc=$?
cat "$TMPDIR_TEST/out"
[ $rc = 0 ] || fail "open race: exit $rc"
grep -q 'harmless [1-9]' "$TMPDIR_TEST/out" || fail "the harmless path was never opened"

sbx_assert_intact
echo ok
