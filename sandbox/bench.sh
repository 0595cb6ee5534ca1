#!/bin/bash
# bench.sh BUILD - what dcg sandbox costs, as ratios against bare runs of the same
# session (alternated, best of several, so that a busy machine hurts both sides):
#   1. one notified call: open+close of an allowed file, against the bare call, and
#      a call the filter lets through (getpid), against the bare call;
#      and the floor: a bare notify round trip (sandbox/bench/notify_floor.c);
#   2. a real build: this project's policy/ sources compiled from clean with cc into
#      a temporary folder, under `dcg sandbox` and bare.
set -u
BUILD=${1:-build}
# SBX_BIN: a stand-alone sandbox (build/sandbox/sbx-run) instead of `dcg sandbox`.
if [ -n "${SBX_BIN:-}" ]; then SANDBOX=("$SBX_BIN"); else SANDBOX=("$PWD/$BUILD/dcg" sandbox); fi
ROUNDS=${SBX_BENCH_ROUNDS:-3}
T=$(mktemp -d "${TMPDIR:-/tmp}/dcg-sbx-bench.XXXXXX")
trap 'rm -rf "$T"' EXIT
export DCG_LOG=$T/audit.jsonl

if ! "${SANDBOX[@]}" -- /bin/true 2>"$T/err"; then
	echo "bench-sandbox: skipped: $(cat "$T/err")"
	exit 0
fi
cc -O2 -static -o "$T/calls" sandbox/bench_calls.c || exit 1
FLOOR=$PWD/$BUILD/sandbox/bench/notify_floor

