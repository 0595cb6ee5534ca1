#!/usr/bin/env python3
# unknown.py - writes policy/packs/unknown.yaml: the rules for CLIs dcg has no pack for,
# with the list of the tools it does know, from the command table (policy/shell_cmds.c),
# the global options table (policy/shell_gopts.c), the first word of every example of
# every pack, and the package managers, build tools, editors and local VM tools below.
# Run it from the repository root after adding a pack or a command row:
#   python3 policy/gen/unknown.py
# test_packs fails when an example of another pack reaches these rules.
import glob
import re

names = set()
src = open('policy/shell_cmds.c').read()
start = src.index('const struct sh_cmdspec sh_cmds[] = {')
for m in re.finditer(r'^\s*\{"([^"]+)",', src[start:], re.M):
    names.add(m.group(1))
g = open('policy/shell_gopts.c').read()
for m in re.finditer(r'^\s*"([a-z][\w.-]*)\\0"$', g, re.M):
    names.add(m.group(1))
def first_word(cmd):
    for w in cmd.split():
        if w in ('sudo', 'env', 'doas', 'time', 'nice', 'command', 'exec', 'then', '!') or re.match(r'^[A-Z_]+=', w):
            continue
        w = w.split('/')[-1]
        return w
    return None
for p in glob.glob('policy/packs/*.yaml'):
    if p.endswith('unknown.yaml'): continue
    for line in open(p):
        m = re.match(r"\s+(stop|pass): \[(.*)\]\s*$", line)
        if not m: continue
        for item in re.findall(r"'((?:[^']|'')*)'|\"((?:[^\"\\]|\\.)*)\"", m.group(2)):
            cmd = (item[0] or item[1]).replace("''", "'")
            fw = first_word(cmd)
            if fw and re.match(r'^[a-z][\w.+-]*$', fw):
                names.add(fw)
curated = '''dcg apt apt-get aptitude apt-cache dpkg rpm yum dnf zypper pacman yay paru apk brew port snap flatpak
nix nix-env nix-store nix-collect-garbage guix npm npx pnpm pnpx yarn bun bunx deno pip pip3 pipx conda mamba micromamba
poetry uv uvx pdm hatch rye cargo rustup go gem bundle bundler composer mix rebar3 dotnet nuget mvn mvnw gradle gradlew sbt
lein cabal stack ghcup opam cpan cpanm pyenv rbenv nodenv nvm fnm volta asdf mise sdk make gmake cmake ninja bazel bazelisk
meson just task invoke tox nox pre-commit husky lefthook code vim nvim vi emacs nano tmux screen systemctl journalctl service
launchctl vagrant minikube kind k3d k3s multipass colima limactl lima orbctl podman-machine ollama hub tig lazygit direnv
jq yq sops age gpg gpg2 ssh-add ssh-keygen python python2 python3 node nodejs ruby perl php java javac kotlin scala swift
swiftc rustc gcc g++ clang cc ld pytest jest vitest mocha rspec phpunit tsc eslint prettier black ruff mypy flake8 isort
webpack vite rollup esbuild turbo nx lerna changeset docker-credential-helper skaffold tilt devspace garden telepresence'''.split()
names.update(curated)
names = {n for n in names if re.match(r'^[a-z][\w.+-]*$', n)}
# a name the regex reads: escape dots and plus
def esc(n): return re.sub(r'([.+])', r'\\\1', n)


def trie(words, depth):
    """An alternation of words as a regex, grouped by their first characters (two
    levels), so that PCRE2 tries only the names that start like the command."""
    if depth == 2 or len(words) < 4:
        return '|'.join(esc(w) for w in sorted(words))
    groups = {}
    for w in words:
        groups.setdefault(w[:1], []).append(w[1:])
    alts = []
    for c in sorted(groups):
        if c == '':
            alts.append('')
            continue
        alts.append(esc(c) + '(?:' + trie(groups[c], depth + 1) + ')')
    return '|'.join(alts)


alt = trie(sorted(names), 0)
verbs = 'delete|destroy|drop|purge|prune|wipe|erase|revoke|terminate|deregister|nuke|obliterate'
pat1 = r"^(?!(?:%s)(?:\s|$))[a-z][\w.+-]*(?:\s+(?:-[\w-]+(?:=\S*)?|[a-z][\w-]*)){0,3}?[\s:]\s*(?:%s)(?:-[\w-]+)?(?:\s+-[\w-]+(?:=\S*)?)*\s+(?:[^\s-]|--all(?:\s|$))" % (alt, verbs)
pat2 = r"^(?!(?:%s)(?:\s|$))[a-z][\w.+-]*(?:\s+(?:-[\w-]+(?:=\S*)?|[a-z][\w-]*)){0,3}?[\s:]\s*(?:reset|uninstall)\b(?=.*\s(?:--force|--hard|--purge|--all)(?:\s|$))" % (alt,)
def q(s): return "'" + s.replace("'", "''") + "'"
out = '''# unknown: a CLI dcg has no pack for, asked to delete, destroy, drop, purge, prune, wipe,
# erase, revoke, terminate or deregister a named resource through its subcommand (TOOL
# VERB NAME, TOOL NOUN VERB NAME, TOOL NOUN:VERB NAME, TOOL NOUN VERB-NOUN NAME), or to
# reset or uninstall with --force, --hard, --purge or --all. The tool's own pack, when it
# has one, knows better: every program the analyser knows (its command table), every
# tool named in a pack's examples, and the package managers, build tools, editors and
# local VM tools whose routine work uses these words (npm prune, vagrant destroy) are
# left out by the list below. The list is made by policy/gen/unknown.py from those
# sources; test_packs checks that no pack's example and no allowed corpus row of a
# known tool reaches these rules.
#
# On by default, as an ask: the name of the verb is all dcg knows, and the user knows
# what the tool is; a refusal would be a guess.
rules:
  - id: unknown.destructive_subcommand
    pattern: %s
    reason: a tool dcg has no rules for is asked to delete, destroy, drop, purge or revoke something by name
    severity: high
    ask: true
    suggestions: ['Look at what the tool would remove first (its list, show or get command)', 'Ask the user to add a rule or an allow entry for this tool']
    examples:
      stop: ['mytool delete prod-db', 'acmectl cluster destroy prod', 'fooctl --env prod users purge inactive', 'ctl apps:destroy web', 'svc-admin tenant wipe acme', 'netbox-cli device delete 12', 'xyz project delete-forever p1', 'tool keys revoke --all', 'coolify app delete 3', 'render services delete srv-123']
      pass: ['mytool list', 'mytool delete', 'acmectl cluster describe prod', 'npm prune', 'vagrant destroy -f', 'kind delete cluster', 'git worktree prune', 'pip uninstall requests', 'brew uninstall wget', 'grep -r delete src', 'echo drop table', 'python manage.py migrate', 'make clean', 'minikube delete', 'docker image prune -f']
  - id: unknown.forced_reset
    pattern: %s
    reason: a tool dcg has no rules for is asked to reset or uninstall with force or purge
    severity: high
    ask: true
    suggestions: ['Look at what the tool would reset first']
    examples:
      stop: ['acmectl cluster reset --force', 'agentd uninstall --purge', 'fooctl db reset --hard']
      pass: ['acmectl cluster reset', 'apt-get purge nginx', 'npm uninstall lodash', 'pip uninstall -y requests', 'git reset --hard']
''' % (q(pat1), q(pat2))
open('policy/packs/unknown.yaml', 'w').write(out)
print("policy/packs/unknown.yaml: %d known tools" % len(names))
