# lib.sh - sourced by the integration scripts that need it (run.sh runs test_*.sh only):
# the common set-up. BUILD and TMPDIR_TEST come from run.sh (or defaults when a script
# runs alone); HOME, the XDG folders and the audit log lie in the test's own folder T;
# no policy or preload of the caller leaks in. fail MESSAGE ends the script.
set -u
: "${BUILD:=build}"
: "${TMPDIR_TEST:=$(mktemp -d)}"
ROOT=$PWD
DCG=${DCG_BIN:-$ROOT/$BUILD/dcg}
T=$TMPDIR_TEST
fail() {
	echo "FAIL: $*"
	exit 1
}
export HOME=$T/home XDG_CONFIG_HOME=$T/home/.config XDG_STATE_HOME=$T/home/.local/state
export DCG_LOG=$T/audit.jsonl
unset DCG_POLICY LD_PRELOAD
mkdir -p "$HOME"

# sandbox_ok: 1 when dcg sandbox runs on this kernel, 0 (said once) when the kernel lacks
# what it needs; any other failure of `dcg sandbox -- /bin/true` ends the script.
sandbox_ok=1
if ! sandbox_out=$("$DCG" sandbox -- /bin/true 2>&1); then
	case $sandbox_out in
	*"without protection"*)
		echo "no dcg sandbox here: $sandbox_out"
		sandbox_ok=0
		;;
	*) fail "dcg sandbox -- /bin/true failed: $sandbox_out" ;;
	esac
fi
