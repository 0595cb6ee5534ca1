#!/bin/bash
# Runs later, at runtime: under dcg run (preload) and dcg sandbox (seccomp), with the
# embedded default policy and a home of the test's own, a script the hook never read
# (its targets come from a list file, so no exec check sees them) cannot plant what
# another program runs later: git hooks and config, shell start and exit files,
# session and service files, PATH shadows, Python start-up files, editor tasks, MCP
# and agent command files, package-manager configuration. Entries that ask are refused
# with no terminal (setsid). The places survive byte for byte, the refusal line says
# what would run, and git config of a key that runs a program is refused at exec.
# Ordinary work passes: git init, config user.name, commit, clone, writing sources,
# removing a hook, npm install with a prepare script.
set -u
BUILD=${BUILD:-build}
T=${TMPDIR_TEST:?}
DCG=${DCG_BIN:-$PWD/$BUILD/dcg}
[ -x "$DCG" ] || { echo "no $DCG"; exit 1; }
command -v setsid >/dev/null || { echo "no setsid: skipped"; exit 77; }
command -v git >/dev/null || { echo "no git: skipped"; exit 77; }
export HOME=$T/home XDG_CONFIG_HOME=$T/home/.config XDG_STATE_HOME=$T/home/.local/state
export DCG_LOG=$T/audit.jsonl DCG_SYSTEM_POLICY=$T/no-system.yaml
export XDG_RUNTIME_DIR=$T/run && mkdir -m 700 -p "$XDG_RUNTIME_DIR"
export GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@x GIT_COMMITTER_NAME=t \
	GIT_COMMITTER_EMAIL=t@x
unset DCG_POLICY LD_PRELOAD GIT_CONFIG_GLOBAL
P=$HOME/proj
fail=0
bad() { echo "FAIL: $*"; fail=1; }

mkdir -p "$P" && git -C "$P" init -q && git -C "$P" commit -q --allow-empty -m init ||
	{ echo "git init failed"; exit 1; }
places=(
	"$P/.git/hooks/pre-commit" "$P/.git/hooks/post-checkout" "$P/.git/hooks/pre-push"
	"$P/.git/hooks/applypatch-msg" "$P/.git/config" "$HOME/.gitconfig"
	"$HOME/.config/git/config" "$HOME/.bash_logout" "$HOME/.bash_aliases"
	"$HOME/.bashrc.d/evil.sh" "$HOME/.zlogin" "$HOME/.config/fish/conf.d/evil.fish"
	"$HOME/.config/fish/functions/ls.fish" "$HOME/.xprofile" "$HOME/.pam_environment"
	"$HOME/.config/environment.d/90-evil.conf" "$HOME/.config/systemd/user/evil.service"
	"$HOME/.config/systemd/user/evil.timer" "$HOME/.local/share/systemd/user/evil.service"
	"$HOME/.config/autostart/evil.desktop" "$HOME/.local/bin/git" "$HOME/bin/ls"
	"$P/.venv/lib/python3.12/site-packages/sitecustomize.py"
	"$HOME/.local/lib/python3.12/site-packages/evil.pth" "$P/.envrc"
	"$P/.vscode/tasks.json" "$P/.idea/runConfigurations/Run.xml" "$P/.mcp.json"
	"$HOME/.claude.json" "$P/.claude/commands/ship.md" "$P/.claude/agents/x.md"
	"$HOME/.codex/prompts/x.md" "$P/.npmrc" "$HOME/.npmrc" "$P/.yarnrc.yml"
	"$HOME/.config/pip/pip.conf" "$HOME/.cargo/config.toml" "$HOME/.bashrc"
)
ordinary=("$P/Makefile" "$P/src/main.c" "$P/.git/hooks/pre-commit.sample"
	"$HOME/.local/bin/mytool" "$P/.vscode/settings.json" "$P/package.json")
# half of the places exist (a hook installed, a ~/.gitconfig kept), half are new
i=0
for f in "${places[@]}" "${ordinary[@]}"; do
	mkdir -p "$(dirname "$f")"
	case $f in "$P/.git/config" | "$HOME/.gitconfig") ;; *)
		[ $((i % 2)) = 0 ] && echo "# kept $i" >"$f" ;;
	esac
	i=$((i + 1))
