#!/bin/bash
# Catastrophic targets are data (default.yaml's catastrophic: section): under both
# runtime layers a `runtime: paths` rule (rm -rf) leaves a command to the checks of
# each file it deletes, unless a word of the command is such a target. A policy file
# that adds a target makes `rm -rf` on it refused at the exec check; without it the
# same command runs (the folder is the session's to delete).
set -u
: "${BUILD:=build}"
: "${TMPDIR_TEST:=$(mktemp -d)}"
ROOT=$PWD
DCG=${DCG_BIN:-$ROOT/$BUILD/dcg}
T=$TMPDIR_TEST
fail() { echo "FAIL: $*"; exit 1; }
export HOME=$T/home XDG_CONFIG_HOME=$T/home/.config XDG_STATE_HOME=$T/home/.local/state
unset DCG_POLICY LD_PRELOAD DCG_LOG
mkdir -p "$HOME"

sandbox_ok=1
if ! out=$("$DCG" sandbox -- /bin/true 2>&1); then
	case $out in
	*"without protection"*) echo "no dcg sandbox here: $out"; sandbox_ok=0 ;;
	*) fail "dcg sandbox -- /bin/true failed: $out" ;;
	esac
fi

# A relative word: the folder lies under a temporary folder, where rm -rf of an
# absolute path is exempt from the rule whatever the target.
printf 'catastrophic: {words: [precious]}\n' >"$T/adds.yaml"
printf 'version: 1\n' >"$T/plain.yaml"
for layer in run sandbox; do
	[ $layer = sandbox ] && [ $sandbox_ok = 0 ] && continue
	w=$T/ws-$layer
	log=$XDG_STATE_HOME/dcg/audit.jsonl
	for policy in adds plain; do
		rm -rf "$w" "$log" && mkdir -p "$w/precious" && echo x >"$w/precious/f"
		(cd "$w" && "$DCG" $layer --policy "$T/$policy.yaml" -- bash -c 'rm -rf precious') \
			>"$T/$layer-$policy.out" 2>"$T/$layer-$policy.err"
		if [ $policy = adds ]; then
			[ -f "$w/precious/f" ] || fail "dcg $layer: rm -rf of an added target ran"
			# dcg run refuses rm's exec and says so; dcg sandbox already bash's (its
			# -c code is read) and logs it
			grep -q "^dcg: blocked exec of rm -rf precious: .*core.filesystem.rm_rf" \
				"$T/$layer-$policy.err" ||
				grep -q '"rule_id":"core.filesystem.rm_rf"' "$log" 2>/dev/null ||
				{ cat "$T/$layer-$policy.err"; fail "dcg $layer: no refusal said or logged"; }
		else
			[ ! -e "$w/precious" ] || { cat "$T/$layer-$policy.err"; fail "dcg $layer: rm -rf without the target was refused"; }
		fi
	done
	echo "dcg $layer: an added catastrophic target is refused at exec, the same command runs without it"
done
