#!/bin/bash
# The switch files at runtime: under dcg run (preload) and dcg sandbox (seccomp), with
# the embedded default policy only, the processes an agent's tools start cannot write,
# replace or delete any agent's hook settings or dcg's own policy and state, whatever
# program does it (shell redirections, coreutils, sed -i, python3, node); they can
# still read them. The files survive byte for byte.
set -u
BUILD=${BUILD:-build}
T=${TMPDIR_TEST:?}
DCG=${DCG_BIN:-$PWD/$BUILD/dcg}
[ -x "$DCG" ] || { echo "no $DCG"; exit 1; }
export HOME=$T/home XDG_CONFIG_HOME=$T/home/.config XDG_STATE_HOME=$T/home/.local/state
export DCG_LOG=$T/audit.jsonl DCG_SYSTEM_POLICY=$T/no-system.yaml
export XDG_RUNTIME_DIR=$T/run && mkdir -m 700 -p "$XDG_RUNTIME_DIR"
unset DCG_POLICY LD_PRELOAD
P=$HOME/proj
fail=0
bad() { echo "FAIL: $*"; fail=1; }

files=(
	"$HOME/.claude/settings.json" "$HOME/.claude/settings.local.json"
	"$P/.claude/settings.json" "$P/.claude/settings.local.json"
	"$HOME/.codex/hooks.json" "$HOME/.codex/config.toml" "$P/.codex/hooks.json"
	"$HOME/.gemini/settings.json" "$P/.gemini/settings.json"
	"$HOME/.cursor/hooks.json" "$P/.cursor/hooks.json"
	"$HOME/.pi/agent/extensions/dcg-damage-control.ts" "$P/.pi/extensions/dcg-damage-control.ts"
	"$HOME/.config/dcg/policy.yaml" "$P/.dcg/policy.yaml"
)
C='{"hooks": "dcg"}' # valid as JSON and as a policy file (a flow mapping)
for f in "${files[@]}"; do
	mkdir -p "$(dirname "$f")" && echo "$C" >"$f"
done
for f in "$HOME/.config/dcg/policy.yaml" "$P/.dcg/policy.yaml"; do
	echo "readOnlyPaths: [keep.txt]" >"$f"
done
mkdir -p "$XDG_STATE_HOME/dcg" && echo "0000 x" >"$XDG_STATE_HOME/dcg/trusted"
files+=("$XDG_STATE_HOME/dcg/trusted")
fingerprint() { for f in "${files[@]}"; do ls -i "$f" && sha256sum "$f"; done 2>&1; }
fingerprint >"$T/before"

have_node=0
command -v node >/dev/null && have_node=1

layers=("run")
if "$DCG" sandbox -- /bin/true >/dev/null 2>&1; then
	layers+=("sandbox")
else
	echo "note: dcg sandbox cannot run here; only dcg run is checked"
fi

cd "$P" || exit 1
for layer in "${layers[@]}"; do
	for f in "${files[@]}"; do
		cases=(
			"echo '{\"disableAllHooks\":true}' > '$f'"
			"echo x >> '$f'"
			"echo x | tee '$f'"
			"sed -i s/dcg/off/ '$f'"
			"cp /etc/hostname '$f'"
			"rm -f '$f'"
			"mv '$f' '$f.bak'"
			"ln -sf /dev/null '$f'"
			"truncate -s 0 '$f'"
			"python3 -c 'open(\"$f\",\"w\").write(\"{}\")'"
			"python3 -c 'import os; os.replace(\"/etc/hostname\", \"$f\")'"
		)
		[ $have_node = 1 ] && cases+=("node -e 'require(\"fs\").writeFileSync(\"$f\",\"{}\")'")
		for c in "${cases[@]}"; do
			# the wrapped bash is the agent's own process (it may keep its own
			# settings); the inner bash is a tool process it starts, which may not
			"$DCG" $layer -- /bin/bash -c '/bin/bash -c "$1"; exit $?' tool "$c" \
				>/dev/null 2>>"$T/err" &&
				bad "$layer: not refused: $c"
		done
		out=$("$DCG" $layer -- /bin/cat "$f" 2>"$T/rerr") || bad "$layer: cannot read $f: $(cat "$T/rerr")"
		[ "$out" = "$(cat "$f")" ] || bad "$layer: read of $f gave: $out"
	done
	# a new pi extension is refused too: any extension can switch the guard off
	"$DCG" $layer -- /bin/bash -c '/bin/bash -c "$1"; exit $?' tool \
		"echo x > '$P/.pi/extensions/evil.ts'" >/dev/null 2>&1 &&
		bad "$layer: a new pi extension was written"
	[ -e "$P/.pi/extensions/evil.ts" ] && bad "$layer: evil.ts exists"
done
fingerprint >"$T/after"
diff -u "$T/before" "$T/after" || bad "switch files changed"
[ $fail = 0 ] && echo ok
exit $fail
