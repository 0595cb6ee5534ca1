# bash completion for dcg. Installed as share/bash-completion/completions/dcg.

_dcg_rule_ids()
{
	dcg rules list 2>/dev/null | awk 'NR > 1 && $1 ~ /\./ { print $1 }'
}

_dcg()
{
	local cur prev cmd i
	COMPREPLY=()
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	local commands="hook check explain allow unallow allow-once trust untrust run sandbox rules
		status doctor packs log stats simulate install uninstall intent scan help version"
	local agents="claude codex gemini cursor pi all"

	cmd=
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		--policy) ((i++)) ;;
		-*) ;;
		*) cmd=${COMP_WORDS[i]}; break ;;
		esac
	done

	case $prev in
	--policy | --file | --settings | --against)
		COMPREPLY=($(compgen -f -- "$cur")); return ;;
	--cwd)
		COMPREPLY=($(compgen -d -- "$cur")); return ;;
	--agent)
		COMPREPLY=($(compgen -W "$agents" -- "$cur")); return ;;
	--tool)
		COMPREPLY=($(compgen -W "Read Write Edit MultiEdit NotebookEdit Glob Grep LS" -- "$cur"))
		return ;;
	--color)
		COMPREPLY=($(compgen -W "auto always never" -- "$cur")); return ;;
	--decision)
		COMPREPLY=($(compgen -W "deny ask warn log allow" -- "$cur")); return ;;
	--rule)
		COMPREPLY=($(compgen -W "$(_dcg_rule_ids)" -- "$cur")); return ;;
	--format)
		COMPREPLY=($(compgen -W "text json sarif" -- "$cur")); return ;;
	--fail-on)
		COMPREPLY=($(compgen -W "deny ask warn never" -- "$cur")); return ;;
	--diff)
		COMPREPLY=($(compgen -W "HEAD main origin/main" -- "$cur")); return ;;
	esac

	if [ -z "$cmd" ]; then
		COMPREPLY=($(compgen -W "$commands --policy --help --version" -- "$cur"))
		return
	fi

	local opts=
	case $cmd in
	hook) opts="--agent --policy" ;;
	check) opts="--json --cwd --tool --policy" ;;
	explain) opts="--json --cwd --policy" ;;
	allow) opts="-r --reason --path --expires --project --user --file --list --json --policy" ;;
	unallow) opts="--path --project --user --file --policy" ;;
	allow-once) opts="--for --uses --dry-run --list --json --revoke --all" ;;
	simulate)
		case $cur in
		-*) opts="--policy --against --json" ;;
		*) COMPREPLY=($(compgen -f -- "$cur")); return ;;
		esac ;;
	run) opts="--intent --policy --" ;;
	sandbox) opts="--intent --no-preload --policy --" ;;
	rules)
		if [ "$prev" = rules ]; then
			COMPREPLY=($(compgen -W "list lint" -- "$cur")); return
		fi
		opts="--json --policy" ;;
	status | doctor | packs) opts="--json --policy" ;;
	log) opts="--json --last --since --rule --agent --decision --observed --color" ;;
	stats) opts="--json --since --suggest --color" ;;
	install) opts="--agent --project --user --settings --managed --force" ;;
	trust | untrust) COMPREPLY=($(compgen -f -- "$cur")); return ;;
	uninstall) opts="--agent --project --user --settings --managed" ;;
	intent)
		if [ "$prev" = intent ]; then
			COMPREPLY=($(compgen -W "list select clear show" -- "$cur")); return
		fi
		opts="--json --cwd --session" ;;
	scan) opts="--staged --diff --all --format --fail-on --install-hook --force --policy" ;;
	help)
		COMPREPLY=($(compgen -W "$commands" -- "$cur")); return ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts --help" -- "$cur"))
	elif [ "$cmd" = allow ] || [ "$cmd" = unallow ]; then
		COMPREPLY=($(compgen -W "$(_dcg_rule_ids)" -- "$cur"))
	elif [ "$cmd" = check ] || [ "$cmd" = rules ] || [ "$cmd" = scan ]; then
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}
complete -F _dcg dcg
