#!/bin/bash
# The doors a dynamically linked program has through libc, each as a case that does
# damage without dcg and none under dcg run and dcg sandbox (with and without the
# preload): ctypes on libc's own
# handle (dlsym), syscall() numbers (fchmodat2, unlinkat), bind() of a Unix socket,
# unshare + mount hiding the preload, a working directory deeper than PATH_MAX. The
# protected folder is compared name for name, inode for inode, byte for byte.
set -u
: "${BUILD:=build}"
: "${TMPDIR_TEST:=$(mktemp -d)}"
ROOT=$PWD
DCG=${DCG_BIN:-$ROOT/$BUILD/dcg}
T=$TMPDIR_TEST
W=$T/ws
fail() { echo "FAIL: $*"; exit 1; }
export HOME=$T/home XDG_STATE_HOME=$T/home/.local/state XDG_CONFIG_HOME=$T/home/.config
unset DCG_POLICY LD_PRELOAD DCG_LOG
mkdir -p "$HOME"
command -v python3 >/dev/null || { echo "python3 missing"; exit 77; }

prepare() {
	rm -rf "$W"
	mkdir -p "$W/ro" "$W/free"
	printf 'read only data\n' >"$W/ro/f"
	chmod 644 "$W/ro/f"
	printf "readOnlyPaths: ['%s/ro/']\n" "$W" >"$T/policy.yaml"
}
fingerprint() {
	(cd "$W" && find ro -printf '%p %i %s %m %y\n' | sort && find ro -type f -exec sha256sum {} +)
}

# A working directory deeper than PATH_MAX: getcwd() fails, so a relative path
# cannot be placed; it must be refused, not judged against the policy root.
cat >"$T/deep.py" <<'PY'
import os
os.chdir("free")
for i in range(50):
    os.mkdir("d" * 100)
    os.chdir("d" * 100)
os.unlink("../" * 51 + "ro/f")
PY
export T

# posix_spawn's file actions: after addchdir_np, a relative open happens in the new
# folder, inside glibc's child where no wrapper runs.
cat >"$T/spawn.c" <<'C'
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
int main(void)
{
	posix_spawn_file_actions_t fa;
	char *argv[] = {"true", 0};
	pid_t pid;
	int st;

	posix_spawn_file_actions_init(&fa);
	if (posix_spawn_file_actions_addchdir_np(&fa, "ro") ||
	    posix_spawn_file_actions_addopen(&fa, 1, "f", O_WRONLY | O_TRUNC, 0))
		return 2;
	if (posix_spawn(&pid, "/bin/true", &fa, 0, argv, 0))
		return 3;
	waitpid(pid, &st, 0);
	posix_spawn_file_actions_destroy(&fa);
	return 0;
}
C
cc -O2 -o "$T/spawn" "$T/spawn.c" || fail "cannot build the posix_spawn case"

# A check-then-call race: one thread flips a symlink between a free file and the
# protected one while another opens it for writing, 20,000 times.
cat >"$T/flip.c" <<'C'
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
static volatile int done;
static void *flip(void *arg)
{
	(void)arg;
	while (!done) {
		symlink("free/x", "free/l.tmp"); rename("free/l.tmp", "free/l");
		symlink("../ro/f", "free/l.tmp"); rename("free/l.tmp", "free/l");
	}
	return NULL;
}
int main(void)
{
	pthread_t t;
	close(open("free/x", O_WRONLY | O_CREAT, 0644));
	pthread_create(&t, NULL, flip, NULL);
	for (int i = 0; i < 20000; i++) {
		int fd = open("free/l", O_WRONLY | O_TRUNC);
		if (fd >= 0)
			close(fd);
	}
	done = 1;
	pthread_join(t, NULL);
	return 0;
}
C
cc -O2 -pthread -o "$T/flip" "$T/flip.c" || fail "cannot build the race case"

# name|command (run in $W by bash)
cat >"$T/cases" <<'CASES'
ctypes_unlink|python3 -c 'import ctypes; ctypes.CDLL("libc.so.6").unlink(b"ro/f")'
ctypes_dlsym_syscall_unlinkat|python3 -c 'import ctypes; ctypes.CDLL("libc.so.6").syscall(263, -100, b"ro/f", 0)'
syscall_fchmodat2|python3 -c 'import ctypes; ctypes.CDLL(None).syscall(452, -100, b"ro/f", 0o600, 0)'
bind_unix_socket|python3 -c 'import socket; socket.socket(socket.AF_UNIX).bind("ro/sock")'
unshare_mount_over_preload|unshare -rm sh -c 'for d in $(printf %s "$LD_PRELOAD" | tr ": " "\n" | xargs -r -n1 dirname); do mount -t tmpfs none "$d"; done; rm -f ro/f'
cwd_deeper_than_path_max|python3 "$T/deep.py"
posix_spawn_addchdir_then_open|"$T/spawn"
symlink_flipped_between_check_and_open|"$T/flip"
CASES

sandbox_ok=1
if ! out=$("$DCG" sandbox -- /bin/true 2>&1); then
	case $out in
	*"without protection"*) echo "no dcg sandbox here: $out"; sandbox_ok=0 ;;
	*) fail "dcg sandbox -- /bin/true failed: $out" ;;
	esac
fi

while IFS='|' read -r name cmd; do
	[ -n "$name" ] || continue
	# without dcg: the door does damage (else the case proves nothing here)
	prepare
	before=$(fingerprint)
	(cd "$W" && LD_PRELOAD= bash -c "$cmd") >/dev/null 2>&1
	if [ "$(fingerprint)" = "$before" ]; then
		echo "SKIP $name: no damage without dcg on this machine"
		continue
	fi
	# the supervisor alone too (--no-preload): what it sees of each door
	for layer in run sandbox sandbox-no-preload; do
		[ $layer != run ] && [ $sandbox_ok = 0 ] && continue
		args=($layer)
		[ $layer = sandbox-no-preload ] && args=(sandbox --no-preload)
		prepare
		before=$(fingerprint)
		(cd "$W" && "$DCG" "${args[@]}" --policy "$T/policy.yaml" -- bash -c "$cmd") >"$T/out" 2>&1
		after=$(fingerprint)
		[ "$after" = "$before" ] || { cat "$T/out"; diff <(echo "$before") <(echo "$after"); fail "$name: damage under dcg $layer"; }
		# (the supervisor alone cannot even make the deep folders: it answers
		# ENAMETOOLONG before any refusal)
		# (a lost race is refused quietly: the open fails with ELOOP, then EACCES
		# without a line when the link was never seen pointing at ro/)
		[ "$layer.$name" = sandbox-no-preload.cwd_deeper_than_path_max ] ||
			[ "$name" = symlink_flipped_between_check_and_open ] ||
			grep -q '^dcg: blocked' "$T/out" || { cat "$T/out"; fail "$name: no refusal line under dcg $layer"; }
		echo "ok $name: dcg $layer"
	done
done <"$T/cases"
