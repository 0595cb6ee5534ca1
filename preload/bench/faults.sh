#!/bin/bash
# preload/bench/faults.sh [BUILD] [-- PRELOAD]: where the page faults of a shell's
# children go, under BUILD/dcg run (default build) or, with "-- PRELOAD", with that
# object preloaded alone (the floor: build/preload/bench/libdcg-empty.so).
#
# Runs J shells (FAULTS_SHELLS, default 40: each its own address layout, which moves a
# fault or two) of K /bin/true each (FAULTS_LOOP, default 25) under
# `perf record -e page-faults -c 1 -d` (every fault, with its address) and prints, per
# /bin/true, the faults of its fork child before the exec (the shell's code, the exec
# check) and of the program after it, by the memory area they hit. A count, not a
# time: decisive on a shared machine where timings swing. Needs perf.
set -u
BUILD=${1:-build}
PRELOAD=
[ "${2:-}" = "--" ] && PRELOAD=${3:?an object to preload}
J=${FAULTS_SHELLS:-40} K=${FAULTS_LOOP:-25}
command -v perf >/dev/null || { echo "faults.sh: perf is needed" >&2; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/dcg-faults.XXXXXX")
trap 'rm -rf "$T"' EXIT
export XDG_RUNTIME_DIR=$T/run DCG_LOG=$T/audit.jsonl
mkdir -m 700 "$XDG_RUNTIME_DIR"
inner="for i in \$(seq $K); do /bin/true; done"
loop="for j in \$(seq $J); do bash -c '$inner'; done"
if [ -n "$PRELOAD" ]; then
	run=(env LD_PRELOAD="$PRELOAD" bash -c "$loop")
else
	run=("$BUILD/dcg" run -- bash -c "$loop")
fi
perf record -q -o "$T/perf.data" -e page-faults -c 1 -d -- "${run[@]}" >/dev/null 2>&1 ||
	{ echo "faults.sh: perf record failed" >&2; exit 1; }
# Fields: comm pid addr addr-symbol (addr-object) ip ip-symbol (ip-object). A pid
# that runs /bin/true is one of the children: its faults as "bash" came before its
# exec, as "true" after.
perf script -i "$T/perf.data" -F comm,pid,addr,ip,sym,dso 2>/dev/null | awk '
{
	comm = $1; pid = $2
	if (!match($0, /\([^)]*\)/))
		next
	area = substr($0, RSTART + 1, RLENGTH - 2)
	sub(/.*\//, "", area)
	n[pid, comm, area]++
	if (comm == "true")
		prog[pid] = 1
}
END {
	for (k in n) {
		split(k, f, SUBSEP)
		if (!(f[1] in prog) || (f[2] != "bash" && f[2] != "true"))
			continue
		phase = f[2] == "bash" ? "child before exec" : "program"
		sum[phase, f[3]] += n[k]
		total[phase] += n[k]
	}
	for (p in prog)
		progs++
	printf "~ %d programs; page faults per program:\n", progs
	for (k in sum) {
		split(k, f, SUBSEP)
		if (sum[k] / progs >= 0.05)
			printf "  %-18s %-28s %6.2f\n", f[1], f[2], sum[k] / progs
	}
	for (p in total)
		printf "  %-18s %-28s %6.2f\n", p, "(all)", total[p] / progs
}' | LC_ALL=C sort -r -k1,1 -s | sed 's/^~ //'
