#!/bin/bash
# dcg scan: the fixture repository (tests/data/scan/repo, every kind of file, destructive
# and safe lines side by side) gives exactly the findings of tests/data/scan/expected.tsv
# in text, JSON and SARIF (SARIF 2.1.0's required structure checked field by field); the
# project file's tightening holds and its loosening only once trusted; --staged reads the
# index, --diff only changed lines; the exit statuses; bad input (binary, invalid UTF-8,
# a 10 MB script, a YAML bomb, deep YAML, a symbolic link loop) said and survived; the
# pre-commit hook dcg installs stops a commit, and the pre-commit framework runs dcg
# through the repository's .pre-commit-hooks.yaml.
. tests/integration/lib.sh

export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t \
	GIT_COMMITTER_EMAIL=t@example.com GIT_CONFIG_NOSYSTEM=1
EXPECTED=$ROOT/tests/data/scan/expected.tsv

# new_repo DIR [FILES FROM]: a git repository in DIR, with a first commit
new_repo() {
	mkdir -p "$1"
	[ -n "${2:-}" ] && cp -a "$2/." "$1/"
	git -C "$1" init -q -b main
	git -C "$1" add -A
	git -C "$1" commit -qm init --allow-empty
}

R=$T/repo
new_repo "$R" "$ROOT/tests/data/scan/repo"
cd "$R" || fail "no repo"

# ---- text: the findings, exactly ----
rc=0
"$DCG" scan >"$T/out.txt" 2>"$T/err.txt" || rc=$?
[ "$rc" = 2 ] || fail "scan of the fixture: exit $rc, want 2: $(cat "$T/err.txt")"
grep -E '^[^ ].*:[0-9]+:[0-9]+: ' "$T/out.txt" |
	sed -E 's/^([^:]+):([0-9]+):([0-9]+): [a-z]+ ([^:]+):.*/\1\t\2\t\3\t\4/' | sort >"$T/got.tsv"
grep -v '^#' "$EXPECTED" | sort >"$T/want.tsv"
diff "$T/want.tsv" "$T/got.tsv" >"$T/diff.txt" || fail "text findings differ (< want, > got):
$(cat "$T/diff.txt")"
grep -q 'not trusted' "$T/err.txt" || fail "the untrusted project file's note is missing"
# from a folder inside, still the whole repository
(cd scripts && "$DCG" scan 2>/dev/null) | grep -E '^[^ ].*:[0-9]+:[0-9]+: ' |
	sed -E 's/^([^:]+):([0-9]+):([0-9]+): [a-z]+ ([^:]+):.*/\1\t\2\t\3\t\4/' | sort |
	diff "$T/want.tsv" - >/dev/null || fail "scan from a subfolder differs"
rc=0; (cd scripts && "$DCG" scan deploy.sh >"$T/sub.txt" 2>/dev/null) || rc=$?
[ "$rc" = 2 ] && grep -q '^scripts/deploy.sh:4:1: ' "$T/sub.txt" && ! grep -q '^Makefile' "$T/sub.txt" ||
	fail "a path relative to a subfolder: exit $rc: $(cat "$T/sub.txt")"
grep -q '^dcg scan: 12 files' "$T/out.txt" || fail "summary: $(tail -n 1 "$T/out.txt")"

# ---- JSON: the same findings ----
rc=0
"$DCG" scan --format json >"$T/out.json" 2>/dev/null || rc=$?
[ "$rc" = 2 ] || fail "json: exit $rc"
python3 - "$T/out.json" "$T/want.tsv" <<'PY' || fail "json findings"
import json, sys
doc = json.load(open(sys.argv[1]))
want = sorted(tuple(l.rstrip("\n").split("\t")) for l in open(sys.argv[2]) if l.strip())
got = sorted((f["file"], str(f["line"]), str(f["column"]), f["rule_id"]) for f in doc["findings"])
assert got == want, (got, want)
for f in doc["findings"]:
    assert f["decision"] in ("deny", "ask", "warn"), f
    assert f["reason"] and f["kind"] and f["context"] and f["suggestions"], f
    assert f["suggestions"][-1].startswith("If intentional: dcg allow " + f["rule_id"]), f
assert doc["files"] == 12 and doc["lines"] > 100 and doc["errors"] == 0, doc
PY

