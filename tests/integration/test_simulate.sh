#!/bin/bash
# dcg simulate over the three kinds of record: a plain list, dcg's audit log and agents'
# transcripts (tests/data/simulate: Claude Code's and Codex's formats, built field for
# field as those clients write them), with --against and --json, and with no FILE the
# user's recent transcripts. It never runs what it judges.
set -u
DCG=${DCG_BIN:?}
T=${TMPDIR_TEST:?}
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/lib.sh
D=$PWD/tests/data/simulate
cd "$T" || exit 1
js() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

# a plain list; nothing of it runs
printf 'git status\ntouch %s/ran\nrm -rf ~\necho hi > %s/ran2\n' "$T" "$T" >list.txt
out=$("$DCG" simulate --json list.txt) || fail "simulate list: $out"
[ "$(echo "$out" | js 'd["calls"]')" = 4 ] || fail "list: $out"
[ ! -e "$T/ran" ] && [ ! -e "$T/ran2" ] || fail "simulate ran a command"
echo "$out" | js '[r["count"] for r in d["by_rule"] if r["rule"]=="core.filesystem.rm_root" and r["decision"]=="deny"][0]' |
	grep -qx 1 || fail "list: rm -rf ~ not denied: $out"

# a Claude Code transcript: every tool call, judged as the hook judges it
out=$("$DCG" simulate --json "$D/claude_session.jsonl") || fail "transcript"
[ "$(echo "$out" | js 'd["calls"]')" = 12 ] || fail "transcript calls: $out"
[ "$(echo "$out" | js 'd["file_calls"]')" = 5 ] || fail "transcript file calls: $out"
for want in core.git.reset_hard:deny:2 core.git.push_force:deny:1 default.zero_access.env:deny:1 -:allow:7; do
	IFS=: read -r rule dec n <<<"$want"
	got=$(echo "$out" | js "sum(r['count'] for r in d['by_rule'] if r['rule']=='$rule' and r['decision']=='$dec')")
	[ "$got" = "$n" ] || fail "transcript: $rule $dec: $got, not $n: $out"
done
echo "$out" | grep -q 'git reset --hard HEAD~3' || fail "transcript: no example"
"$DCG" simulate "$D/claude_session.jsonl" | grep -q "nothing was run" || fail "text report"

# a Codex rollout and dcg's audit log
out=$("$DCG" simulate --json "$D/codex_rollout.jsonl" "$D/audit.jsonl") || fail "codex+audit"
[ "$(echo "$out" | js 'd["calls"]')" = 6 ] || fail "codex+audit calls: $out"
echo "$out" | grep -q '"rule":"core.git.clean_force"' || fail "codex: git clean -fdx: $out"
echo "$out" | grep -q '"rule":"default.no_delete.git"' || fail "audit: the sandbox's unlink: $out"

# --against: what a new policy changes
: >old.yaml
printf 'disable: [core.git.push_force]\nbashToolPatterns:\n  - pattern: "^npm test"\n    reason: no tests today\n' >new.yaml
out=$("$DCG" simulate --json --policy new.yaml --against old.yaml "$D/claude_session.jsonl") ||
	fail "against: $out"
echo "$out" | js 'd["newly_refused"][0]["examples"][0]' | grep -q '^npm test' || fail "newly refused: $out"
echo "$out" | js 'd["newly_allowed"][0]["rule"]' | grep -qx core.git.push_force || fail "newly allowed: $out"
"$DCG" simulate --policy new.yaml --against old.yaml "$D/claude_session.jsonl" |
	grep -q "^Newly refused" || fail "against: text"

# no FILE: the user's recent transcripts
mkdir -p "$HOME/.claude/projects/-home-dev-shop"
cp "$D/claude_session.jsonl" "$HOME/.claude/projects/-home-dev-shop/s.jsonl"
[ "$("$DCG" simulate --json | js 'd["calls"]')" = 12 ] || fail "no FILE: $("$DCG" simulate --json)"
touch -d '30 days ago' "$HOME/.claude/projects/-home-dev-shop/s.jsonl"
[ "$("$DCG" simulate --json | js 'd["calls"]')" = 0 ] || fail "an old transcript was read"
echo ok