# Best of ROUNDS for "$@" (prints ns per call).
best_ns() {
	local best= v
	for _ in $(seq "$ROUNDS"); do
		v=$("$@") || return 1
		if [ -z "$best" ] || [ "$v" -lt "$best" ]; then best=$v; fi
	done
	echo "$best"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

FILE=$PWD/policy/dcg_policy.h
N=20000
echo "sandbox: load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
# What an idle CPU does decides what a wake-up onto it costs, and so what ADDFD costs
# (sandbox/README.md): a vCPU that halts at once takes some 20 us to wake.
# SBX_BENCH_HALT_POLL=NS (root, a KVM guest with the haltpoll governor): the run with
# that setting, put back at the end; to compare this machine with the kernel's default.
HALT_POLL=/sys/module/haltpoll/parameters/guest_halt_poll_ns
if [ -n "${SBX_BENCH_HALT_POLL:-}" ]; then
	old_poll=$(cat "$HALT_POLL") && echo "$SBX_BENCH_HALT_POLL" >"$HALT_POLL" || exit 1
	trap 'echo "$old_poll" >"$HALT_POLL"; rm -rf "$T"' EXIT
fi
idle_driver=$(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null || echo none)
halt_poll=$(cat "$HALT_POLL" 2>/dev/null || echo -)
echo "sandbox: idle CPUs: cpuidle driver $idle_driver, guest_halt_poll_ns $halt_poll" \
	"(the kernel's default 200000; 0: an idle vCPU halts at once)"
# One notified open: bare, dcg sandbox and the floor (sandbox/bench/notify_floor.c: the
# same open+close with every openat notified to a supervisor that answers without
# looking), interleaved round by round, best of ROUNDS each.
declare -A fl=() flm=()
bare_open= sbx_open=
for _ in $(seq "$ROUNDS"); do
	v=$("$T/calls" open $N "$FILE") || exit 1
	if [ -z "$bare_open" ] || [ "$v" -lt "$bare_open" ]; then bare_open=$v; fi
	v=$("${SANDBOX[@]}" -- "$T/calls" open $N "$FILE") || exit 1
	if [ -z "$sbx_open" ] || [ "$v" -lt "$sbx_open" ]; then sbx_open=$v; fi
	if [ -x "$FLOOR" ]; then
		while read -r mode ns migr; do
			if [ -z "${fl[$mode]:-}" ] || [ "$ns" -lt "${fl[$mode]}" ]; then
				fl[$mode]=$ns flm[$mode]=$migr
			fi
		done < <("$FLOOR" $N "$FILE")
	fi
done
bare_pid=$(best_ns "$T/calls" getpid $((N * 10)) x)
sbx_pid=$(best_ns "${SANDBOX[@]}" -- "$T/calls" getpid $((N * 10)) x)
echo "sandbox: open+close (notified, performed by the supervisor): bare ${bare_open} ns," \
	"sandboxed ${sbx_open} ns: x$(ratio "$sbx_open" "$bare_open")," \
	"+$(( (sbx_open - bare_open) / 1000 )) us per notified call"
if [ -n "${fl[bare]:-}" ]; then
	us() { awk -v a="$1" -v b="${fl[bare]}" 'BEGIN { printf "+%.1f us", (a - b) / 1000 }'; }
	# m: how often the tracee changed CPUs, per 1,000 calls of the best round.
	m() { echo "$(us "${fl[$1]}") (${flm[$1]})"; }
	echo "sandbox: floor, a bare notify round trip (sync wake-up) per open+close, in the same rounds" \
		"(tracee CPU changes per 1,000 calls): continue $(m continue); addfd $(m addfd)," \
		"two steps $(m addfd-reply); with a checker's calls (read, pin, fstat, reopen)" \
		"addfd $(m addfd-check), two steps $(m addfd-reply-check); supervisor and tracee on one CPU:" \
		"continue $(m continue-same-cpu), addfd $(m addfd-same-cpu), with a checker's calls" \
		"$(m addfd-check-same-cpu); dcg sandbox +$(( (sbx_open - bare_open) / 1000 )) us" \
		"(budget +15 us)"
fi
echo "sandbox: getpid (filtered, not notified): bare ${bare_pid} ns, sandboxed ${sbx_pid} ns:" \
	"x$(ratio "$sbx_pid" "$bare_pid")"

# Counts, steadier than latencies on a shared machine: the supervisor's own CPU per
# notified open (DCG_SANDBOX_STATS, best of ROUNDS), absolute and relative path, and
# its system calls per notified open (strace -f: the supervisor's lines for N opens
# less those for none, over N).
sup_us() {
	local best= v
	for _ in $(seq "$ROUNDS"); do
		v=$(cd "$1" && DCG_SANDBOX_STATS=1 "${SANDBOX[@]}" --no-preload -- "$T/calls" open $N "$2" 2>&1 |
			sed -n 's/.* \([0-9.]*\) us per call$/\1/p')
		if [ -z "$best" ] || awk -v a="$v" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$v; fi
	done
	echo "$best"
}
echo "sandbox: supervisor CPU per notified open: absolute path $(sup_us / "$FILE") us," \
	"relative path $(sup_us "$(dirname "$FILE")" "$(basename "$FILE")") us"
if command -v strace >/dev/null; then
	sup_calls() {
		strace -f -qq -o "$T/strace" "${SANDBOX[@]}" --no-preload -- "$T/calls" open "$1" "$FILE" >/dev/null 2>&1
		local pid
		pid=$(awk 'NR == 1 { print $1 }' "$T/strace")
		grep -cE "^$pid +[a-z_0-9]+\(" "$T/strace"
	}
	c0=$(sup_calls 0) c1=$(sup_calls 1000)
	echo "sandbox: supervisor system calls per notified open (strace -f):" \
		"$(awk -v a="$c1" -v b="$c0" 'BEGIN { printf "%.1f", (a - b) / 1000 }')"
fi

# The real build: compile policy/*.c from clean, one file after the other.
cat >"$T/build.sh" <<BUILD
set -e
out=\$1
rm -rf "\$out"; mkdir -p "\$out"
for f in $PWD/policy/*.c; do
	cc -std=gnu11 -O2 -D_GNU_SOURCE -I$PWD/policy $(pkg-config --cflags libpcre2-8 yaml-0.1 libcjson) \
		-c "\$f" -o "\$out/\$(basename "\$f" .c).o"
done
BUILD
# Wall and CPU (user+sys of the whole tree, supervisor included) in ms.
timed() {
	local TIMEFORMAT='%3R %3U %3S' rc
	{ time "$@" >/dev/null 2>"$T/build.err"; } 2>"$T/time"
	rc=$?
	if [ $rc != 0 ] || grep -q 'dcg: blocked' "$T/build.err"; then
		echo "bench-sandbox: the build failed under '$*':" >&2
		tail -n 3 "$T/build.err" >&2
		exit 1
	fi
	awk '{ printf "%d %d\n", $1 * 1000, ($2 + $3) * 1000 }' "$T/time"
}
min() { if [ -z "$1" ] || [ "$2" -lt "$1" ]; then echo "$2"; else echo "$1"; fi; }
bw= bc= sw= sc= nw= nc=
for _ in $(seq "$ROUNDS"); do
	r=$(timed bash "$T/build.sh" "$T/o1") || exit 1
	read -r w c <<<"$r"; bw=$(min "$bw" "$w"); bc=$(min "$bc" "$c")
	r=$(timed "${SANDBOX[@]}" -- bash "$T/build.sh" "$T/o2") || exit 1
	read -r w c <<<"$r"; sw=$(min "$sw" "$w"); sc=$(min "$sc" "$c")
	r=$(timed "${SANDBOX[@]}" --no-preload -- bash "$T/build.sh" "$T/o3") || exit 1
	read -r w c <<<"$r"; nw=$(min "$nw" "$w"); nc=$(min "$nc" "$c")
done
n_files=$(ls "$PWD"/policy/*.c | wc -l)
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.1f%%", (a / b - 1) * 100 }'; }
echo "sandbox: build of policy/ ($n_files files, cc -O2, from clean, best of $ROUNDS): bare wall ${bw} ms, CPU ${bc} ms"
echo "sandbox:   dcg sandbox --no-preload (the supervisor alone): wall ${nw} ms x$(ratio "$nw" "$bw") ($(pct "$nw" "$bw")), CPU ${nc} ms x$(ratio "$nc" "$bc") ($(pct "$nc" "$bc")); budget +15%"
echo "sandbox:   dcg sandbox (with libdcg-preload.so in every process): wall ${sw} ms x$(ratio "$sw" "$bw") ($(pct "$sw" "$bw")), CPU ${sc} ms x$(ratio "$sc" "$bc") ($(pct "$sc" "$bc"))"

# This project's own build, as a developer runs it: `make -j2 build/dcg` from clean
# into a temporary folder, bare and under dcg sandbox (with the preload), wall and CPU.
if [ "${SBX_BENCH_MAKE:-1}" = 1 ]; then
	mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -j2 -C "$PWD" BUILD="$1" "$1/dcg"; }
	# The same build bare, under the floor supervisor (every open notified, answered
	# "continue", or performed with a checker's calls and ADDFD but no policy), and
	# under dcg sandbox with and without the preload; interleaved round by round.
	names=(bare floor-continue floor-addfd dcg dcg-no-preload)
	runs=("" "$FLOOR --run continue --" "$FLOOR --run addfd-check --"
		"${SANDBOX[*]} --" "${SANDBOX[*]} --no-preload --")
	declare -A mw=() mc=()
	for _ in $(seq "${SBX_BENCH_MAKE_ROUNDS:-2}"); do
		for k in "${!names[@]}"; do
			[ -x "$FLOOR" ] || [ "${names[$k]#floor}" = "${names[$k]}" ] || continue
			rm -rf "$T/mb"
			# shellcheck disable=SC2086 # runs[k] is a command prefix
			r=$(timed ${runs[$k]} bash -c "$(declare -f mk); mk $T/mb") || exit 1
			read -r w c <<<"$r"
			mw[$k]=$(min "${mw[$k]:-}" "$w") mc[$k]=$(min "${mc[$k]:-}" "$c")
		done
	done
	line="sandbox: make -j2 build/dcg from clean (best of ${SBX_BENCH_MAKE_ROUNDS:-2}, interleaved): bare wall ${mw[0]} ms, CPU ${mc[0]} ms"
	for k in 1 2 3 4; do
		[ -n "${mw[$k]:-}" ] || continue
		line="$line; ${names[$k]} wall x$(ratio "${mw[$k]}" "${mw[0]}"), CPU x$(ratio "${mc[$k]}" "${mc[0]}")"
	done
	echo "$line (budget x1.10 wall for dcg)"
fi
echo "sandbox: load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