# ---- SARIF 2.1.0: the schema's required structure, field by field, and the findings ----
rc=0
"$DCG" scan --format sarif >"$T/out.sarif" 2>/dev/null || rc=$?
[ "$rc" = 2 ] || fail "sarif: exit $rc"
python3 - "$T/out.sarif" "$T/want.tsv" <<'PY' || fail "sarif structure or findings"
import json, sys
log = json.load(open(sys.argv[1]))
want = sorted(tuple(l.rstrip("\n").split("\t")) for l in open(sys.argv[2]) if l.strip())
def obj(x, where):
    assert isinstance(x, dict), where
    return x
def text(m, where):  # message / multiformatMessageString: text required here
    assert isinstance(obj(m, where).get("text"), str) and m["text"], where
# sarifLog: version "2.1.0" and runs required; only the schema's top-level properties
assert log["version"] == "2.1.0"
assert set(log) <= {"version", "$schema", "runs", "inlineExternalProperties", "properties"}
assert isinstance(log["runs"], list) and len(log["runs"]) == 1
run = obj(log["runs"][0], "run")
drv = obj(obj(run["tool"], "tool")["driver"], "driver")   # run.tool, tool.driver required
assert drv["name"] == "dcg" and isinstance(drv["version"], str) and drv["version"]
assert run.get("columnKind") in (None, "utf16CodeUnits", "unicodeCodePoints")
rules = drv["rules"]
ids = [r["id"] for r in rules]                             # reportingDescriptor.id required
assert len(ids) == len(set(ids)), "one rules[] entry per rule"
for r in rules:
    text(r["shortDescription"], "shortDescription")
    text(r["help"], "help")
    assert "If intentional: dcg allow " + r["id"] in r["help"]["text"]
    assert r["defaultConfiguration"]["level"] in ("none", "note", "warning", "error")
got = []
for res in run["results"]:
    text(res["message"], "result.message")                 # result.message required
    assert res["level"] in ("none", "note", "warning", "error")
    assert res["ruleId"] in ids and ids[res["ruleIndex"]] == res["ruleId"]
    assert len(res["locations"]) == 1
    pl = res["locations"][0]["physicalLocation"]
    uri = pl["artifactLocation"]["uri"]
    assert not uri.startswith("/") and "://" not in uri, "repository-relative uri"
    reg = pl["region"]
    assert isinstance(reg["startLine"], int) and reg["startLine"] >= 1
    assert isinstance(reg["startColumn"], int) and reg["startColumn"] >= 1
    got.append((uri, str(reg["startLine"]), str(reg["startColumn"]), res["ruleId"]))
assert sorted(got) == want, (sorted(got), want)
assert all(r["level"] == "error" for r in run["results"])  # every fixture finding denies
PY

# ---- a syntax the analyser does not read (an arithmetic for, line 3; arrays, line 2, are
# read since issue 32) is a note, not a finding; the rest is read ----
U=$T/unread
mkdir -p "$U"
printf '#!/bin/bash\nfiles=(a b c)\nfor ((i = 0; i < 3; i++)); do echo "$i"; done\ngit push --force\n' \
	>"$U/arr.sh"
new_repo "$U"
rc=0; (cd "$U" && "$DCG" scan --format json >"$T/u.json" 2>"$T/u.err") || rc=$?
[ "$rc" = 2 ] || fail "bash arrays: exit $rc: $(cat "$T/u.err")"
grep -q 'arr.sh:3: a syntax the analyser does not read (shell.parse.error)' "$T/u.err" ||
	fail "no note: $(cat "$T/u.err")"
python3 - "$T/u.json" <<'PY' || fail "bash arrays: $(cat "$T/u.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert [(f["line"], f["rule_id"]) for f in d["findings"]] == [(4, "core.git.push_force")], d
assert d["not_analysed"][0]["file"] == "arr.sh" and d["not_analysed"][0]["line"] == 3, d
PY
cd "$R" || fail "cd"

# ---- trusted: the project file's allow entry now holds ----
"$DCG" trust .dcg/policy.yaml >/dev/null 2>&1 || fail "dcg trust"
"$DCG" scan 2>/dev/null | grep -q core.git.reset_hard && fail "trusted allow entry ignored"
"$DCG" scan 2>/dev/null | grep -q project.npm_publish || fail "the project's own rule is gone"
"$DCG" untrust .dcg/policy.yaml >/dev/null 2>&1

