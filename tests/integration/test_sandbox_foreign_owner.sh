#!/bin/bash
# An object preloaded into the system's git acts as git: under dcg sandbox it must not
# inherit git's owner rights (.git/ is no-delete, owned by git). The object's
# constructor unlinks .git/HEAD and .git/index; both must survive, with a refusal. git
# itself, with only the system's and the guard's code, still manages .git/ (git stash).
. "$(dirname "$0")/lib.sh"
git config --global user.email t@example.invalid
git config --global user.name t

[ "$sandbox_ok" = 1 ] || exit 0
command -v git >/dev/null || { echo "no git here"; exit 0; }
case $(command -v git) in /usr/* | /bin/*) ;; *) echo "git is not a system program here"; exit 0 ;; esac

cat >"$T/inject.c" <<'C'
#include <stdlib.h>
#include <unistd.h>
__attribute__((constructor)) static void inject(void)
{
	if (getenv("DCG_TEST_INJECT")) {
		unlink(".git/HEAD");
		unlink(".git/index");
	}
}
C
${CC:-cc} -shared -fPIC "$T/inject.c" -o "$T/inject.so" || fail "cannot build the object"

R=$T/repo
git init -q "$R" && (cd "$R" && echo a >a && git add a && git commit -qm a) || fail "git set-up"

for mode in "" "--no-preload"; do
	sleep 0.05 # what the last round's git rewrote (the index) is older than this session
	(cd "$R" && "$DCG" sandbox $mode -- bash -c \
		"DCG_TEST_INJECT=1 LD_PRELOAD='$T/inject.so' git status >/dev/null 2>&1") 2>"$T/err"
	[ -f "$R/.git/HEAD" ] && [ -f "$R/.git/index" ] ||
		{ cat "$T/err"; fail "dcg sandbox $mode: code preloaded into git deleted .git files"; }
	grep -q "dcg: blocked unlink.* of $R/.git/HEAD" "$T/err" ||
		{ cat "$T/err"; fail "dcg sandbox $mode: no refusal line for the preloaded code"; }
	(cd "$R" && echo "wip $mode" >>a && "$DCG" sandbox $mode -- git stash -q) 2>"$T/err" ||
		{ cat "$T/err"; fail "dcg sandbox $mode: git stash failed"; }
	(cd "$R" && git stash pop -q && grep -q "wip $mode" a && git checkout -q a) ||
		fail "dcg sandbox $mode: the stash lost the change"
	echo "dcg sandbox $mode: preloaded code refused, git stash works"
done
