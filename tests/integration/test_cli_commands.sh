#!/bin/bash
# The command line as a person meets it (issue 15): help for every command, every
# unknown option an error with the usage, --json where promised, rules list --policy,
# tool names in any case, install --agent all and uninstall, --managed, and status and
# doctor on a good, a broken and a half-installed set-up.
set -u
DCG=${DCG_BIN:?}
T=${TMPDIR_TEST:?}
export HOME=$T/home XDG_CONFIG_HOME=$T/home/.config DCG_LOG=$T/audit.jsonl
unset DCG_POLICY XDG_STATE_HOME DCG_CLAUDE_MANAGED_SETTINGS PI_CODING_AGENT_DIR
mkdir -p "$HOME" "$T/proj"
cd "$T/proj" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
isjson() { python3 -c 'import json,sys; json.loads(sys.stdin.read())' 2>/dev/null; }

cmds="hook check explain allow unallow trust untrust run sandbox rules status doctor packs log stats install
uninstall intent help version"
for c in $cmds; do
	"$DCG" help | grep -q "^  $c " || continue # a command not built in this dcg
	for h in --help -h; do
		out=$("$DCG" $c $h </dev/null 2>&1) || fail "$c $h: exit $?"
		echo "$out" | grep -q "usage: dcg" || fail "$c $h: no usage: $out"
	done
	[ "$("$DCG" help $c)" = "$("$DCG" $c --help)" ] || fail "dcg help $c differs from $c --help"
	out=$("$DCG" $c --bogus-option </dev/null 2>&1) && fail "$c --bogus-option: exit 0: $out"
	echo "$out" | grep -q "usage: dcg" || fail "$c --bogus-option: no usage: $out"
done
"$DCG" help | grep -q "^  doctor " || fail "dcg help lists no doctor"
"$DCG" help nosuchcommand 2>/dev/null && fail "dcg help nosuchcommand: exit 0"
for sub in "rules list" "rules lint" "intent list"; do
	out=$("$DCG" $sub --bogus 2>&1) && fail "$sub --bogus: exit 0"
	echo "$out" | grep -q "usage: dcg" || fail "$sub --bogus: no usage: $out"
done
for v in -v -V --version version; do
	"$DCG" $v | grep -qE '^dcg [0-9]' || fail "dcg $v"
done

# --json where promised
"$DCG" hook </dev/null >/dev/null 2>&1 # something for the log
for c in "status" "rules list" "packs" "doctor" "log"; do
	out=$("$DCG" $c --json 2>/dev/null)
	echo "$out" | head -n 1 | isjson || fail "$c --json is not JSON: $out"
done
"$DCG" explain --json 'git reset --hard' | isjson || fail "explain --json"
"$DCG" explain --json 'git reset --hard' | grep -q '"decision":"deny"' || fail "explain --json decision"

# rules list --policy FILE is honoured
printf 'rules:\n  - {id: team.only.here, pattern: "^frobnicate", reason: r}\n' >"$T/extra.yaml"
"$DCG" rules list --policy "$T/extra.yaml" | grep -q team.only.here || fail "rules list --policy ignored"
"$DCG" rules list | grep -q team.only.here && fail "rules list shows a rule of no file"
"$DCG" rules list --json --policy "$T/extra.yaml" | grep -q '"id":"team.only.here"' ||
	fail "rules list --json --policy"

# tool names in any case
for t in write WRITE Write; do
	"$DCG" check --tool $t "$HOME/.ssh/id_rsa" >/dev/null 2>&1
	[ $? -eq 2 ] || fail "check --tool $t allowed a zero-access path"
done
"$DCG" check --tool bash 'git reset --hard' >/dev/null 2>&1
[ $? -eq 2 ] || fail "check --tool bash"

