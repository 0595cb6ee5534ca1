#!/bin/bash
# The guard as a guest under load and in the awkward corners: 8 threads opening files
# while another forks and execs, daemon()'s child while threads load libraries, 200
# parallel guarded processes, vfork and posix_spawn children with an empty envp, raw
# syscall(), system() after clearenv(), execle, a closed fd 2 reused by a data file,
# errno preservation. Every step runs under
# `timeout`: a deadlock is a failure, not a hang.
set -u
BUILD=${BUILD:-build}
T=${TMPDIR_TEST:?}
DCG=${DCG_BIN:-$PWD/$BUILD/dcg}
PROBE=$PWD/$BUILD/progs/preload_probe
[ -x "$DCG" ] && [ -x "$PROBE" ] || { echo "missing $DCG or $PROBE"; exit 1; }

fail=0
bad() { echo "FAIL: $*"; fail=1; }
export DCG_LOG=$T/audit.jsonl
export XDG_RUNTIME_DIR=$T/run && mkdir -m 700 -p "$XDG_RUNTIME_DIR"

WS=$T/ws
mkdir -p "$WS"/{za,ro,nd,free}
cd "$WS" || exit 1
TOKEN="ZA-CONTENT-$$-$RANDOM"
echo "$TOKEN" > za/secret
echo data > ro/a.txt
echo keep > nd/f1
printf 'zeroAccessPaths: [za/]\nreadOnlyPaths: [ro/]\nnoDeletePaths: [nd/]\n' > policy.yaml
ino=$(stat -c %i nd/f1)
# Older than any session started from now on: a session starts one tick of the
# kernel's coarse clock back (rt_session_now() in runtime/rt.h).
sleep 0.05

# Runs the probe under the guard; a run still going after its time is a hang: the
# threads' kernel wait channels and user stacks are printed before it is killed.
probe() { # name, timeout seconds, probe arguments...
	local name=$1 secs=$2 pid rc waited=0
	shift 2
	"$DCG" run --policy "$WS/policy.yaml" -- "$PROBE" "$@" >"$T/$name.log" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null && [ $waited -lt $((secs * 10)) ]; do
		sleep 0.1
		waited=$((waited + 1))
	done
	if kill -0 "$pid" 2>/dev/null; then
		bad "$name: hung (still running after ${secs}s)"
		for p in $pid $(pgrep -P "$pid"); do
			echo "    pid $p: $(tr '\0' ' ' < /proc/$p/cmdline 2>/dev/null)"
			for t in /proc/$p/task/*; do
				echo "      task ${t##*/}: $(cat "$t/wchan" 2>/dev/null) $(cat "$t/stat" 2>/dev/null | cut -d' ' -f3)"
			done
			command -v gdb >/dev/null && timeout 20 gdb -p "$p" -batch -ex 'thread apply all bt 8' 2>/dev/null | grep -E '^#|^Thread' | head -40 | sed 's/^/      /'
		done
		pkill -KILL -P "$pid" 2>/dev/null
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		return
	fi
	wait "$pid"
	rc=$?
	[ $rc -eq 0 ] || { bad "$name: exit $rc"; sed 's/^/    /' "$T/$name.log" | tail -n 8; }
}

# What the children of vfork, posix_spawn, system and execle run: a script whose argv
# shows nothing, so only a guard re-injected into their environment can refuse it.
printf 'rm -f nd/f1\n' > free/rm.sh
probe errno 30 errno nd/f1
probe vfork 30 vfork free/rm.sh nd/f1
probe spawn 30 spawn free/rm.sh za/secret
probe syscall 30 syscall nd/f1 za/secret
probe addopen 30 addopen ro/a.txt
probe linkfd 30 linkfd ro/a.txt free/alias
[ -e free/alias ] && bad "a hard link to a read-only file was made through its descriptor"
probe system 30 system "$WS/free/rm.sh"
probe stress 240 stress nd/f1 "$WS/za/secret" "$WS/ro" 300
timeout 30 "$DCG" run --policy "$WS/policy.yaml" -- "$PROBE" fd2 "$WS/free/data" nd/f1 >/dev/null 2>&1
[ $? -eq 0 ] || bad "fd2: refusal written into the data file on fd 2 (or not refused)"
timeout 30 "$DCG" run --policy "$WS/policy.yaml" -- "$PROBE" execle free/rm.sh >/dev/null 2>&1

# The child of libc's own fork (daemon(): no fork wrapper of the guard runs) in a process
# whose threads keep the loader busy and that made no guarded call before: neither hangs
# nor lets a refused open through. The fork handler the guard registers at start
# resolves the real functions in the parent; without it the child's dlsym waits for a
# loader lock (dl_iterate_phdr's) that libc's fork does not reset, held by a thread that
# does not exist in the child (2 of 10 hung when tried). Ten processes.
for i in $(seq 10); do
	timeout 30 "$DCG" run --policy "$WS/policy.yaml" -- "$PROBE" daemon "$WS/za/secret" \
		"$WS/free/daemon.$i" >"$T/daemon.$i.log" 2>&1 || bad "daemon $i: the parent failed"
done
for i in $(seq 10); do
	waited=0
	while [ ! -s "free/daemon.$i" ] && [ $waited -lt 300 ]; do
		sleep 0.1
		waited=$((waited + 1))
	done
	case $(cat "free/daemon.$i" 2>/dev/null) in
	refused) ;;
	"") bad "daemon $i: the child hung or died (no answer in 30 s)" ;;
	*) bad "daemon $i: the child's open of a zero-access file was not refused" ;;
	esac
	rm -f "free/daemon.$i"
done

# 200 guarded processes at once, each reading, writing and trying to delete.
timeout -k 5 240 "$DCG" run --policy "$WS/policy.yaml" -- bash -c '
	for i in $(seq 200); do
		( cat ro/a.txt > free/out.$i && rm -f nd/f1 2>/dev/null; echo x > ro/a.txt 2>/dev/null; rm free/out.$i ) &
	done
	wait' >"$T/par.log" 2>&1
rc=$?
[ $rc -eq 124 ] || [ $rc -eq 137 ] && bad "200 parallel processes: hung"
[ "$(ls free | grep -c '^out\.')" -eq 0 ] || bad "ordinary work in the parallel run failed"

[ "$(cat ro/a.txt)" = data ] || bad "ro/a.txt changed"
[ "$(cat za/secret)" = "$TOKEN" ] || bad "za/secret changed"
[ -e nd/f1 ] && [ "$(stat -c %i nd/f1)" = "$ino" ] && [ "$(cat nd/f1)" = keep ] || bad "nd/f1 lost or replaced"
grep -q "$TOKEN" "$T"/*.log && bad "the secret reached an output"
exit $fail