done
git config --global user.name kept && git -C "$P" config core.kept yes
printf '%s\n' "${places[@]}" >"$T/places.list"
printf '%s\n' "${ordinary[@]}" >"$T/ordinary.list"
echo "#!/bin/sh" >"$T/src.txt"
fingerprint() {
	for f in "${places[@]}"; do
		if [ -e "$f" ] || [ -L "$f" ]; then stat -c '%i %a %s' "$f" && sha256sum "$f"; else echo "absent $f"; fi
	done 2>&1
}
fingerprint >"$T/before"

# The writers: each reads its targets from a list, so only the runtime layers see them;
# one tool process runs them all (bash and coreutils, python, node) over the list.
cat >"$T/w.sh" <<'EOF'
lst=$1 src=$2 py=$3 node=$4
for m in redirect append tee cp mv install sed ln chmod touch; do
	while IFS= read -r p; do
		case $m in
		redirect) echo 'rm -rf ~' >"$p" ;;
		append) echo 'rm -rf ~' >>"$p" ;;
		tee) echo x | tee "$p" >/dev/null ;;
		cp) cp "$src" "$p" ;;
		mv) cp "$src" "$src.$$" && mv -f "$src.$$" "$p" ;;
		install) install -m 755 "$src" "$p" ;;
		sed) [ -f "$p" ] && [ ! -L "$p" ] && sed -i 's/kept/evil/' "$p" ;;
		ln) if [ -e "$p" ]; then false; else ln -s /bin/true "$p"; fi ;;
		chmod) [ -f "$p" ] && chmod 755 "$p" ;;
		touch) touch "$p" ;;
		esac 2>/dev/null && echo "WROTE $m $p"
	done <"$lst"
done
[ -n "$py" ] && "$py" "${0%/*}/w.py" "$lst" "$src"
[ -n "$node" ] && "$node" "${0%/*}/w.js" "$lst"
exit 0
EOF
cat >"$T/w.py" <<'EOF'
import os, sys
lst, src = sys.argv[1:3]
for m in ("open_w", "open_a", "replace", "os_open"):
    for p in open(lst).read().split():
        try:
            if m == "open_w":
                open(p, "w").write("import os\n")
            elif m == "open_a":
                open(p, "a").write("import os\n")
            elif m == "replace":
                tmp = src + ".py%d" % os.getpid()
                open(tmp, "w").write("x")
                os.replace(tmp, p)
            else:
                os.close(os.open(p, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o755))
            print("WROTE", m, p)
        except OSError:
            pass
EOF
cat >"$T/w.js" <<'EOF'
const fs = require("fs");
for (const m of ["write", "append"])
	for (const p of fs.readFileSync(process.argv[2], "utf8").split("\n").filter(Boolean)) {
		try {
			if (m === "write") fs.writeFileSync(p, "x");
			else fs.appendFileSync(p, "x");
			console.log("WROTE", m, p);
		} catch (e) {}
	}
EOF
py=$(command -v /usr/bin/python3 || command -v python3 || true)
node=$(command -v node || true)

layers=("run")
if "$DCG" sandbox -- /bin/true >/dev/null 2>&1; then
	layers+=("sandbox")
else
	echo "note: dcg sandbox cannot run here; only dcg run is checked"
fi

# the wrapped bash is the agent's own process; the writer is a tool process it starts
tool() { setsid "$DCG" "$1" -- /bin/bash -c '"$@"; exit $?' agent "${@:2}" </dev/null; }

