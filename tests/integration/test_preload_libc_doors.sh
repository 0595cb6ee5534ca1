#!/bin/bash
# Each class of door preload/libc.tsv lists, used by a real program the way a program
# would do damage: libc's private and old names (C through dlvsym, Python ctypes), a
# compat symbol version, the internal listers (glob, nftw, ftw, fts, wordexp), the
# utmp and mount-table writers, wordexp's and system's shells with LD_PRELOAD dropped,
# dlopen of a zero-access library, LD_PRELOAD with libc ahead of the guard (Perl), the
# guard's variables pointed elsewhere in-process, and the loader's own variables. Every
# case does its damage without dcg; under dcg run the read-only and no-delete folders
# are byte for byte, inode for inode the same and nothing of the zero-access folder
# reaches the output.
set -u
. tests/integration/lib.sh
PROG=$ROOT/$BUILD/progs/libc_doors
W=$T/ws
[ -x "$PROG" ] || fail "no $PROG (make tests)"
command -v python3 >/dev/null || { echo "python3 missing"; exit 77; }
command -v perl >/dev/null || { echo "perl missing"; exit 77; }
CC=${CC:-cc}

printf "readOnlyPaths: ['%s/ro/']\nnoDeletePaths: ['%s/nd/']\nzeroAccessPaths: ['%s/za/']\n" \
	"$W" "$W" "$W" >"$T/policy.yaml"
prepare() {
	rm -rf "$W"
	mkdir -p "$W/ro" "$W/nd" "$W/za/sub" "$W/free"
	printf 'read only data\n' >"$W/ro/f"
	printf 'keep me\n' >"$W/nd/g"
	printf 'TOPSECRET\n' >"$W/za/secret"
	printf 'x\n' >"$W/za/sub/hidden-name"
	if [ -e "$T/lib.so" ]; then cp "$T/lib.so" "$W/za/lib.so"; fi
	printf 'module UTF-8// FOO// lib 1\n' >"$W/za/gconv-modules"
}
fingerprint() {
	(cd "$W" && find ro nd -printf '%p %i %s %m %y\n' | sort && find ro nd -type f -exec sha256sum {} +)
}
# damaged OUT: whether the protected folders changed or the output (file OUT) shows
# the zero-access folder (a name in it, its content) or the library ran.
damaged() {
	[ "$(fingerprint)" != "$before" ] || grep -Eq 'TOPSECRET|secret|hidden-name|lib\.so' "$1" ||
		[ -e "$W/free/dlopen-ran" ]
}
cat >"$T/lib.c" <<'C'
#include <fcntl.h>
#include <unistd.h>
__attribute__((constructor)) static void ran(void)
{
	close(open("free/dlopen-ran", O_CREAT | O_WRONLY, 0644));
}
C
if command -v "$CC" >/dev/null && "$CC" -shared -fPIC -o "$T/lib.so" "$T/lib.c" 2>/dev/null; then
	have_cc=1
else
	have_cc=0
fi

cat >"$T/ct.py" <<'PY'
import ctypes, os, sys
libc = ctypes.CDLL("libc.so.6")
case = sys.argv[1]
if case == "ctypes-__open":
    f = getattr(libc, "__open")
    fd = f(b"ro/f", os.O_WRONLY | os.O_TRUNC)
    sys.exit(0 if fd >= 0 and os.write(fd, b"x") == 1 else 1)
if case == "ctypes-_IO_fopen":
    libc._IO_fopen.restype = ctypes.c_void_p
    sys.exit(0 if libc._IO_fopen(b"ro/f", b"w") else 1)
if case == "ctypes-dlvsym":
    libc.dlvsym.restype = ctypes.c_void_p
    p = libc.dlvsym(ctypes.c_void_p(0), b"posix_spawn", b"GLIBC_2.2.5")
    spawn = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_int), ctypes.c_char_p,
                             ctypes.c_void_p, ctypes.c_void_p,
                             ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_char_p))(p)
    argv = (ctypes.c_char_p * 4)(b"rm", b"-f", b"nd/g", None)
    envp = (ctypes.c_char_p * 1)(None)
    pid = ctypes.c_int()
    if spawn(ctypes.byref(pid), b"/bin/rm", None, None, argv, envp) != 0:
        sys.exit(1)
    _, st = os.waitpid(pid.value, 0)
    sys.exit(0 if os.WIFEXITED(st) and os.WEXITSTATUS(st) == 0 else 1)
