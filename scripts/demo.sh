#!/bin/bash
# make demo: dcg's main job on a few commands, with the embedded default policy only
# (a throwaway HOME, no project file, no $DCG_POLICY), showing each decision.
set -u
DCG=${1:-build/dcg}
[ -x "$DCG" ] || { echo "demo: $DCG is not built (run make)" >&2; exit 1; }
DCG=$(cd "$(dirname "$DCG")" && pwd)/$(basename "$DCG")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
export HOME=$tmp XDG_CONFIG_HOME=$tmp/.config DCG_LOG=$tmp/audit.jsonl
unset DCG_POLICY

# each command with the exit status `dcg check` must give it (0 allowed, 2 denied):
# the demo fails when one is decided otherwise, so a README reader never sees a miss
commands=(
	'0|ls -la'
	'0|git status'
	'2|rm -rf ./build'
	'2|git reset --hard HEAD~3'
	'2|git push --force origin main'
	'2|cat ~/.ssh/id_rsa'
	'2|python3 -c "import os; os.system(\"rm -rf /tmp/data\")"'
	'0|echo "rm -rf / is a famous bad idea"'
)

echo "dcg demo: $("$DCG" --version), embedded default policy"
"$DCG" status | head -1
wrong=0
for wc in "${commands[@]}"; do
	want=${wc%%|*} c=${wc#*|}
	printf '\n$ dcg check %s\n' "'$c'"
	"$DCG" check "$c"
	rc=$?
	case $rc in
	0) echo "=> allowed (exit 0)" ;;
	2) echo "=> denied (exit 2)" ;;
	3) echo "=> ask (exit 3)" ;;
	*) echo "=> error (exit $rc)" ;;
	esac
	if [ "$rc" != "$want" ]; then
		echo "demo: WRONG: exit $want expected" >&2
		wrong=1
	fi
done

printf '\nThe same through the Claude Code hook (what the agent gets on stdout):\n'
printf '{"tool_name":"Bash","tool_input":{"command":"git reset --hard"},"cwd":"%s"}' "$tmp" |
	"$DCG" hook 2>/dev/null
printf '\nand for a Write to ~/.ssh/authorized_keys:\n'
printf '{"tool_name":"Write","tool_input":{"file_path":"%s/.ssh/authorized_keys","content":"x"},"cwd":"%s"}' \
	"$tmp" "$tmp" | "$DCG" hook 2>/dev/null
echo
[ "$wrong" = 0 ] || { echo "demo: a command above was decided otherwise than it must be" >&2; exit 1; }
exit 0