# ---- exit statuses and options ----
rc=0; "$DCG" scan --fail-on never >/dev/null 2>&1 || rc=$?
[ "$rc" = 0 ] || fail "--fail-on never: exit $rc"
rc=0; "$DCG" scan --format xml >/dev/null 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "--format xml: exit $rc"
rc=0; "$DCG" scan --fail-on maybe >/dev/null 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "--fail-on maybe: exit $rc"
rc=0; "$DCG" scan --staged --all >/dev/null 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "--staged --all: exit $rc"
rc=0; "$DCG" scan Makefile >"$T/one.txt" 2>/dev/null || rc=$?
[ "$rc" = 2 ] && ! grep -q '^Dockerfile' "$T/one.txt" || fail "scan of one path: exit $rc"
rc=0; "$DCG" scan README.md scripts/deploy.sh --fail-on never --format json >"$T/two.json" \
	2>/dev/null || rc=$?
[ "$rc" = 0 ] || fail "--fail-on never on paths: exit $rc"
"$DCG" help scan | grep -q -- '--fail-on' || fail "dcg help scan"

# A clean repository passes; a warn-only finding fails only with --fail-on warn.
C=$T/clean
mkdir -p "$C"
printf '#!/bin/sh\nmake\ngit status\nrm -rf build\n' >"$C/build.sh"
printf 'all:\n\tcc -o app main.c\nclean:\n\trm -rf build\n' >"$C/Makefile"
new_repo "$C"
(cd "$C" && "$DCG" scan >/dev/null 2>&1) || fail "clean repository: exit $?"
printf '#!/bin/sh\nhistory -c\n' >"$C/tidy.sh"
git -C "$C" add tidy.sh
rc=0; (cd "$C" && "$DCG" scan --format json >"$T/warn.json" 2>/dev/null) || rc=$?
python3 -c 'import json,sys; f=json.load(open(sys.argv[1]))["findings"]; sys.exit(not f or any(x["decision"] != "warn" for x in f))' "$T/warn.json" ||
	fail "history -c: want one warn finding: $(cat "$T/warn.json")"
[ "$rc" = 0 ] || fail "a warning alone with --fail-on deny: exit $rc"
rc=0; (cd "$C" && "$DCG" scan --fail-on warn >/dev/null 2>&1) || rc=$?
[ "$rc" = 2 ] || fail "--fail-on warn: exit $rc"

# ---- --staged: the index, not the working tree ----
S=$T/staged
new_repo "$S"
cd "$S" || fail "cd"
printf '#!/bin/sh\necho ok\ngit push --force\n' >run.sh
git add run.sh
printf '#!/bin/sh\necho ok\n' >run.sh # the working tree differs: the index counts
rc=0; "$DCG" scan --staged >"$T/st.txt" 2>&1 || rc=$?
[ "$rc" = 2 ] && grep -q '^run.sh:3:1: deny core.git.push_force' "$T/st.txt" ||
	fail "--staged: exit $rc: $(cat "$T/st.txt")"
git add run.sh
printf '#!/bin/sh\ngit reset --hard\n' >other.sh # not staged: not read
rc=0; "$DCG" scan --staged >"$T/st2.txt" 2>&1 || rc=$?
[ "$rc" = 0 ] || fail "--staged with a clean index: exit $rc: $(cat "$T/st2.txt")"
# --all: the untracked file too (not an ignored one); by default only tracked files
printf 'ignored.sh\n' >.gitignore
printf '#!/bin/sh\ngit clean -ffdx /\n' >ignored.sh
rc=0; "$DCG" scan >"$T/a1.txt" 2>&1 || rc=$?
[ "$rc" = 0 ] && ! grep -q '^other.sh' "$T/a1.txt" || fail "tracked only: exit $rc: $(cat "$T/a1.txt")"
rc=0; "$DCG" scan --all >"$T/a2.txt" 2>&1 || rc=$?
[ "$rc" = 2 ] && grep -q '^other.sh:2:1: deny core.git.reset_hard' "$T/a2.txt" &&
	! grep -q '^ignored.sh' "$T/a2.txt" || fail "--all: exit $rc: $(cat "$T/a2.txt")"

