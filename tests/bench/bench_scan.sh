#!/bin/bash
# make bench-scan: `dcg scan` over a generated repository of N files (default 10,000,
# the budget: under 5 s on a 2-core machine), half of them files dcg reads (shell
# scripts, Makefiles, Dockerfiles, workflows, GitLab CI, package.json, compose,
# justfiles, Terraform; a destructive line in one of each ten), half other sources.
# Prints the wall time (best of 3), files and lines per second, and the ratio to
# reading every file of the tree once (git ls-files | xargs cat), the floor of any scan.
#   bench_scan.sh DCG [N]
set -eu
DCG=$(realpath "$1")
N=${2:-10000}
T=$(mktemp -d "${TMPDIR:-/tmp}/dcg-bench-scan.XXXXXX")
trap 'rm -rf "$T"' EXIT
export HOME=$T/home XDG_CONFIG_HOME=$T/home/.config XDG_STATE_HOME=$T/home/.local/state
export GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@example.com \
	GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@example.com
unset DCG_POLICY
mkdir -p "$HOME"
R=$T/repo
mkdir -p "$R"

python3 - "$R" "$N" <<'PY'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
def write(path, text):
    full = os.path.join(root, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        f.write(text)
bad = "git reset --hard origin/main"
sh = ["set -eu", 'cd "$(dirname "$0")"', "for f in src/*.c; do", '  echo "$f"', "done",
      "make -j4 all", "git status --short", "rm -rf build", "tar czf out.tgz dist",
      'if [ -n "${CI:-}" ]; then', "  npm ci", "fi", "python3 -m pytest -q"] * 3
mk = "CC ?= cc\nBUILD := build\nall: app\n\napp: main.o\n\t$(CC) -o $@ $^\n\nclean:\n\trm -rf $(BUILD)\n\ntest:\n\t./run-tests.sh\n"
docker = "FROM debian:stable\nRUN apt-get update && apt-get install -y make \\\n    && rm -rf /var/lib/apt/lists/*\nCOPY . /src\nRUN make -C /src\n"
gha = "on: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - run: make test\n      - name: lint\n        run: |\n          make lint\n          git diff --exit-code\n"
gitlab = "test:\n  script:\n    - make test\n    - make lint\n"
npm = '{"name": "x", "scripts": {"build": "tsc -p .", "clean": "rm -rf dist", "test": "jest"}}\n'
compose = "services:\n  web:\n    image: nginx\n    command: nginx -g 'daemon off;'\n"
just = "build:\n    cargo build\n\ntest:\n    cargo test\n"
tf = 'resource "null_resource" "x" {\n  provisioner "local-exec" {\n    command = "echo done"\n  }\n}\n'
kinds = [("s%d.sh", "#!/bin/sh\n" + "\n".join(sh) + "\n")] * 30 + \
        [("Makefile", mk)] * 5 + [("Dockerfile", docker)] * 4 + \
        [(".github/workflows/w%d.yml", gha)] * 2 + [(".gitlab-ci.yml", gitlab)] + \
        [("package.json", npm)] * 3 + [("compose.yml", compose)] * 2 + \
        [("justfile", just)] + [("m%d.tf", tf)] * 2
plain = "int f%d(void) { return %d; }\n" * 40
for i in range(n):
    d = "d%03d/e%02d" % (i // 100, i % 100 // 10)
    if i % 2:
        write("%s/f%d.c" % (d, i), plain)
        continue
    name, text = kinds[(i // 2) % len(kinds)]
    if "%d" in name:
        name = name % i
    elif name != ".gitlab-ci.yml" or i:
        d += "/k%d" % i  # a folder of its own: one Makefile, one justfile ... each
    if name.startswith(".github"):
        d = ""
    if name == ".gitlab-ci.yml":
        d, name = ("", name) if i == 0 else (d, "ci-%d.gitlab-ci.yml" % i)
    if i % 20 == 0 and name.endswith(".sh"):
        text += bad + "\n"
    write(os.path.join(d, name) if d else name, text)
PY
git -C "$R" init -q
git -C "$R" add -A
git -C "$R" commit -qm bench

cd "$R"
files=$(git ls-files | wc -l)
best() { # best wall time of 3 runs of "$@", in seconds
	local b="" s e t
	for _ in 1 2 3; do
		s=$(date +%s.%N)
		"$@" >/dev/null 2>&1 || true
		e=$(date +%s.%N)
		t=$(echo "$e - $s" | bc)
		if [ -z "$b" ] || [ "$(echo "$t < $b" | bc)" = 1 ]; then b=$t; fi
	done
	echo "$b"
}
floor() { git ls-files -z | xargs -0 cat >/dev/null; }
rc=0
"$DCG" scan --format json >"$T/out.json" 2>"$T/err.txt" || rc=$?
[ "$rc" = 2 ] || { echo "bench-scan: dcg scan exit $rc: $(head -5 "$T/err.txt")"; exit 1; }
read -r scanned lines findings < <(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["files"], d["lines"], len(d["findings"]))' "$T/out.json")
t_scan=$(best "$DCG" scan)
# CPU seconds (user + system) of one run: steadier than the wall time on a busy machine
cpu=$( { TIMEFORMAT='%U %S'; time "$DCG" scan >/dev/null 2>&1; } 2>&1 | awk '{ print $1 + $2 }')
t_floor=$(best floor)
printf 'bench-scan: %d files (%d read), %d lines in the files that hold commands, %d findings\n' \
	"$files" "$scanned" "$lines" "$findings"
printf 'bench-scan: dcg scan %.2f s (budget 5 s): %.0f files/s, %.0f lines/s; x%.1f of reading every file once (%.3f s)\n' \
	"$t_scan" "$(echo "$files / $t_scan" | bc -l)" "$(echo "$lines / $t_scan" | bc -l)" \
	"$(echo "$t_scan / $t_floor" | bc -l)" "$t_floor"
printf 'bench-scan: CPU %.2f s (user + system, one run; load average %s)\n' "$cpu" \
	"$(cut -d' ' -f1 /proc/loadavg)"
