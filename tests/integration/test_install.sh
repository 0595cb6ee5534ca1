#!/bin/bash
# make install into a temporary root, then the installed dcg from there: the files
# where the README says, `dcg run` finding the installed preload on its own (no
# DCG_PRELOAD), libseccomp loaded as a shared library, the completions loading, and
# make uninstall taking everything back. Also: plain `make` needs no Criterion.
set -u
T=${TMPDIR_TEST:?}
B=${BUILD:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "FAIL: $*"; exit 1; }
san=0
[ "$B" = build-san ] && san=1
unset DCG_PRELOAD DCG_POLICY XDG_STATE_HOME
export HOME=$T/home XDG_CONFIG_HOME=$T/home/.config DCG_LOG=$T/audit.jsonl
mkdir -p "$HOME"

D=$T/root
make -s -C "$ROOT" SAN=$san BUILD="$B" PREFIX=/usr/local DESTDIR="$D" install >"$T/install.log" 2>&1 ||
	fail "make install: $(tail -n 5 "$T/install.log")"
P=$D/usr/local
for f in bin/dcg lib/dcg/libdcg-preload.so lib/dcg/libdcg-engine.so share/man/man1/dcg.1 share/man/man5/dcg-policy.5 \
	share/bash-completion/completions/dcg share/zsh/site-functions/_dcg \
	share/fish/vendor_completions.d/dcg.fish share/doc/dcg/LICENSE share/doc/dcg/README.md; do
	[ -f "$P/$f" ] || fail "not installed: $f"
done
[ -x "$P/bin/dcg" ] || fail "bin/dcg is not executable"
# nothing outside PREFIX
extra=$(cd "$D" && find . -type f | grep -v '^\./usr/local/')
[ -z "$extra" ] || fail "installed outside PREFIX: $extra"

DCG=$P/bin/dcg
"$DCG" --version | grep -q '^dcg ' || fail "installed dcg --version"
"$DCG" check 'git reset --hard HEAD~1' >/dev/null 2>&1
[ $? -eq 2 ] || fail "installed dcg check does not deny"

# dcg run finds lib/dcg/libdcg-preload.so beside bin/ and the guard refuses there
mkdir -p "$T/proj"
echo secret >"$T/proj/key.txt"
printf 'zeroAccessPaths: ["%s/proj/key.txt"]\n' "$T" >"$T/policy.yaml"
out=$(cd "$T/proj" && "$DCG" run --policy "$T/policy.yaml" -- /bin/cat key.txt 2>&1) &&
	fail "installed dcg run let cat read a zero-access file: $out"
echo "$out" | grep -q 'dcg: blocked' || fail "installed dcg run: no refusal line: $out"
echo "$out" | grep -qx secret && fail "installed dcg run: the secret leaked"
out=$(cd "$T/proj" && "$DCG" run --policy "$T/policy.yaml" -- /bin/sh -c 'echo fine') ||
	fail "installed dcg run: an ordinary command failed"
[ "$out" = fine ] || fail "installed dcg run printed '$out'"
# ... and says so when the preload is missing, rather than running unguarded
mv "$P/lib/dcg/libdcg-preload.so" "$T/moved.so"
"$DCG" run -- /bin/true 2>/dev/null && fail "dcg run ran without its preload"
mv "$T/moved.so" "$P/lib/dcg/libdcg-preload.so"
# without the policy engine beside it, the guard refuses what it cannot settle alone
# (an exec of a shell, a protected path) and says why; doctor names the missing file.
# What the argv filter settles (a plain program no rule can match) still runs.
mv "$P/lib/dcg/libdcg-engine.so" "$T/moved.so"
printf '/bin/true && echo settled\n/bin/sh -c "echo ran"\n' >"$T/script.sh"
out=$(cd "$T/proj" && "$DCG" run --policy "$T/policy.yaml" -- /bin/sh "$T/script.sh" 2>&1)
echo "$out" | grep -qx ran && fail "dcg run without the engine let an exec through: $out"
echo "$out" | grep -qx settled || fail "dcg run without the engine refused a settled exec: $out"
echo "$out" | grep -q 'policy engine cannot be loaded' || fail "no engine, no reason said: $out"
"$DCG" doctor 2>&1 | grep -q 'libdcg-engine.so not found' || fail "doctor: no word of the engine"
mv "$T/moved.so" "$P/lib/dcg/libdcg-engine.so"

# libseccomp (LGPL-2.1) is a shared library of the installed binary: not mapped at every
# start (sandbox/seccomp_dl.c), the dynamic loader loads it when `dcg sandbox` starts
if command -v ldd >/dev/null; then
	ldd "$DCG" | grep -q 'libseccomp\.so' && fail "dcg maps libseccomp at every start"
fi
LD_DEBUG=libs "$DCG" sandbox -- /bin/true 2>&1 | grep -q 'calling init: .*libseccomp\.so' ||
	fail "dcg sandbox does not load libseccomp as a shared library"

# man pages render without warnings
if command -v man >/dev/null; then
	for m in share/man/man1/dcg.1 share/man/man5/dcg-policy.5; do
		w=$(MANWIDTH=80 man --warnings -l "$P/$m" 2>&1 >/dev/null)
		[ -z "$w" ] || fail "man $m: $w"
	done
fi

# bash completion: the commands after `dcg `, the agents after --agent
out=$(PATH=$P/bin:$PATH bash -c '. "$1"; COMP_WORDS=(dcg ""); COMP_CWORD=1; _dcg
	printf "%s\n" "${COMPREPLY[@]}"; COMP_WORDS=(dcg install --agent c); COMP_CWORD=3; _dcg
	printf "%s\n" "${COMPREPLY[@]}"' _ "$P/share/bash-completion/completions/dcg")
for w in check allow doctor install claude codex cursor; do
	echo "$out" | grep -qx "$w" || fail "bash completion lacks $w: $out"
done

make -s -C "$ROOT" SAN=$san BUILD="$B" PREFIX=/usr/local DESTDIR="$D" uninstall >"$T/uninstall.log" 2>&1 ||
	fail "make uninstall: $(tail -n 5 "$T/uninstall.log")"
left=$(find "$D" -type f)
[ -z "$left" ] || fail "make uninstall left: $left"

# plain `make` needs no Criterion: with a pkg-config that does not know it, the dry run
# of a fresh build names no test and no Criterion flag, and pkg-config is never asked
mkdir -p "$T/bin"
cat >"$T/bin/pkg-config" <<'PC'
#!/bin/bash
for a in "$@"; do
	[ "$a" = criterion ] && { echo "asked for criterion" >>"$PC_LOG"; exit 1; }
done
exec /usr/bin/pkg-config "$@"
PC
chmod +x "$T/bin/pkg-config"
export PC_LOG=$T/pc.log
: >"$PC_LOG"
out=$(make -n -C "$ROOT" BUILD="$T/fresh-build" PKG_CONFIG="$T/bin/pkg-config" 2>&1) ||
	fail "make -n: $out"
echo "$out" | grep -q -- "-o $T/fresh-build/dcg\$" || fail "make -n builds no dcg: $(echo "$out" | tail -n 3)"
echo "$out" | grep -qE 'tests/test_|criterion' && fail "plain make builds tests: $(echo "$out" | grep -E 'tests/test_|criterion' | head -3)"
[ -s "$PC_LOG" ] && fail "plain make asked pkg-config for criterion"
echo ok
