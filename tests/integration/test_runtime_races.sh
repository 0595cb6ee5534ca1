#!/bin/bash
# Races under dcg run (and dcg sandbox): one thread flips a directory symlink between
# a free folder and a read-only one while another makes a call that takes a path and
# returns no descriptor through it (progs/flip_race.c: unlink, rmdir, rename, link,
# symlink, mkdir, mkfifo, chmod, chown, utimes, xattrs, truncate). The guard judges the
# path, then makes the call on the folder (or the object) it pinned (preload/pin.c), so
# the read-only tree keeps its names, inodes, modes, times and bytes: unlink 20 runs of
# 20, every other call one run each. Each is shown to do damage without dcg first.
. "$(dirname "$0")/lib.sh"

PROG=$ROOT/$BUILD/progs/flip_race
[ -x "$PROG" ] || fail "$PROG missing (make tests)"
W=$T/ws
N=${RACE_N:-300}
printf "readOnlyPaths: ['%s/ro/']\n" "$W" >"$T/policy.yaml"

prepare() {
	rm -rf "$W"
	mkdir -p "$W/free" "$W/ro/d"
	printf 'read only data\n' >"$W/ro/f"
}
# names, inodes, sizes, modes, change times and bytes (ctime catches chown to oneself)
fingerprint() {
	(cd "$W" && find ro -printf '%p %i %s %m %C@ %y\n' | sort && cat ro/f 2>&1)
}
race() { # LAYER CALL: 0 when ro/ is intact after N attempts
	local before
	prepare
	before=$(fingerprint)
	if [ "$1" = none ]; then
		(cd "$W" && "$PROG" "$2" "$N") >/dev/null 2>&1
	else
		(cd "$W" && "$DCG" $1 --policy "$T/policy.yaml" -- "$PROG" "$2" "$N") >"$T/out" 2>&1
	fi
	[ "$(fingerprint)" = "$before" ]
}

for call in $("$PROG" --list); do
	# without dcg the race does damage (else the case proves nothing here); a
	# loaded machine may not interleave the threads in one try
	damage=0
	for try in 1 2 3; do race none "$call" || { damage=1; break; }; done
	if [ $damage = 0 ]; then
		echo "SKIP $call: no damage without dcg on this machine"
		continue
	fi
	# unlink, the issue's case, 20 runs, and under the sandbox too (whose own race
	# test is test_sandbox_race.sh); every other call one run under dcg run
	layers=(run)
	runs=1
	if [ "$call" = unlink ]; then
		runs=20
		[ $sandbox_ok = 1 ] && layers+=(sandbox)
	fi
	for layer in "${layers[@]}"; do
		for i in $(seq $runs); do
			race $layer "$call" || { head -5 "$T/out"; fail "$call: ro/ changed under dcg $layer (run $i of $runs)"; }
		done
		echo "ok $call: dcg $layer, $runs run(s) of $N"
	done
done