# ---- --diff REV: only the lines changed since REV ----
D=$T/diff
mkdir -p "$D"
printf 'old:\n\tgit reset --hard\n\nok:\n\tmake\n' >"$D/Makefile"
new_repo "$D"
cd "$D" || fail "cd"
printf 'old:\n\tgit reset --hard\n\nok:\n\tmake\n\tgit push --force\n' >Makefile
rc=0; "$DCG" scan --diff HEAD >"$T/d.txt" 2>&1 || rc=$?
[ "$rc" = 2 ] && grep -q '^Makefile:6:2: deny core.git.push_force' "$T/d.txt" &&
	! grep -q reset_hard "$T/d.txt" || fail "--diff HEAD: exit $rc: $(cat "$T/d.txt")"
git commit -qam second
rc=0; "$DCG" scan --diff HEAD >"$T/d2.txt" 2>&1 || rc=$?
[ "$rc" = 0 ] || fail "--diff HEAD with nothing changed: exit $rc"
rc=0; "$DCG" scan --diff HEAD~1 >"$T/d3.txt" 2>&1 || rc=$?
[ "$rc" = 2 ] && grep -q 'Makefile:6:2' "$T/d3.txt" && ! grep -q 'Makefile:2:' "$T/d3.txt" ||
	fail "--diff HEAD~1: exit $rc: $(cat "$T/d3.txt")"
rc=0; "$DCG" scan --diff no-such-rev >/dev/null 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "--diff of an unknown revision: exit $rc"

# ---- names: a space and a byte that is not UTF-8, as valid JSON and a URI reference ----
N=$T/names
mkdir -p "$N"
printf '#!/bin/sh\ngit push --force\n' >"$N/my file.sh"
printf '#!/bin/sh\ngit push --force\n' >"$N/caf$(printf '\xe9').sh"
new_repo "$N"
(cd "$N" && "$DCG" scan --format sarif >"$T/n.sarif" 2>/dev/null; "$DCG" scan --format json \
	>"$T/n.json" 2>/dev/null)
python3 - "$T/n.sarif" "$T/n.json" <<'PY' || fail "file names in SARIF and JSON"
import json, sys
uris = sorted(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
              for r in json.load(open(sys.argv[1]))["runs"][0]["results"])
assert uris == ["caf%E9.sh", "my%20file.sh"], uris
files = sorted(f["file"] for f in json.load(open(sys.argv[2]))["findings"])
assert files == ["caf?.sh", "my file.sh"], files
PY

