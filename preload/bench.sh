#!/bin/bash
# make bench-preload: the guard's cost as ratios against the same work without it, and
# against the floor, measured in this run:
#   - 1,000 /bin/true from bash: bare, with an empty preloaded object (the floor: what
#     mapping any object costs), under dcg run;
#   - 1,000 /bin/true spawned by a static program (no shell, no exec check): bare, the
#     empty object, libdcg-preload.so preloaded: what the guard costs a process that
#     makes no guarded call (mapping, relocation, constructor);
#   - an open/close loop on allowed 13-component paths and on a short path;
#   - a real build (this project's library and binary from clean, -j2).
# Budgets (DESIGN.md): /bin/true loop 1.12, open loop 1.15, build 1.05.
# Each figure is the median of ROUNDS (PRELOAD_BENCH_ROUNDS, default 5; the build 2),
# the variants of a row alternating within each round. CPU is user+sys of the whole
# process tree: on a shared machine it moves far less than wall-clock time, printed too.
set -u
BUILD=${1:-build}
ROUNDS=${PRELOAD_BENCH_ROUNDS:-5}
ROOT=$PWD
DCG=$ROOT/$BUILD/dcg
SO=$ROOT/$BUILD/libdcg-preload.so
EMPTY=$ROOT/$BUILD/preload/bench/libdcg-empty.so
SPAWN=$ROOT/$BUILD/preload/bench/spawn
OPENLOOP=$ROOT/$BUILD/progs/openloop
T=$(mktemp -d "${TMPDIR:-/tmp}/dcg-bench-preload.XXXXXX")
trap 'rm -rf "$T"' EXIT
export XDG_RUNTIME_DIR=$T/run DCG_LOG=$T/audit.jsonl
mkdir -m 700 -p "$XDG_RUNTIME_DIR"

# The embedded defaults plus the workspace's own trees.
POL=$T/policy.yaml
printf 'zeroAccessPaths: [secrets/]\nreadOnlyPaths: [vendor/]\nnoDeletePaths: [.git/]\n' > "$POL"
deep=$T/w/src/module/sub/pkg/internal/impl/detail/v1/gen/out/x/y
mkdir -p "$deep" "$T/w/secrets" "$T/w/vendor"
for i in 1 2 3 4; do echo "$i" > "$deep/file$i.c"; done
echo h > "$T/w/hostname"
cd "$T/w" || exit 1

# The variants a row runs its command under.
bare() { "$@"; }
floor() { env LD_PRELOAD="$EMPTY" "$@"; }
guard() { "$DCG" run --policy "$POL" -- "$@"; }
# The object alone, with the policy snapshot dcg run would hand on (no shell, so no
# decision is made: the static spawner does not load it, /bin/true makes no guarded call).
SNAP=$("$DCG" run --policy "$POL" -- /bin/sh -c 'printf %s "$DCG_SNAPSHOT"')
object() { env LD_PRELOAD="$SO" DCG_SNAPSHOT="$SNAP" "$@"; }
# PRELOAD_BENCH_OLD=DIR: a copy of an older build's dcg, libdcg-preload.so and
# libdcg-engine.so, run as one more variant of each guarded row (an A/B in one run).
OLD=${PRELOAD_BENCH_OLD:-}
old() { "$OLD/dcg" run --policy "$POL" -- "$@"; }
old_object() { env LD_PRELOAD="$OLD/libdcg-preload.so" DCG_SNAPSHOT="$SNAP" "$@"; }
with_old() { if [ -n "$OLD" ]; then echo "$@" "$( [ "${*: -1}" = object ] && echo old_object || echo old)"; else echo "$@"; fi; }

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "x%.3f", (b > 0 ? a / b : 0) }'; }
median() { tr ' ' '\n' | sed '/^$/d' | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# once VARIANT CMD...: "wall cpu" in ms of one run. A failed run would look fast: it
# is reported.
TIMEFORMAT='%3R %3U %3S'
once() {
	local rc
	{ time "$@" >/dev/null 2>&1; rc=$?; } 2>"$T/time"
	[ $rc -eq 0 ] || echo "bench-preload: FAILED (exit $rc): $*" >&2
	awk '{ printf "%d %d", $1 * 1000, ($2 + $3) * 1000 }' "$T/time"
}

# row NAME ROUNDS CMD CLEANUP VARIANT...: the variants of CMD alternating, ROUNDS times;
# prints each variant's median CPU and wall time and its ratio to the first variant.
row() {
	local name=$1 rounds=$2 cmd=$3 cleanup=$4 v w c
	shift 4
	[ "$rounds" -ge 1 ] || return 0
	declare -A cpu=() wall=()
	for _ in $(seq "$rounds"); do
		for v in "$@"; do
			read -r w c < <(once "$v" bash -c "$cmd")
			bash -c "$cleanup"
			cpu[$v]+="$c " wall[$v]+="$w "
		done
	done
	local base_c base_w mc mw line
	base_c=$(median <<<"${cpu[$1]}") base_w=$(median <<<"${wall[$1]}")
	line=$(printf '%-40s CPU %s %5d ms' "$name" "$1" "$base_c")
	for v in "${@:2}"; do
		mc=$(median <<<"${cpu[$v]}") mw=$(median <<<"${wall[$v]}")
		line+=$(printf ' | %s %s' "$v" "$(ratio "$mc" "$base_c")")
	done
	echo "$line"
	line=$(printf '%-40s wall %s %4d ms' "" "$1" "$base_w")
	for v in "${@:2}"; do
		mw=$(median <<<"${wall[$v]}")
		line+=$(printf ' | %s %s' "$v" "$(ratio "$mw" "$base_w")")
	done
	echo "$line"
}
echo "== bench-preload: median of $ROUNDS, variants alternating; ratios to bare"
echo "   (floor: an empty preloaded object; object: libdcg-preload.so without dcg run)"
# shellcheck disable=SC2046 # the variants are words
row "1000 x /bin/true from bash" "$ROUNDS" 'for i in $(seq 1000); do /bin/true; done' true \
	$(with_old bare floor guard)
# shellcheck disable=SC2046
row "1000 x /bin/true from a static spawner" "$ROUNDS" "'$SPAWN' 1000 /bin/true" true \
	$(with_old bare floor object)
# shellcheck disable=SC2046
row "open+close x 400k, 13-component paths" "$ROUNDS" "'$OPENLOOP' 100000 '$deep'/file*.c" \
	true $(with_old bare floor guard)
# shellcheck disable=SC2046
row "open+close x 100k, short path" "$ROUNDS" "'$OPENLOOP' 100000 '$T/w/hostname'" true \
	$(with_old bare floor guard)
# Each round builds into an empty folder, removed afterwards outside the measure (and
# outside the guard: the default policy refuses rm -rf).
# shellcheck disable=SC2046
row "build of dcg from clean (make -j2)" "${PRELOAD_BENCH_BUILD_ROUNDS:-2}" \
	"make -s -C '$ROOT' -j2 BUILD='$T/b' '$T/b/libdcgpolicy.a' '$T/b/dcg' && test -x '$T/b/dcg'" \
	"rm -rf '$T/b'" $(with_old bare guard)
echo "budgets (guard, CPU): /bin/true loop x1.12, open loop x1.15, build x1.05"
