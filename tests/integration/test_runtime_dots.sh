#!/bin/bash
# Paths whose last component is "." or "..", under both runtime layers (dcg run, dcg
# sandbox, and the sandbox's supervisor alone with --no-preload): they name a folder
# that exists, so they get the kernel's answer (EEXIST, EISDIR, EINVAL, ENOTEMPTY,
# EBUSY), never another. tar extracting an archive made with `tar -C dir .` (whose
# first member is "./", so it asks for mkdir("out/.")) and Python's
# shutil.unpack_archive work; and a rmdir or rename of "nd/sub/.." (the no-delete
# folder itself) is still judged on the folder it names: refused, the folder stays.
. "$(dirname "$0")/lib.sh"

W=$T/ws
mkdir -p "$W/src/s" "$W/nd/sub" "$W/free/sub"
echo a >"$W/src/s/f"
echo b >"$W/src/top"
tar czf "$W/a.tgz" -C "$W/src" .
printf "noDeletePaths: ['%s/nd/']\n" "$W" >"$W/policy.yaml"
touch -d '2 minutes ago' "$W/nd" "$W/nd/sub"
nd_inode=$(stat -c %i "$W/nd")
# Older than any session started from now on: a session starts one tick of the
# kernel's coarse clock back (rt_session_now() in runtime/rt.h).
sleep 0.05

# What the kernel says, and what the layers must say, for each call: "errno" names.
cat >"$T/dots.py" <<'PY'
import errno, os, shutil, sys
def err(f, *a):
    try:
        f(*a)
        return "OK"
    except OSError as e:
        return errno.errorcode[e.errno]
cases = [
    ("mkdir free/.", err(os.mkdir, "free/.")),
    ("mkdir free/sub/..", err(os.mkdir, "free/sub/..")),
    ("rmdir free/.", err(os.rmdir, "free/.")),
    ("rmdir free/sub/..", err(os.rmdir, "free/sub/..")),
    ("unlink free/sub/..", err(os.unlink, "free/sub/..")),
    ("rename free/sub/..", err(os.rename, "free/sub/..", "moved")),
    ("rename to free/.", err(os.rename, "free/sub", "free/.")),
    ("excl free/.", err(os.open, "free/.", os.O_CREAT | os.O_EXCL | os.O_WRONLY)),
    ("symlink free/.", err(os.symlink, "x", "free/.")),
]
for name, got in cases:
    print(name, got)
shutil.unpack_archive(sys.argv[1], sys.argv[2])
PY
(cd "$W" && mkdir py-none && python3 "$T/dots.py" a.tgz py-none) >"$T/kernel.txt" ||
	fail "the calls fail without dcg"
grep -q '^mkdir free/. EEXIST$' "$T/kernel.txt" || { cat "$T/kernel.txt"; fail "unexpected kernel"; }


n=0
for layer in run sandbox "sandbox --no-preload"; do
	[ "$layer" != run ] && [ $sandbox_ok = 0 ] && continue
	n=$((n + 1))
	# tar and Python's unpacking, into a fresh folder
	mkdir "$W/out$n" "$W/py$n"
	(cd "$W" && "$DCG" $layer --policy policy.yaml -- tar xzf a.tgz -C "out$n") 2>"$T/err" ||
		{ cat "$T/err"; fail "dcg $layer: tar could not extract an archive of ./"; }
	[ "$(cat "$W/out$n/s/f")" = a ] && [ "$(cat "$W/out$n/top")" = b ] ||
		fail "dcg $layer: tar's files did not arrive"
	(cd "$W" && "$DCG" $layer --policy policy.yaml -- python3 "$T/dots.py" a.tgz "py$n") \
		>"$T/got.txt" 2>"$T/err" || { cat "$T/err"; fail "dcg $layer: unpack_archive failed"; }
	[ "$(cat "$W/py$n/s/f")" = a ] || fail "dcg $layer: unpack_archive's files did not arrive"
	diff -u "$T/kernel.txt" "$T/got.txt" || fail "dcg $layer: not the kernel's answers"
	if grep -a '^dcg:' "$T/err"; then fail "dcg $layer refused a call on a free folder"; fi

	# The no-delete folder, named through "..": refused, and it stays.
	for py in 'os.rmdir("nd/sub/..")' 'os.rename("nd/sub/..", "gone")' \
		'os.rmdir("nd/.")' 'os.rename("nd/sub/../", "gone")'; do
		(cd "$W" && "$DCG" $layer --policy policy.yaml -- python3 -c "import os; $py") \
			2>"$T/err" && fail "dcg $layer: $py succeeded"
		grep -q "^dcg: blocked .* of $W/nd: noDeletePaths" "$T/err" ||
			{ cat "$T/err"; fail "dcg $layer: $py was not refused on $W/nd"; }
	done
	[ -d "$W/nd/sub" ] && [ "$(stat -c %i "$W/nd")" = "$nd_inode" ] && [ ! -e "$W/gone" ] ||
		fail "dcg $layer: the no-delete folder went"
	echo "dcg $layer: . and .. as the kernel says, the no-delete folder kept"
done