if case == "ctypes-nftw":
    cb = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p)
    def walk(path, st, flag, ftw):
        print(path.decode(), flag)
        return 0
    sys.exit(0 if libc.nftw(b"za", cb(walk), 4, 1) == 0 else 1)
sys.exit(2)
PY

fails=0
# run NAME CMD...: CMD in the workspace without dcg (must do damage), then under
# dcg run (must not, and must say why on a dcg: line).
run() {
	local name=$1
	shift
	prepare
	before=$(fingerprint)
	(cd "$W" && "$@") >"$T/out" 2>"$T/err"
	if ! damaged "$T/out"; then
		echo "FAIL $name: no damage without dcg (the case proves nothing)"
		sed 's/^/    /' "$T/out" "$T/err" | head -n 10
		fails=$((fails + 1))
		return
	fi
	prepare
	before=$(fingerprint)
	(cd "$W" && "$DCG" run --policy "$T/policy.yaml" -- "$@") >"$T/out" 2>"$T/err"
	if damaged "$T/out"; then
		echo "FAIL $name: damage under dcg run"
		diff <(echo "$before") <(fingerprint) | head -n 10
		sed 's/^/    /' "$T/out" "$T/err" | head -n 10
		fails=$((fails + 1))
	elif ! grep -q '^dcg: blocked' "$T/err"; then
		echo "FAIL $name: no refusal line under dcg run"
		sed 's/^/    /' "$T/err" | head -n 5
		fails=$((fails + 1))
	else
		echo "ok $name: $(grep -m1 '^dcg: blocked' "$T/err" | cut -c1-150)"
	fi
}

for c in __open __open64_nocancel _IO_fopen __xmknod posix_spawn@GLIBC_2.2.5 __libc_system \
	_IO_popen __nss_files_fopen updwtmp pututline setmntent glob nftw nftw-depth nftw-chdir \
	nftw@GLIBC_2.2.5 ftw fts wordexp-glob wordexp-cmd inotify setenv; do
	run "$c" "$PROG" "$c"
done
if [ $have_cc = 1 ]; then
	run dlopen "$PROG" dlopen
	# gconv modules: from a folder the process names itself, and one set for a new program
	run iconv-setenv "$PROG" iconv
	command -v iconv >/dev/null && run gconv-path env GCONV_PATH=za iconv -f UTF-8 -t FOO /dev/null
fi
for c in ctypes-__open ctypes-_IO_fopen ctypes-dlvsym ctypes-nftw; do
	run "$c" python3 "$T/ct.py" "$c"
done
# LD_PRELOAD with libc ahead of the guard: libc's unlink would answer first.
run perl-ld-preload-libc perl -e '$ENV{LD_PRELOAD} = "libc.so.6 " . ($ENV{LD_PRELOAD} // ""); exec $ARGV[0], "unlink"' "$PROG"
run sh-ld-preload-libc bash -c 'LD_PRELOAD="libc.so.6 ${LD_PRELOAD-}" "$0" unlink' "$PROG"
# The loader writes before any preloaded code runs.
run ld-debug-output env LD_DEBUG=files LD_DEBUG_OUTPUT=ro/dbg /bin/true
run ld-profile env LD_PROFILE=libc.so.6 LD_PROFILE_OUTPUT=ro /bin/true

# Ordinary work stays quiet: glob, nftw, fts, wordexp and dlopen outside the protected
# folders, LD_LIBRARY_PATH to an ordinary folder, and the guard's own list order.
prepare
mkdir -p "$W/free/a/b"
: >"$W/free/a/b/c.txt"
(cd "$W" && "$DCG" run --policy "$T/policy.yaml" -- bash -c '
	cd free && '"$PROG"' ftw && '"$PROG"' nftw-depth >/dev/null &&
	LD_LIBRARY_PATH=/usr/lib python3 -c "import glob, ctypes; ctypes.CDLL(\"libc.so.6\"); print(len(glob.glob(\"a/*\")))" &&
	perl -e "print scalar(my @x = glob(q(a/*))), qq(\n)"') >"$T/out" 2>"$T/err" ||
	{ echo "FAIL ordinary work failed"; cat "$T/err"; fails=$((fails + 1)); }
if grep -q 'dcg:' "$T/err"; then
	echo "FAIL ordinary work printed a dcg line"; cat "$T/err"; fails=$((fails + 1))
fi
[ $fails -eq 0 ] || fail "$fails cases failed"
echo "all cases held"
