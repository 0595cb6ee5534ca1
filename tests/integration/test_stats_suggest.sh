#!/bin/bash
# dcg stats --suggest: for each rule and place the user let through by hand at least
# twice (a runtime ask answered yes, an allow-once pass), the narrowest allow entry,
# with how many it covers; a hook's ask (whose answer dcg never sees) and a single
# approval suggest nothing; nothing is written.
set -u
DCG=${DCG_BIN:?}
T=${TMPDIR_TEST:?}
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/lib.sh
mkdir -p "$T/repo/.git" "$T/repo/sub" "$T/other"
e() { # LAYER DECISION RULE CWD [EXTRA]
	printf '{"time":"2026-12-01T10:00:00.000Z","layer":"%s","tool":"execve","input":"git reset --hard","decision":"%s","rule_id":"%s","reason":"x","detection":"command","severity":"high"%s,"pid":1,"cwd":"%s"}\n' \
		"$1" "$2" "$3" "${5:-}" "$4" >>"$DCG_LOG"
}
e preload ask core.git.reset_hard "$T/repo"
e sandbox ask core.git.reset_hard "$T/repo/sub"
e hook allow core.git.reset_hard "$T/repo" ',"allowed_by_once":true'
e hook ask core.git.push_force "$T/repo"
e hook ask core.git.push_force "$T/repo"
e preload ask core.git.clean_force "$T/other"
e preload deny core.git.clean_force "$T/other"
before=$(cat "$DCG_LOG"; ls -R "$HOME")
out=$("$DCG" stats --suggest) || fail "stats --suggest: $out"
echo "$out" | grep -q "^4 calls let through by hand" || fail "approvals counted: $out"
echo "$out" | grep -qF "dcg allow core.git.reset_hard --path '$T/repo/**'" || fail "no entry: $out"
echo "$out" | grep -q "covers 3" || fail "coverage: $out"
echo "$out" | grep -q "push_force" && fail "a hook's ask was taken for an approval: $out"
echo "$out" | grep -q "clean_force" && fail "one approval suggested an entry: $out"
[ "$before" = "$(cat "$DCG_LOG"; ls -R "$HOME")" ] || fail "stats --suggest wrote something"
"$DCG" stats --suggest --json | python3 -c 'import json,sys; [json.loads(l) for l in sys.stdin]' ||
	fail "--json"
echo ok
