#!/bin/bash
# One process refused many times (rm -rf of a protected tree: one refusal per file)
# prints RT_TOLD_MAX (20) refusal lines and one line saying the rest go to the audit log,
# under each runtime layer; every refusal is still in the audit log, and every file
# survives.
. "$(dirname "$0")/lib.sh"

W=$T/ws
mkdir -p "$W/nd/deep"
for i in $(seq 60); do echo "$i" >"$W/nd/deep/f$i"; done
printf "noDeletePaths: ['%s/nd/']\n" "$W" >"$W/policy.yaml"
sleep 0.05 # the files are older than the session (runtime/rt.c, rt_session_now)


for layer in run sandbox "sandbox --no-preload"; do
	[ "$layer" != run ] && [ $sandbox_ok = 0 ] && continue
	rm -f "$DCG_LOG"
	(cd "$W" && "$DCG" $layer --policy policy.yaml -- rm -rf nd/deep) 2>"$T/err" &&
		fail "dcg $layer: rm -rf of a no-delete tree succeeded"
	blocked=$(grep -c '^dcg: blocked' "$T/err")
	more=$(grep -c '^dcg: further refusals of this process go to the audit log only' "$T/err")
	[ "$blocked" = 20 ] && [ "$more" = 1 ] ||
		{ head -30 "$T/err"; fail "dcg $layer: $blocked refusal lines and $more closing lines, not 20 and 1"; }
	logged=$(grep -c '"decision":"deny"' "$DCG_LOG")
	[ "$logged" -ge 60 ] || fail "dcg $layer: $logged refusals in the audit log, not 60 or more"
	[ "$(ls "$W/nd/deep" | wc -l)" = 60 ] || fail "dcg $layer: files of the no-delete tree are gone"
	echo "dcg $layer: 20 lines, then the audit log ($logged refusals)"
done

# A program refused for a file its words name (`cat key.pem`) is told so: the command,
# what it would do, the whole path; never "execve of key.pem", which reads as running
# the key. A PATH search (Python's os.execvp here) tries the program in each folder,
# and each try is refused: the line is said once, every try is in the audit log.
mkdir -p "$T/b1" "$T/b2"
cp /bin/cat "$T/b1/cat"
cp /bin/cat "$T/b2/cat"
echo 'SECRET-KEY' >"$W/key.pem"
for layer in run sandbox "sandbox --no-preload"; do
	[ "$layer" != run ] && [ $sandbox_ok = 0 ] && continue
	rm -f "$DCG_LOG"
	(cd "$W" && "$DCG" $layer -- env PATH="$T/b1:$T/b2:/usr/bin:/bin" python3 -c \
		'import os, sys; os.execvp("cat", ["cat", sys.argv[1]])' key.pem) >"$T/out" 2>"$T/err" &&
		fail "dcg $layer: cat of a zero-access file ran"
	grep -q SECRET-KEY "$T/out" && fail "dcg $layer: the key was printed"
	lines=$(grep -c '^dcg: blocked' "$T/err")
	grep -q "^dcg: blocked execve of cat key.pem: it would read $W/key.pem: zeroAccessPaths \*.pem \[" "$T/err" &&
		[ "$lines" = 1 ] || { cat "$T/err"; fail "dcg $layer: not one line naming the command and the read"; }
	logged=$(grep -c '"decision":"deny"' "$DCG_LOG")
	[ "$logged" -ge 2 ] || fail "dcg $layer: $logged refusals in the audit log, not one per folder tried"
	echo "dcg $layer: one line for a PATH search refused twice ($logged in the audit log)"
done

# A probe for a secret that is not there (meson and Python's netrc read ~/.netrc if it
# exists) gets the kernel's ENOENT and no line; one that is there is refused, said once.
cat >"$T/probe.py" <<'PY'
import os, sys
for p in os.environ["PROBE"].split(":"):
    try:
        open(p).read()
        print(p, "read")
    except OSError as e:
        print(p, e.errno)
PY
echo 'SECRET-PEM' >"$W/there.pem"
for layer in run sandbox "sandbox --no-preload"; do
	[ "$layer" != run ] && [ $sandbox_ok = 0 ] && continue
	(cd "$W" && PROBE="$HOME/.netrc:$HOME/.ssh/config:absent.pem:there.pem" \
		"$DCG" $layer -- bash -c "python3 '$T/probe.py'; true") >"$T/out" 2>"$T/err"
	printf '%s\n' "$HOME/.netrc 2" "$HOME/.ssh/config 2" "absent.pem 2" "there.pem 13" |
		cmp -s - "$T/out" || { cat "$T/out" "$T/err"; fail "dcg $layer: not ENOENT for what is not there, EACCES for what is"; }
	lines=$(grep -c '^dcg: blocked' "$T/err")
	[ "$lines" = 1 ] && grep -q "^dcg: blocked open.* of $W/there.pem" "$T/err" ||
		{ cat "$T/err"; fail "dcg $layer: not one line, for there.pem"; }
	echo "dcg $layer: a secret that is not there is ENOENT, quietly"
done
