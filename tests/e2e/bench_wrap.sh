#!/bin/bash
# What wrapping the agent costs: one scripted Claude Code session (start, read, write,
# edit, a shell call running ls, git status and git commit, exit) against the mock model,
# bare, under `dcg run` and under `dcg sandbox`, the three interleaved in each round.
# Prints the median wall and CPU (user+sys of the client's process tree, /usr/bin/time)
# of each, and its ratio to bare.
#
#   tests/e2e/bench_wrap.sh [BUILD] [ROUNDS]     (make e2e-bench; ROUNDS default 7)
# Not part of make e2e: timings are not assertions.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=${1:-build}
ROUNDS=${2:-7}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
DCG=$BUILD/dcg
CLAUDE=${DCG_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dcg-e2e}/node_modules/.bin/claude
[ -x "$CLAUDE" ] || { echo "bench: no Claude Code client (run make e2e first)"; exit 77; }
[ -x /usr/bin/time ] || { echo "bench: needs /usr/bin/time"; exit 77; }
mkdir -p "$HERE/runs"
B=$(mktemp -d "$HERE/runs/bench-XXXXXX")
trap 'rm -rf "$B"' EXIT

one() { # one LAYER ROUND
	local r=$B/$1-$2 wrap
	mkdir -p "$r/proj" "$r/home"
	(cd "$r/proj" && git init -q && printf 'hello\n' >README.txt && git add README.txt &&
		git -c user.email=e2e@dcg -c user.name=e2e commit -qm init)
	case $1 in
	bare) wrap= ;;
	run) wrap="$DCG run --" ;;
	sandbox) wrap="$DCG sandbox --" ;;
	esac
	DCG_E2E_WRAP="/usr/bin/time -o $r/time -f %e:%U:%S $wrap" \
		"$HERE/run_claude.sh" "$r" "$HERE/scenarios/ordinary.json" "$CLAUDE"
	[ "$(cat "$r/rc")" = 0 ] && grep -q committed "$r/requests.jsonl" ||
		{ echo "bench: $1 run $2 failed (rc $(cat "$r/rc"))" >&2; return; }
	tail -n 1 "$r/time" | awk -F: -v l="$1" '{ printf "%s %s %.2f\n", l, $1, $2 + $3 }' >>"$B/times"
}

for i in $(seq "$ROUNDS"); do
	for l in bare run sandbox; do one "$l" "$i"; done
done
echo "one scripted Claude Code session ($("$CLAUDE" --version)), $ROUNDS rounds, load $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$B/times" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    l, wall, cpu = line.split()
    rows.setdefault(l, []).append((float(wall), float(cpu)))
base = rows.get("bare")
print("%-8s %3s %10s %8s %10s %8s" % ("layer", "n", "wall s", "x bare", "cpu s", "x bare"))
for l in ("bare", "run", "sandbox"):
    if l not in rows:
        continue
    w = statistics.median(x[0] for x in rows[l]); c = statistics.median(x[1] for x in rows[l])
    bw = statistics.median(x[0] for x in base) if base else w
    bc = statistics.median(x[1] for x in base) if base else c
    print("%-8s %3d %10.2f %8.2f %10.2f %8.2f" % (l, len(rows[l]), w, w / bw, c, c / bc))
PY