# install --agent all: nothing set up here, so it says so and fails
out=$("$DCG" install --force --agent all --user 2>&1) && fail "install --agent all with no agent: exit 0"
echo "$out" | grep -q "nothing installed" || fail "install --agent all: $out"
[ -e "$HOME/.claude" ] && fail "install --agent all created .claude"
mkdir -p "$HOME/.claude" "$HOME/.gemini"
out=$("$DCG" install --force --agent all --user 2>&1) || fail "install --agent all: $out"
echo "$out" | grep -q "installed: claude, gemini" || fail "install --agent all summary: $out"
# status: each agent once, even in $HOME where project and user files are one
st=$(cd "$HOME" && "$DCG" status)
[ "$(echo "$st" | grep -c 'installed for claude')" = 1 ] || fail "status in \$HOME: $st"
echo "$st" | grep -q "installed for gemini" || fail "status misses gemini: $st"
echo "$st" | grep -q "not installed for codex, cursor, pi" || fail "status: $st"
(cd "$HOME" && "$DCG" doctor >"$T/doctor.out") || fail "doctor on a good set-up: $(cat "$T/doctor.out")"
# uninstall takes away the files dcg alone filled, and keeps a file with more in it
echo '{"model": "opus"}' >"$HOME/.gemini/settings.json"
"$DCG" install --force --agent gemini --user >/dev/null || fail "install gemini"
"$DCG" uninstall --agent all --user >/dev/null || fail "uninstall --agent all"
[ -e "$HOME/.claude/settings.json" ] && fail "uninstall left $(cat "$HOME/.claude/settings.json")"
grep -q '"model"' "$HOME/.gemini/settings.json" || fail "uninstall lost the user's gemini settings"

# a broken set-up: the registered binary is gone
mkdir -p "$T/old"
cp "$DCG" "$T/old/dcg"
"$T/old/dcg" install --force --agent claude --user >/dev/null || fail "install from a copy"
rm "$T/old/dcg"
st=$("$DCG" status)
echo "$st" | grep -q "BROKEN for claude" || fail "status misses the broken claude hook: $st"
echo "$st" | grep -q "$T/old/dcg is missing" || fail "status does not say why: $st"
echo "$st" | grep -q "fix: dcg install --agent claude --user" || fail "status gives no fix: $st"
out=$("$DCG" doctor) && fail "doctor on a broken set-up: exit 0"
echo "$out" | grep -q "^FAIL hook claude (user)" || fail "doctor: $out"
"$DCG" doctor --json | grep -q '"ok":false' || fail "doctor --json on a broken set-up"
"$DCG" install --force --agent claude --user >/dev/null || fail "reinstall"
"$DCG" doctor >/dev/null || fail "doctor after the fix: $("$DCG" doctor)"

# half-installed: an entry that covers only Bash
python3 - "$HOME/.claude/settings.json" <<'PY'
import json, sys
p = sys.argv[1]
d = json.load(open(p))
d["hooks"]["PreToolUse"][0]["matcher"] = "Bash"
json.dump(d, open(p, "w"))
PY
out=$("$DCG" doctor) && fail "doctor on a Bash-only entry: exit 0"
echo "$out" | grep -q 'not covering every tool dcg checks (matcher "Bash")' || fail "doctor: $out"
"$DCG" status | grep -q "BROKEN for claude" || fail "status on a Bash-only entry"
# not JSON at all
echo '{"hooks": ' >"$HOME/.claude/settings.json"
"$DCG" doctor >/dev/null && fail "doctor on a broken settings file: exit 0"
rm "$HOME/.claude/settings.json"
# a project file naming another program: reported, never run
mkdir -p "$T/proj/.claude"
printf '#!/bin/sh\ntouch %s/ran\nexit 2\n' "$T" >"$T/proj/dcg"
chmod +x "$T/proj/dcg"
cat >"$T/proj/.claude/settings.json" <<JSON
{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "$T/proj/dcg hook --agent claude"}]}]}}
JSON
"$DCG" status >/dev/null
"$DCG" doctor >/dev/null
[ -e "$T/ran" ] && fail "status or doctor ran a program a project file names"
rm -rf "$T/proj/.claude" "$T/proj/dcg"

