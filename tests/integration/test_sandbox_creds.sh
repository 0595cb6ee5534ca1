#!/bin/bash
# The supervisor performs calls for its tracees, so it must act with their ids and
# umask, not its own: run as root, a tracee that dropped to nobody creates files owned
# by nobody with its umask, and cannot reach into a root-only folder through us.
. "$(dirname "$0")/sbx_progs/lib.sh"
[ "$(id -u)" = 0 ] || { echo "not root: ids cannot differ from the supervisor's"; exit 77; }
command -v setpriv >/dev/null || { echo "setpriv missing"; exit 77; }
sbx_workspace
sbx_require_kernel
sbx_build sbx_ops

mkdir -p "$W/private" "$W/pub"
chmod 700 "$W/private"
chmod 1777 "$W/pub"
chmod 755 "$W" "$TMPDIR_TEST" "$BIN"
echo "$SECRET" >"$W/private/f"
chmod 644 "$W/private/f"
cat >"$TMPDIR_TEST/as-nobody.sh" <<'SH'
umask 027
echo hi >pub/file
mkdir pub/dir
if cat private/f; then echo "READ PRIVATE"; fi
exit 0
SH
chmod 644 "$TMPDIR_TEST/as-nobody.sh"
(cd "$W" && sbx setpriv --reuid=nobody --regid=nogroup --clear-groups \
	/bin/bash "$TMPDIR_TEST/as-nobody.sh") >"$TMPDIR_TEST/out" 2>"$TMPDIR_TEST/err"
grep -q "READ PRIVATE" "$TMPDIR_TEST/out" && fail "nobody read a root-only folder through the supervisor"
[ "$(stat -c '%U %a' "$W/pub/file")" = "nobody 640" ] ||
	fail "pub/file: $(stat -c '%U %a' "$W/pub/file"), expected nobody 640"
[ "$(stat -c '%U %a' "$W/pub/dir")" = "nobody 750" ] ||
	fail "pub/dir: $(stat -c '%U %a' "$W/pub/dir"), expected nobody 750"
# A static program as nobody: refused by the policy as before.
(cd "$W" && sbx setpriv --reuid=nobody --regid=nogroup --clear-groups "$BIN/sbx_ops" read private/f) \
	>>"$TMPDIR_TEST/out" 2>>"$TMPDIR_TEST/err" && fail "static nobody read private/f"
# The supervisor takes its own ids back after every call, an open answered with a
# descriptor included: root's own open after nobody's still reads a root-only file.
echo root-only >"$W/private/mine"
chmod 600 "$W/private/mine"
(cd "$W" && sbx /bin/bash -c 'setpriv --reuid=nobody --regid=nogroup --clear-groups cat pub/file >/dev/null
	cat private/mine') >"$TMPDIR_TEST/mine" 2>>"$TMPDIR_TEST/err"
grep -q root-only "$TMPDIR_TEST/mine" || fail "root could not read its own file after a tracee as nobody opened one"
# A relative path is resolved from the working directory even when the caller could
# not reach that directory from the root any more (a folder above it made unsearchable
# after the cd): dcg sandbox run as nobody, whose tracees have its ids.
mkdir -p "$W/pub/up/in"
echo inside >"$W/pub/up/in/f"
chown -R nobody "$W/pub/up"
(cd "$W" && setpriv --reuid=nobody --regid=nogroup --clear-groups "${SANDBOX[@]}" \
	--policy "$W/policy.yaml" --no-preload -- /bin/sh -c \
	'cd pub/up/in && chmod 0 .. && cat f && echo made >g && cat g; chmod 755 ..') \
	>"$TMPDIR_TEST/up" 2>>"$TMPDIR_TEST/err"
[ "$(cat "$TMPDIR_TEST/up")" = "inside
made" ] || fail "relative paths under an unsearchable folder: $(cat "$TMPDIR_TEST/up")"
# The supervisor mirrors a tracee's ids once it changed them, however it did: a root
# process that only lowers its effective uid (setresuid, setreuid) or its fs uid
# (setfsuid) cannot read a root-only file through us; make's setresuid(-1, 0, -1), a
# no-op, changes nothing.
if command -v python3 >/dev/null; then
	for how in 'os.setresuid(-1, 65534, -1)' 'os.setreuid(-1, 65534)' \
		'ctypes.CDLL(None).setfsuid(65534)'; do
		(cd "$W" && "${SANDBOX[@]}" --policy "$W/policy.yaml" --no-preload -- python3 -c "import os, ctypes
$how
print(open('private/mine').read())") >"$TMPDIR_TEST/drop" 2>&1 &&
			fail "read a root-only file after $how: $(cat "$TMPDIR_TEST/drop")"
		grep -q "Permission denied" "$TMPDIR_TEST/drop" ||
			fail "after $how: $(cat "$TMPDIR_TEST/drop")"
	done
	(cd "$W" && "${SANDBOX[@]}" --policy "$W/policy.yaml" --no-preload -- python3 -c "import os
os.setresuid(-1, 0, -1)
print(open('private/mine').read())") >"$TMPDIR_TEST/drop" 2>&1 ||
		fail "root could not read its file after setresuid(-1, 0, -1): $(cat "$TMPDIR_TEST/drop")"
fi
sbx_assert_intact
sbx_assert_no_secret "$TMPDIR_TEST/out" "$TMPDIR_TEST/err"
echo ok
