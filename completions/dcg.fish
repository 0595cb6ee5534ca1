# fish completion for dcg. Installed as share/fish/vendor_completions.d/dcg.fish.

set -l dcg_commands hook check explain allow unallow allow-once trust untrust run sandbox rules status doctor packs log stats simulate install uninstall intent scan help version

function __dcg_rule_ids
    dcg rules list 2>/dev/null | awk 'NR > 1 && $1 ~ /\./ { print $1 }'
end

complete -c dcg -f
complete -c dcg -n "not __fish_seen_subcommand_from $dcg_commands" -l policy -r -F -d 'policy file read last'
complete -c dcg -n "not __fish_seen_subcommand_from $dcg_commands" -s h -l help -d usage
complete -c dcg -n "not __fish_seen_subcommand_from $dcg_commands" -s v -l version -d 'print the version'

complete -c dcg -n "not __fish_seen_subcommand_from $dcg_commands" -a hook -d 'read one agent tool call on stdin, answer it'
complete -c dcg -n "not __fish_seen_subcommand_from $dcg_commands" -a check -d 'decide one shell command or path'
complete -c dcg -n "not __fish_seen_subcommand_from $dcg_commands" -a explain -d 'every rule tried on a command'
complete -c dcg -n "not __fish_seen_subcommand_from $dcg_commands" -a allow -d 'add or list allowlist entries'
complete -c dcg -n "not __fish_seen_subcommand_from $dcg_commands" -a unallow -d 'remove an allowlist entry'
complete -c dcg -n "not __fish_seen_subcommand_from $dcg_commands" -a trust -d 'let a project policy file loosen rules'
complete -c dcg -n "not __fish_seen_subcommand_from $dcg_commands" -a untrust -d 'forget the trust in a project policy file'
complete -c dcg -n "not __fish_seen_subcommand_from $dcg_commands" -a run -d 'a shell under the preload guard'
complete -c dcg -n "not __fish_seen_subcommand_from $dcg_commands" -a sandbox -d 'CMD under the seccomp sandbox'
complete -c dcg -n "not __fish_seen_subcommand_from $dcg_commands" -a rules -d 'list the rules, or lint a file'
complete -c dcg -n "not __fish_seen_subcommand_from $dcg_commands" -a status -d 'policy files, registrations, last violation'
complete -c dcg -n "not __fish_seen_subcommand_from $dcg_commands" -a doctor -d 'check registrations, binary, policy'
complete -c dcg -n "not __fish_seen_subcommand_from $dcg_commands" -a packs -d 'every rule pack'
complete -c dcg -n "not __fish_seen_subcommand_from $dcg_commands" -a log -d 'the audit log'
complete -c dcg -n "not __fish_seen_subcommand_from $dcg_commands" -a stats -d 'refusals by rule and agent'
complete -c dcg -n "not __fish_seen_subcommand_from $dcg_commands" -a allow-once -d 'a code for one exact command'
complete -c dcg -n "not __fish_seen_subcommand_from $dcg_commands" -a simulate -d 'judge recorded tool calls; runs nothing'
complete -c dcg -n "__fish_seen_subcommand_from allow-once" -l for -x -d 'how long: 30m, 12h, 2d'
complete -c dcg -n "__fish_seen_subcommand_from allow-once" -l uses -x -d 'how many uses'
complete -c dcg -n "__fish_seen_subcommand_from allow-once" -l dry-run -d 'show what the code allows'
complete -c dcg -n "__fish_seen_subcommand_from allow-once" -l list -d 'the codes'
complete -c dcg -n "__fish_seen_subcommand_from allow-once" -l revoke -x -d 'take a code back'
complete -c dcg -n "__fish_seen_subcommand_from allow-once" -l all -d 'every code'
complete -c dcg -n "__fish_seen_subcommand_from simulate" -l against -r -F -d 'the policy to compare with'
complete -c dcg -n "__fish_seen_subcommand_from stats" -l suggest -d 'propose allow entries'
complete -c dcg -n "__fish_seen_subcommand_from log" -l observed -d 'observe mode only'
complete -c dcg -n "not __fish_seen_subcommand_from $dcg_commands" -a install -d 'register the hook with an agent'
complete -c dcg -n "not __fish_seen_subcommand_from $dcg_commands" -a uninstall -d 'remove the hook'
complete -c dcg -n "not __fish_seen_subcommand_from $dcg_commands" -a intent -d 'the active intent'
complete -c dcg -n "not __fish_seen_subcommand_from $dcg_commands" -a scan -d 'judge the commands files run later'
complete -c dcg -n "not __fish_seen_subcommand_from $dcg_commands" -a help -d 'help on a command'
complete -c dcg -n "not __fish_seen_subcommand_from $dcg_commands" -a version -d 'print the version'

