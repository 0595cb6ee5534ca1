#!/bin/bash
# New files named like secrets (TLS test fixtures: certs/server.pem, server.key) under
# both runtime layers with the embedded default policy. Creating a file that does not
# exist reads no secret and overwrites nothing, so a real git clone, tar x and Python's
# open(NAME, 'w') of such a file work, byte for byte, with no `dcg:` line. What stays
# refused: reading an existing *.pem, overwriting one (echo x > f, O_CREAT on it, append),
# and creating a file under ~/.ssh (an anchored zero-access folder): the files are
# unchanged and nothing is created.
. tests/integration/lib.sh
git config --global user.email t@example.invalid 2>/dev/null
git config --global user.name t 2>/dev/null
git config --global init.defaultBranch main 2>/dev/null

# The fixtures, made before any session: a repository and an archive holding them.
fx=$T/fixtures
mkdir -p "$fx/repo/certs" "$fx/tree/keys" "$HOME/.ssh"
head -c 3000 /dev/urandom | base64 >"$fx/repo/certs/server.pem"
head -c 1000 /dev/urandom | base64 >"$fx/repo/certs/server.key"
echo readme >"$fx/repo/README"
(cd "$fx/repo" && git init -q && git add . && git commit -qm fixtures) || fail "repository set-up"
head -c 500 /dev/urandom | base64 >"$fx/tree/keys/client.key"
tar -cf "$fx/keys.tar" -C "$fx/tree" keys || fail "archive set-up"
echo "ssh-ed25519 AAAA the user's own key" >"$HOME/.ssh/authorized_keys.orig"

# Opens whose path the exec check cannot see (the name is joined at run time): the open
# wrappers and the supervisor decide them alone.
cat >"$T/open.py" <<'PY'
import os, sys
name = sys.argv[1] + sys.argv[2]
how = sys.argv[3]
flags = {"creat": os.O_WRONLY | os.O_CREAT,
         "trunc": os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
         "append": os.O_WRONLY | os.O_CREAT | os.O_APPEND,
         "excl": os.O_WRONLY | os.O_CREAT | os.O_EXCL}[how]
try:
    fd = os.open(name, flags, 0o600)
except OSError as e:
    sys.exit(e.errno)
os.write(fd, b"overwritten\n")
os.close(fd)
PY