# --managed: Claude Code's managed settings, path moved for the test
export DCG_CLAUDE_MANAGED_SETTINGS=$T/etc/claude-code/managed-settings.json
"$DCG" install --force --agent codex --managed 2>/dev/null && fail "--managed for codex accepted"
"$DCG" install --force --agent claude --managed >/dev/null || fail "install --managed"
grep -q "hook --agent claude" "$DCG_CLAUDE_MANAGED_SETTINGS" || fail "no managed entry"
"$DCG" uninstall --agent claude --managed >/dev/null || fail "uninstall --managed"
[ -e "$DCG_CLAUDE_MANAGED_SETTINGS" ] && fail "uninstall --managed left the file"
# the allowlist: list, merge, past dates, unallow
unset DCG_CLAUDE_MANAGED_SETTINGS
U=$XDG_CONFIG_HOME/dcg/policy.yaml
mkdir -p "$(dirname "$U")"
printf '# mine\nallow:\n  - rule: core.git.reset_hard  # keep me\n    reason: scratch\n    paths: [~/scratch/**]\n' >"$U"
"$DCG" allow core.git.clean_force -r "builds" --user >/dev/null || fail "allow"
out=$("$DCG" allow core.git.clean_force -r "builds" --user) || fail "allow again"
echo "$out" | grep -q "already allowed" || fail "a second identical allow: $out"
[ "$(grep -c 'rule: core.git.clean_force' "$U")" = 1 ] || fail "identical entry doubled: $(cat "$U")"
"$DCG" allow core.git.clean_force -r "until spring" --expires 2099-03-01 --user | grep -q "replacing" ||
	fail "an entry for the same rule and paths is not replaced"
[ "$(grep -c 'rule: core.git.clean_force' "$U")" = 1 ] || fail "same rule and paths doubled: $(cat "$U")"
"$DCG" allow core.git.clean_force -r x --expires 2020-01-01 --user 2>/dev/null && fail "a past date accepted"
"$DCG" allow core.git.clean_force -r x --expires 2031-02-30 --user 2>/dev/null && fail "2031-02-30 accepted"
"$DCG" allow core.git.clean_force -r x --expires "$(date -u +%F)" --user 2>/dev/null && fail "today accepted"
list=$("$DCG" allow --list)
echo "$list" | grep -E -q "^core.git.reset_hard +~/scratch/\*\* +never +scratch +$U:3" ||
	fail "allow --list: $list"
echo "$list" | grep -E -q "^core.git.clean_force +everywhere +2099-03-01 +until spring" ||
	fail "allow --list: $list"
"$DCG" allow --list --json | isjson || fail "allow --list --json"
"$DCG" check 'git reset --hard' >/dev/null 2>&1
[ $? -eq 2 ] || fail "reset allowed outside ~/scratch"
"$DCG" unallow core.git.clean_force >/dev/null || fail "unallow"
"$DCG" check 'git clean -fdx' >/dev/null 2>&1
[ $? -eq 2 ] || fail "git clean still allowed after unallow"
grep -q "keep me" "$U" || fail "unallow lost a comment: $(cat "$U")"
"$DCG" unallow core.git.reset_hard --path '~/elsewhere/**' 2>/dev/null && fail "unallow of a path never allowed"
"$DCG" unallow core.git.reset_hard --path '~/scratch/**' >/dev/null || fail "unallow --path"
"$DCG" allow --list | grep -q "^0 allow entries" || fail "entries left: $("$DCG" allow --list)"
"$DCG" unallow core.git.reset_hard 2>/dev/null && fail "unallow of nothing: exit 0"
"$DCG" rules lint "$U" >/dev/null || fail "the edited file does not lint: $(cat "$U")"
echo ok
