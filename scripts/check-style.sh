#!/bin/bash
# make check-style: the banned-function list, then clang-format on every C file.
# Exit 1 when either finds something.
set -u
cd "$(dirname "$0")/.." || exit 1
files=$(git ls-files '*.c' '*.h' 2>/dev/null | grep -v '^tests/fuzz/corpus/')
rc=0

# Unbounded or unsafe calls (see STYLE.md): use snprintf, memcpy, strtol instead.
banned='\b(sprintf|vsprintf|strcpy|strcat|strtok|atoi|atol|gets)[[:space:]]*\('
if grep -nE "$banned" $files | grep -vE '^\S+:[0-9]+:\s*(/\*|\*|//)'; then
	echo "check-style: banned functions above" >&2
	rc=1
fi

# Absolute machine paths: a tracked file must not name a file of the machine it was
# written on (a fresh clone elsewhere would not have it). Flagged: any absolute path
# into this checkout, into the folder that holds it, or into $HOME, whose first component
# there exists on this machine. Fictional paths in test data (a HOME of /home/agent, a
# project in /srv/proj) name nothing that exists and pass.
repo=$(pwd -P)
parent=$(dirname "$repo")
prefixes=("$repo")
[ "$parent" != / ] && [ "$parent" != /tmp ] && prefixes+=("$parent")
[ -n "${HOME:-}" ] && [ "$HOME" != / ] && prefixes+=("$(cd "$HOME" 2>/dev/null && pwd -P || echo "$HOME")")
machine_paths() {
	local pre q hits
	for pre in "${prefixes[@]}"; do
		q=$(printf '%s' "$pre" | sed 's/[.[\*^$]/\\&/g')
		git ls-files -z | grep -zv '^tests/fuzz/corpus/' |
			xargs -0 grep -IHnoE "${q}/[A-Za-z0-9._+-]+" 2>/dev/null |
			while IFS= read -r hit; do
				path=${hit#*:*:}
				[ -e "$path" ] && printf '%s\n' "$hit"
			done
	done | sort -u
}
if hits=$(machine_paths) && [ -n "$hits" ]; then
	printf '%s\n' "$hits"
	echo "check-style: absolute machine paths above: find the file relative to the checkout" \
		"or pass it in (see DC_FIXTURE in tests/module.mk)" >&2
	rc=1
fi

# A folder holds one layer (STYLE.md, habit 14): the engine, the runtime core, the preload
# and the sandbox never include the command line's headers.
up=$(grep -nE '#[[:space:]]*include[[:space:]]*"(\.\./)*cli/' $(printf '%s\n' $files | grep -E '^(policy|runtime|preload|sandbox)/'))
if [ -n "$up" ]; then
	printf '%s\n' "$up"
	echo "check-style: a layer includes cli/ above: the dependency points the wrong way" >&2
	rc=1
fi

# A function fits on a screen or two (STYLE.md, habit 15): a body of more than 200 lines
# (from its opening brace at the start of a line to its closing one) is split.
long=$(for f in $files; do
	awk -v f="$f" '/^\{/ { s = FNR } /^\}/ { if (s && FNR - s + 1 > 200) print f ":" s ": a function of " FNR - s + 1 " lines"; s = 0 }' "$f"
done)
if [ -n "$long" ]; then
	printf '%s\n' "$long"
	echo "check-style: functions over 200 lines above: split them" >&2
	rc=1
fi

# A Criterion test states what it checks in its own body: a test whose body holds no
# cr_assert/cr_expect (only helpers that assert) reads as asserting nothing. Helpers
# return what they found; the test asserts it.
noassert=$(awk '
FNR == 1 { intest = 0 }
/^(Test|ParameterizedTest)[ \t]*\(/ && !intest {
	intest = 1; depth = 0; seen = 0; started = 0; name = $0; line = FNR
}
intest {
	if ($0 ~ /cr_(assert|expect|fail|skip|fatal)/) seen = 1
	n = split($0, ch, "")
	for (i = 1; i <= n; i++) {
		if (ch[i] == "{") { depth++; started = 1 }
		else if (ch[i] == "}") depth--
	}
	if (started && depth == 0) {
		if (!seen) printf "%s:%d: %s\n", FILENAME, line, name
		intest = 0
	}
}' $(git ls-files 'tests/test_*.c' 'tests/*/test_*.c'))
if [ -n "$noassert" ]; then
	printf '%s\n' "$noassert"
	echo "check-style: the tests above assert nothing in their own body" >&2
	rc=1
fi

if command -v clang-format >/dev/null 2>&1; then
	bad=0
	for f in $files; do
		if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then
			echo "check-style: $f is not clang-formatted (clang-format -i $f)" >&2
			bad=1
		fi
	done
	[ $bad -eq 0 ] || rc=1
else
	echo "check-style: clang-format not found, format check skipped" >&2
fi
[ $rc -eq 0 ] && echo "check-style: ok"
exit $rc