for layer in run sandbox; do
	[ $layer = sandbox ] && [ $sandbox_ok = 0 ] && continue
	w=$T/ws-$layer
	mkdir -p "$w"
	rm -f "$DCG_LOG"

	# creations of new files: quiet, and the files are what was written
	"$DCG" $layer -- bash -c "cd '$w' && git clone -q '$fx/repo' clone &&
		mkdir x && tar -xf '$fx/keys.tar' -C x &&
		python3 -c \"open('x.pem','w').write('a')\" &&
		python3 '$T/open.py' new .key trunc" >"$T/$layer.out" 2>"$T/$layer.err" ||
		{ cat "$T/$layer.err"; fail "dcg $layer: creating new files named like secrets failed"; }
	if grep -a '^dcg:' "$T/$layer.err"; then fail "dcg $layer said something while creating new files"; fi
	cmp "$fx/repo/certs/server.pem" "$w/clone/certs/server.pem" &&
		cmp "$fx/repo/certs/server.key" "$w/clone/certs/server.key" ||
		fail "dcg $layer: the clone's certs differ"
	(cd "$w/clone" && git status --porcelain | grep -q .) && fail "dcg $layer: the clone's checkout is not clean"
	cmp "$fx/tree/keys/client.key" "$w/x/keys/client.key" || fail "dcg $layer: tar x lost a .key file"
	[ "$(cat "$w/x.pem")" = a ] || fail "dcg $layer: python's open(x.pem, 'w') did not write it"
	[ "$(cat "$w/new.key")" = overwritten ] || fail "dcg $layer: O_CREAT|O_TRUNC of a new .key failed"

	# existing secrets: not read, not overwritten, whatever the open's flags
	echo "the real secret" >"$w/existing.pem"
	cp "$w/existing.pem" "$T/existing.copy"
	"$DCG" $layer -- cat "$w/existing.pem" >"$T/$layer.cat" 2>"$T/$layer.caterr" &&
		fail "dcg $layer let an existing secret be read"
	grep -q secret "$T/$layer.cat" && fail "dcg $layer: the secret was printed"
	"$DCG" $layer -- bash -c "cd '$w' && echo x > existing.pem" 2>"$T/$layer.echo" &&
		fail "dcg $layer let echo overwrite an existing secret"
	for how in creat trunc append; do
		"$DCG" $layer -- python3 "$T/open.py" "$w/existing" .pem $how 2>"$T/$layer.$how"
		rc=$?
		[ $rc = 13 ] || fail "dcg $layer: O_CREAT ($how) of an existing .pem: exit $rc, not EACCES"
		grep -q "^dcg: blocked open.* of $w/existing.pem: zeroAccessPaths \*.pem" "$T/$layer.$how" ||
			{ cat "$T/$layer.$how"; fail "dcg $layer: no refusal line naming *.pem ($how)"; }
	done
	# O_CREAT|O_EXCL cannot meet it: the kernel's own EEXIST
	"$DCG" $layer -- python3 "$T/open.py" "$w/existing" .pem excl 2>/dev/null
	rc=$?
	[ $rc = 17 ] || fail "dcg $layer: O_CREAT|O_EXCL of an existing .pem: exit $rc, not EEXIST"
	cmp "$T/existing.copy" "$w/existing.pem" || fail "dcg $layer: the existing secret changed"
	# the files made above are secrets like any other from now on
	"$DCG" $layer -- cat "$w/x.pem" 2>"$T/$layer.later" >/dev/null && fail "dcg $layer let x.pem be read"
	# (the usual line: "open of PATH", or "execve of cat PATH: it would read PATH")
	grep -q "^dcg: blocked .* $w/x.pem: zeroAccessPaths \*.pem" "$T/$layer.later" ||
		{ cat "$T/$layer.later"; fail "dcg $layer: reading a created .pem: not the usual refusal"; }
	"$DCG" $layer -- python3 "$T/open.py" "$w/x" .pem trunc 2>/dev/null && fail "dcg $layer: x.pem overwritten"
	[ "$(cat "$w/x.pem")" = a ] || fail "dcg $layer: x.pem changed"

	# a new file in an anchored zero-access folder: still refused, nothing created
	"$DCG" $layer -- bash -c 'echo "ssh-ed25519 AAAA planted" > "$HOME/.ssh/authorized_keys"' \
		2>"$T/$layer.ssh" && fail "dcg $layer let ~/.ssh/authorized_keys be planted"
	for how in excl trunc; do
		"$DCG" $layer -- python3 "$T/open.py" "$HOME/.ssh/authorized" _keys $how 2>>"$T/$layer.ssh"
		rc=$?
		[ $rc = 13 ] || fail "dcg $layer: $how of ~/.ssh/authorized_keys: exit $rc, not EACCES"
		"$DCG" $layer -- python3 "$T/open.py" "$HOME/.ssh/new" .pem $how 2>>"$T/$layer.ssh"
		rc=$?
		[ $rc = 13 ] || fail "dcg $layer: $how of ~/.ssh/new.pem: exit $rc, not EACCES"
	done
	[ -e "$HOME/.ssh/authorized_keys" ] && fail "dcg $layer: ~/.ssh/authorized_keys was created"
	[ -e "$HOME/.ssh/new.pem" ] && fail "dcg $layer: ~/.ssh/new.pem was created"
	grep -q "^dcg: blocked .* $HOME/.ssh/authorized_keys: zeroAccessPaths ~/.ssh/" "$T/$layer.ssh" ||
		{ cat "$T/$layer.ssh"; fail "dcg $layer: no refusal line for ~/.ssh/authorized_keys"; }
	echo "dcg $layer: new files named like secrets created, existing ones and ~/.ssh kept"
done
exit 0