complete -c dcg -n "__fish_seen_subcommand_from help" -a "$dcg_commands"
complete -c dcg -n "__fish_seen_subcommand_from $dcg_commands" -s h -l help -d usage
complete -c dcg -n "__fish_seen_subcommand_from status doctor packs rules log stats check explain allow intent" -l json -d 'JSON output'
complete -c dcg -n "__fish_seen_subcommand_from hook install uninstall log" -l agent -x -a 'claude codex gemini cursor pi all'
complete -c dcg -n "__fish_seen_subcommand_from check" -l tool -x -a 'Read Write Edit MultiEdit NotebookEdit Glob Grep LS'
complete -c dcg -n "__fish_seen_subcommand_from check explain intent" -l cwd -x -a '(__fish_complete_directories)'
complete -c dcg -n "__fish_seen_subcommand_from allow unallow" -a '(__dcg_rule_ids)'
complete -c dcg -n "__fish_seen_subcommand_from allow" -s r -l reason -x -d reason
complete -c dcg -n "__fish_seen_subcommand_from allow unallow" -l path -x -d 'only under GLOB'
complete -c dcg -n "__fish_seen_subcommand_from allow" -l expires -x -d YYYY-MM-DD
complete -c dcg -n "__fish_seen_subcommand_from allow" -l list -d 'list the entries'
complete -c dcg -n "__fish_seen_subcommand_from allow unallow" -l project -d 'the project file'
complete -c dcg -n "__fish_seen_subcommand_from allow unallow" -l user -d 'the user file'
complete -c dcg -n "__fish_seen_subcommand_from allow unallow" -l file -r -F
complete -c dcg -n "__fish_seen_subcommand_from install uninstall" -l project -d 'project settings'
complete -c dcg -n "__fish_seen_subcommand_from install uninstall" -l user -d 'user settings'
complete -c dcg -n "__fish_seen_subcommand_from install uninstall" -l settings -r -F
complete -c dcg -n "__fish_seen_subcommand_from install uninstall" -l managed -d 'managed settings (Claude Code)'
complete -c dcg -n "__fish_seen_subcommand_from install" -l force -d 'register a binary in a temporary or build folder'
complete -c dcg -n "__fish_seen_subcommand_from trust untrust" -F
complete -c dcg -n "__fish_seen_subcommand_from rules" -a 'list lint'
complete -c dcg -n "__fish_seen_subcommand_from intent" -a 'list select clear show'
complete -c dcg -n "__fish_seen_subcommand_from log" -l last -x
complete -c dcg -n "__fish_seen_subcommand_from log stats" -l since -x
complete -c dcg -n "__fish_seen_subcommand_from log" -l rule -x -a '(__dcg_rule_ids)'
complete -c dcg -n "__fish_seen_subcommand_from log" -l decision -x -a 'deny ask warn log allow'
complete -c dcg -n "__fish_seen_subcommand_from log stats" -l color -x -a 'auto always never'
complete -c dcg -n "__fish_seen_subcommand_from run sandbox" -l intent -x
complete -c dcg -n "__fish_seen_subcommand_from sandbox" -l no-preload
complete -c dcg -n "__fish_seen_subcommand_from scan" -F
complete -c dcg -n "__fish_seen_subcommand_from scan" -l staged -d 'the files staged, as the index holds them'
complete -c dcg -n "__fish_seen_subcommand_from scan" -l diff -x -d 'only lines changed since REV'
complete -c dcg -n "__fish_seen_subcommand_from scan" -l all -d 'untracked files too'
complete -c dcg -n "__fish_seen_subcommand_from scan" -l format -x -a 'text json sarif'
complete -c dcg -n "__fish_seen_subcommand_from scan" -l fail-on -x -a 'deny ask warn never'
complete -c dcg -n "__fish_seen_subcommand_from scan" -l install-hook -d 'write .git/hooks/pre-commit'
complete -c dcg -n "__fish_seen_subcommand_from scan" -l force -d "replace a hook that is not dcg's"
