#!/bin/bash
# Thread cancellation through the guard's open wrappers (progs/cancel_open.c) under
# `dcg run`: open, open64, openat and creat are cancellation points, so a thread blocked
# in one (a FIFO with no partner) dies when cancelled and its join returns; a thread
# with a cancellation pending that opens a zero-access file is refused (the usual line)
# and dies there; an ordinary threaded program still opens its files, errno kept. A
# hang is caught by the program's own alarm and by `timeout`, never by a timing.
set -u
BUILD=${BUILD:-build}
T=${TMPDIR_TEST:?}
DCG=${DCG_BIN:-$PWD/$BUILD/dcg}
PROG=$PWD/$BUILD/progs/cancel_open
[ -x "$DCG" ] || { echo "no $DCG"; exit 1; }
[ -x "$PROG" ] || { echo "no $PROG"; exit 1; }

fail=0
bad() { echo "FAIL: $*"; fail=1; }
export DCG_LOG=$T/audit.jsonl

WS=$T/ws
mkdir -p "$WS"/{za,free}
echo "secret-$$" >"$WS/za/secret"
echo "hello from free" >"$WS/free/plain"
printf 'zeroAccessPaths: [za/]\n' >"$WS/policy.yaml"
cd "$WS" || exit 1

guarded() { # LOG ARGS...: the program under the guard, stderr and stdout to LOG
	local log=$1
	shift
	timeout 30 "$DCG" run --policy "$WS/policy.yaml" -- "$PROG" "$@" >"$log" 2>&1
}

# the same program bare, as the reference (the guard must not differ)
for call in open open64 openat creat; do
	timeout 30 "$PROG" fifo "$WS/free" "$call" >"$T/bare-$call.log" 2>&1 ||
		bad "bare $call: $(cat "$T/bare-$call.log")"
done

# a thread blocked in the open of a FIFO with no writer (creat: no reader) is cancelled
for call in open open64 openat creat; do
	guarded "$T/fifo-$call.log" fifo "$WS/free" "$call"
	rc=$?
	[ "$rc" -eq 0 ] || bad "$call of a FIFO under dcg run, cancelled (rc=$rc): $(cat "$T/fifo-$call.log")"
done

# a cancellation pending when the open of a zero-access file comes: refused, nothing
# opened, the thread cancelled there
guarded "$T/pending.log" pending "$WS/za/secret"
rc=$?
[ "$rc" -eq 0 ] || bad "pending cancellation, open of za/secret (rc=$rc): $(cat "$T/pending.log")"
grep -qxE "dcg: blocked open of $WS/za/secret: zeroAccessPaths za/ \[[a-z_.0-9]+\]" "$T/pending.log" ||
	bad "pending cancellation: no refusal line: $(cat "$T/pending.log")"
grep -q "secret-$$" "$T/pending.log" && bad "pending cancellation: the secret was read"
# the same with an ordinary file: cancelled at the open
guarded "$T/pending-free.log" pending "$WS/free/plain"
rc=$?
[ "$rc" -eq 0 ] || bad "pending cancellation, open of free/plain (rc=$rc): $(cat "$T/pending-free.log")"

# a single-threaded program that cancelled itself: a refused open still says so, and
# the request acts there (bare, the same program dies at the open of an ordinary file)
timeout 30 "$PROG" self "$WS/free/plain" >"$T/self-bare.log" 2>&1
grep -qx "self: cancelled at the open" "$T/self-bare.log" || bad "bare self-cancel: $(cat "$T/self-bare.log")"
guarded "$T/self.log" self "$WS/za/secret"
rc=$?
[ "$rc" -eq 0 ] && grep -qx "self: cancelled at the open" "$T/self.log" &&
	! grep -q "open returned" "$T/self.log" ||
	bad "self-cancel, open of za/secret (rc=$rc): $(cat "$T/self.log")"
grep -qxE "dcg: blocked open of $WS/za/secret: zeroAccessPaths za/ \[[a-z_.0-9]+\]" "$T/self.log" ||
	bad "self-cancel: no refusal line: $(cat "$T/self.log")"

# an ordinary threaded program: its opens work, a refusal says what it always said
guarded "$T/ordinary.log" ordinary "$WS/free/plain" "$WS/za/secret"
rc=$?
[ "$rc" -eq 0 ] || bad "ordinary threaded opens (rc=$rc): $(cat "$T/ordinary.log")"
grep -qx "read: hello from free" "$T/ordinary.log" || bad "ordinary: free/plain not read: $(cat "$T/ordinary.log")"
grep -qxE "dcg: blocked open of $WS/za/secret: zeroAccessPaths za/ \[[a-z_.0-9]+\]" "$T/ordinary.log" &&
	[ "$(grep -c '^dcg: blocked' "$T/ordinary.log")" -eq 1 ] ||
	bad "ordinary: refusal line not as specified: $(cat "$T/ordinary.log")"
grep -q "secret-$$" "$T/ordinary.log" && bad "ordinary: the secret was read"

[ "$fail" -eq 0 ] && echo "preload cancel: all passed"
exit "$fail"
