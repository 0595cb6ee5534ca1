#!/bin/bash
# The shell completions (completions/): each parses in its shell, and each completes a
# command name and an agent. Commands the completions list must be commands dcg knows.
# zsh and fish are optional: their checks are skipped, saying so, when absent.
set -u
BUILD=${BUILD:-build}
DCG=${DCG_BIN:-$PWD/$BUILD/dcg}
fail=0
bad() { echo "FAIL: $*"; fail=1; }
export PATH="$(dirname "$DCG"):$PATH"

bash -n completions/dcg.bash || bad "bash: completions/dcg.bash does not parse"
reply=$(bash -c '
	source completions/dcg.bash
	COMP_WORDS=(dcg al); COMP_CWORD=1; _dcg; printf "%s\n" "${COMPREPLY[@]}"
	echo ---
	COMP_WORDS=(dcg install --agent co); COMP_CWORD=3; _dcg; printf "%s\n" "${COMPREPLY[@]}"')
grep -qx allow <<<"$reply" || bad "bash: 'dcg al' does not complete to allow: $reply"
grep -qx codex <<<"$reply" || bad "bash: 'dcg install --agent co' does not complete to codex: $reply"

# every command the bash completion offers is one dcg answers --help for
cmds=$(bash -c 'source completions/dcg.bash; COMP_WORDS=(dcg ""); COMP_CWORD=1; _dcg
	printf "%s\n" "${COMPREPLY[@]}"')
[ -n "$cmds" ] || bad "bash: no command offered"
for c in $cmds; do
	case $c in -*) continue ;; esac # global options
	"$DCG" help "$c" >/dev/null 2>&1 || "$DCG" "$c" --help >/dev/null 2>&1 ||
		bad "completion offers '$c', which dcg does not know"
done

if command -v zsh >/dev/null; then
	zsh -n completions/_dcg || bad "zsh: completions/_dcg does not parse"
	zsh -fc 'fpath=(completions $fpath); autoload -Uz compinit; compinit -u -d /dev/null
		autoload -Uz _dcg && whence -w _dcg' >/dev/null 2>&1 || bad "zsh: _dcg does not load"
else
	echo "SKIP: zsh absent: completions/_dcg not checked"
fi
if command -v fish >/dev/null; then
	fish -n completions/dcg.fish || bad "fish: completions/dcg.fish does not parse"
	out=$(HOME=${TMPDIR_TEST:-/tmp} fish -c 'source completions/dcg.fish; complete -C "dcg al"' 2>&1)
	grep -q '^allow' <<<"$out" || bad "fish: 'dcg al' does not complete to allow: $out"
else
	echo "SKIP: fish absent: completions/dcg.fish not checked"
fi
[ $fail = 0 ] && echo ok
exit $fail