# ---- bad input: said clearly, never a crash ----
B=$T/bad
mkdir -p "$B/.github/workflows"
head -c 4096 /dev/urandom >"$B/blob.sh"
printf '\0\0\0' >>"$B/blob.sh"
printf '#!/bin/sh\necho caf\xe9\ngit reset --hard\n' >"$B/latin1.sh"
# a YAML bomb: each alias would multiply the one before ten times if expanded
{
	echo 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]'
	p=a
	for n in b c d e f g h i; do
		printf '%s: &%s [*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s]\n' $n $n $p $p $p $p $p $p $p $p $p $p
		p=$n
	done
	echo 'job:'
	printf '  script:\n    - git clean -fdx /\n    - git push --force\n'
} >"$B/.gitlab-ci.yml"
python3 -c 'print("[" * 5000 + "]" * 5000)' >"$B/.github/workflows/deep.yml"
python3 -c '
import sys
with open(sys.argv[1], "w") as f:
    f.write("#!/bin/sh\n")
    line = "echo " + "x" * 90 + "\n"
    f.write(line * (10 * 1024 * 1024 // len(line)))' "$B/huge.sh"
ln -s loop-b.sh "$B/loop-a.sh"
ln -s loop-a.sh "$B/loop-b.sh"
mkdir -p "$B/dir"
ln -s .. "$B/dir/up" # a folder link that would loop a walk that followed it
printf '{"scripts": {"x": ' >"$B/package.json"
new_repo "$B"
cd "$B" || fail "cd"
rc=0
timeout 60 "$DCG" scan >"$T/b.txt" 2>"$T/b.err" || rc=$?
[ "$rc" = 2 ] || fail "bad input: exit $rc (want 2: findings with files not checked): $(cat "$T/b.err")"
grep -q 'blob.sh: a binary file' "$T/b.err" || fail "binary: $(cat "$T/b.err")"
grep -q "latin1.sh: not valid UTF-8" "$T/b.err" || fail "utf-8 note: $(cat "$T/b.err")"
grep -q '^latin1.sh:3:1: deny core.git.reset_hard' "$T/b.txt" || fail "invalid UTF-8 not scanned"
grep -q 'huge.sh: larger than 4 MiB: not checked' "$T/b.err" || fail "10 MB: $(cat "$T/b.err")"
grep -q '^.gitlab-ci.yml:13:7: deny core.git.push_force' "$T/b.txt" || fail "YAML with aliases: $(cat "$T/b.txt")"
grep -q 'deep.yml: YAML nested deeper than' "$T/b.err" || fail "deep YAML: $(cat "$T/b.err")"
grep -q 'loop-a.sh: a symbolic link loop: not followed' "$T/b.err" || fail "link loop: $(cat "$T/b.err")"
grep -q 'package.json: not valid JSON' "$T/b.err" || fail "bad JSON: $(cat "$T/b.err")"
rc=0; timeout 60 "$DCG" scan --fail-on never >/dev/null 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "files not checked, nothing failing: exit $rc, want 1"
# outside a repository: a walk that never follows a link
rm -rf "$B/.git"
rc=0; timeout 60 "$DCG" scan dir loop-a.sh >"$T/w.txt" 2>&1 || rc=$?
[ "$rc" = 0 ] || fail "walk with link loops: exit $rc: $(cat "$T/w.txt")"

# ---- the pre-commit hook dcg writes stops a destructive commit ----
H=$T/hooked
new_repo "$H"
cd "$H" || fail "cd"
"$DCG" scan --install-hook >/dev/null || fail "--install-hook"
[ -x .git/hooks/pre-commit ] && grep -q 'scan --staged' .git/hooks/pre-commit || fail "no hook"
printf '#!/bin/sh\ngit push --force\n' >bad.sh
git add bad.sh
git commit -qm bad >"$T/h.txt" 2>&1 && fail "the hook let a force push in"
grep -q 'bad.sh:2:1: deny core.git.push_force' "$T/h.txt" || fail "hook output: $(cat "$T/h.txt")"
printf '#!/bin/sh\ngit push --force-with-lease\n' >bad.sh
git add bad.sh
git commit -qm fine >"$T/h2.txt" 2>&1 || fail "the hook stopped a safe commit: $(cat "$T/h2.txt")"
printf '#!/bin/sh\necho mine\n' >.git/hooks/pre-commit
"$DCG" scan --install-hook >/dev/null 2>&1 && fail "replaced a hook that is not dcg's"
grep -q mine .git/hooks/pre-commit || fail "a foreign hook was changed"
"$DCG" scan --install-hook --force >/dev/null || fail "--force"

# ---- the pre-commit framework, through the repository's .pre-commit-hooks.yaml ----
if ! command -v pre-commit >/dev/null 2>&1; then
	echo "pre-commit is not installed (apt-get install pre-commit): its check is skipped"
	echo "scan: ok"
	exit 0
fi
HR=$T/hookrepo
mkdir -p "$HR"
cp "$ROOT/.pre-commit-hooks.yaml" "$HR/"
new_repo "$HR"
rev=$(git -C "$HR" rev-parse HEAD)
P=$T/precommit
new_repo "$P"
cd "$P" || fail "cd"
printf 'repos:\n  - repo: %s\n    rev: %s\n    hooks:\n      - id: dcg-scan\n' "$HR" "$rev" \
	>.pre-commit-config.yaml
printf '#!/bin/sh\ngit reset --hard\n' >wipe.sh
git add -A
export PRE_COMMIT_HOME=$T/pre-commit-cache
rc=0
PATH=$(dirname "$DCG"):$PATH timeout 120 pre-commit run --files wipe.sh >"$T/pc.txt" 2>&1 || rc=$?
[ "$rc" = 1 ] && grep -q 'wipe.sh:2:1: deny core.git.reset_hard' "$T/pc.txt" ||
	fail "pre-commit run: exit $rc: $(cat "$T/pc.txt")"
printf '#!/bin/sh\ngit status\n' >wipe.sh
git add -A
PATH=$(dirname "$DCG"):$PATH timeout 120 pre-commit run --files wipe.sh >"$T/pc2.txt" 2>&1 ||
	fail "pre-commit on a safe file: $(cat "$T/pc2.txt")"
echo "scan: ok"
