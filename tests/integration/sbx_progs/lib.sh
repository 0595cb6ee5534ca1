# lib.sh - shared set-up of the sandbox integration tests (sourced).
# Builds the helper programs (static, so no LD_PRELOAD guard sees them), a workspace
# with a zero-access, a read-only and a no-delete tree, and fingerprints of them.
set -u
: "${BUILD:=build}"
: "${TMPDIR_TEST:=$(mktemp -d)}"
ROOT=$PWD
if [ -n "${SBX_BIN:-}" ]; then
	SANDBOX=("$SBX_BIN")
else
	SANDBOX=("${DCG_BIN:-$ROOT/$BUILD/dcg}" sandbox)
fi
W=$TMPDIR_TEST/ws
BIN=$TMPDIR_TEST/bin
export DCG_LOG=$TMPDIR_TEST/audit.jsonl
export XDG_CONFIG_HOME=$TMPDIR_TEST/config
export XDG_STATE_HOME=$TMPDIR_TEST/state
unset DCG_POLICY LD_PRELOAD
mkdir -p "$W" "$BIN" "$XDG_CONFIG_HOME"

fail() { echo "FAIL: $*"; exit 1; }

SECRET="sbx-secret-$RANDOM$RANDOM$RANDOM"

# The workspace: za/ zero-access, ro/ read-only, nd/ no-delete, scratch/ free.
sbx_workspace() {
	mkdir -p "$W/za/sub" "$W/ro/sub" "$W/nd/sub" "$W/scratch"
	echo "$SECRET" >"$W/za/key"
	echo "$SECRET-2" >"$W/za/sub/deep"
	printf 'read only data\n' >"$W/ro/f"
	printf 'more read only\n' >"$W/ro/sub/g"
	printf 'keep me\n' >"$W/nd/f"
	printf 'keep me too\n' >"$W/nd/sub/g"
	cat >"$W/policy.yaml" <<POL
zeroAccessPaths: ['$W/za/']
readOnlyPaths: ['$W/ro/']
noDeletePaths: ['$W/nd/']
POL
	sbx_fingerprint >"$TMPDIR_TEST/before"
	# Older than any session started from now on: a session starts one tick of the
	# kernel's coarse clock back (rt_session_now() in runtime/rt.h).
	sleep 0.05
}

# Names, inodes, sizes, modes and contents of the protected trees.
sbx_fingerprint() {
	(cd "$W" && find za ro nd -printf '%p %i %s %m %y\n' | sort &&
		find za ro nd -type f -print0 | sort -z | xargs -0 sha256sum)
}

# The protected data survived byte for byte, inode for inode.
sbx_assert_intact() {
	sbx_fingerprint >"$TMPDIR_TEST/after"
	diff -u "$TMPDIR_TEST/before" "$TMPDIR_TEST/after" || fail "protected trees changed: $*"
}

# No secret reached the given files.
sbx_assert_no_secret() {
	for f in "$@"; do
		if grep -q "$SECRET" "$f"; then fail "the secret reached $f"; fi
	done
}

# Compiles one helper from sbx_progs/ (static unless the second argument says dyn).
sbx_build() {
	local name=$1 kind=${2:-static} flags=(-O2 -pthread)
	[ "$kind" = static ] && flags+=(-static)
	cc "${flags[@]}" -o "$BIN/$name" "$ROOT/tests/integration/sbx_progs/$name.c" -ldl ||
		fail "cannot build $name"
}

# Runs the sandbox; exits 77 (skip) when the kernel lacks what it needs.
sbx() {
	"${SANDBOX[@]}" --policy "$W/policy.yaml" -- "$@"
}

sbx_require_kernel() {
	local out
	if ! out=$("${SANDBOX[@]}" --policy "$W/policy.yaml" -- /bin/true 2>&1); then
		case $out in
		*"without protection"*) echo "$out"; exit 77 ;;
		*) fail "dcg sandbox -- /bin/true failed: $out" ;;
		esac
	fi
}

# Expects the exit status $1 from the rest of the command line (run in the sandbox).
sbx_expect() {
	local want=$1 rc
	shift
	(cd "$W" && sbx "$@") >>"$TMPDIR_TEST/out" 2>>"$TMPDIR_TEST/err"
	rc=$?
	[ "$rc" = "$want" ] || fail "'$*' exited $rc, expected $want"
}
