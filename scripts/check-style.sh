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