cd "$P" || exit 1
for layer in "${layers[@]}"; do
	out=$(tool "$layer" /bin/bash "$T/w.sh" "$T/places.list" "$T/src.txt" "$py" "$node" \
		2>>"$T/err.$layer")
	[ -n "$out" ] && bad "$layer: planted: $out"
	# the control: the same writers write every ordinary file (ln only a new one)
	n=$(tool "$layer" /bin/bash "$T/w.sh" "$T/ordinary.list" "$T/src.txt" "$py" "$node" \
		2>/dev/null | grep -c WROTE)
	want=$((${#ordinary[@]} * 9))
	[ "$n" -ge "$want" ] || bad "$layer: wrote $n of at least $want ordinary writes"
	grep -q 'pre-commit runs at the next `git commit`' "$T/err.$layer" ||
		bad "$layer: the refusal line does not say what runs when"
	grep -q 'dcg: blocked .*\.bash_logout: .*runs-later.shell.bash_logout' "$T/err.$layer" ||
		bad "$layer: no refusal line for ~/.bash_logout"
done
fingerprint >"$T/after"
diff -u "$T/before" "$T/after" || bad "a place changed"

# git config of keys that run programs, from a script whose values come from a file:
# refused at exec in every scope; the hooks of a -c core.hooksPath never run. (Given in
# the environment, GIT_CONFIG_KEY_0=core.hooksPath, the exec check sees only git
# commit: the hooks then run inside the guard, as every process of the session does.)
mkdir -p "$T/h" && printf '#!/bin/sh\ntouch %s/hook-ran\n' "$T" >"$T/h/pre-commit" &&
	chmod +x "$T/h/pre-commit"
echo "$T/h" >"$T/hooks.dir"
cat >"$T/gc.sh" <<'EOF'
v=$(cat "$1")
git config core.fsmonitor "$v/fs.sh"
git config --global core.hooksPath "$v"
git config --local alias.up "!sh $v/x"
git config --file .git/config core.pager "sh $v/p"
git config --global credential.helper "!sh $v/c"
git config --global include.path "$v/evil.cfg"
git -c core.hooksPath="$v" commit -q --allow-empty -m x
exit 0
EOF
fingerprint >"$T/before"
for layer in "${layers[@]}"; do
	tool "$layer" /bin/bash "$T/gc.sh" "$T/hooks.dir" >/dev/null 2>>"$T/gc.$layer"
	[ -e "$T/hook-ran" ] && bad "$layer: a hook from -c core.hooksPath ran"
	for k in core.fsmonitor core.hookspath alias.up core.pager credential.helper include.path; do
		git config --get "$k" >/dev/null && bad "$layer: git config $k was set"
	done
	grep -q 'runs-later.git.config_fsmonitor' "$T/gc.$layer" ||
		bad "$layer: no refusal of git config core.fsmonitor"
	rm -f "$T/hook-ran"
done
fingerprint >"$T/after"
diff -u "$T/before" "$T/after" || bad "git config changed a place"

# ordinary work passes, in both layers
cat >"$T/ok.sh" <<'EOF'
set -e
d=$1
git init -q "$d" && cd "$d"
git config user.name Ada && git config user.email ada@x
git config --global user.name Ada
git config --get user.name >/dev/null && git config --list >/dev/null
git config core.fsmonitor false && git config alias.st status
git remote add origin https://example.com/x.git
echo 'all:' >Makefile && mkdir -p src && echo 'int x;' >src/x.c
git add -A && git commit -qm ok
git clone -q . ../"$(basename "$d")-clone"
echo '#!/bin/sh' >.git/hooks/pre-commit.sample
rm -f "$2"
echo ok
EOF
for layer in "${layers[@]}"; do
	echo 'exit 0' >"$P/.git/hooks/post-merge"
	out=$(tool "$layer" /bin/bash "$T/ok.sh" "$T/work-$layer" "$P/.git/hooks/post-merge" 2>&1)
	[ "$out" = ok ] || bad "$layer: ordinary git work refused: $out"
	[ -e "$P/.git/hooks/post-merge" ] && bad "$layer: removing a hook was refused"
done
if command -v npm >/dev/null; then
	for layer in "${layers[@]}"; do
		d=$T/npm-$layer && mkdir -p "$d"
		cat >"$d/package.json" <<'EOF'
{"name": "x", "version": "1.0.0",
 "scripts": {"prepare": "node -e \"require('fs').writeFileSync('prepared', 'ok')\""}}
EOF
		(cd "$d" && tool "$layer" npm install --offline --no-audit --no-fund >/dev/null 2>&1) ||
			bad "$layer: npm install with a prepare script failed"
		[ -e "$d/prepared" ] || bad "$layer: the prepare script did not run"
	done
fi
[ $fail = 0 ] && echo ok
exit $fail
