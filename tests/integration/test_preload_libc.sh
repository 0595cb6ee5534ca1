#!/bin/bash
# The inventory of libc's doors (preload/libc.tsv, made by preload/libc-inventory.sh
# from preload/libc-rules.tsv) against the running system:
# - every function the running libc exports, under every symbol version, has a row;
#   on the glibc release the table was made from, the table is what the rules give now;
# - no row is unclassified; every door (a class other than none) is wrapped (named in
#   preload/wrap.def and exported by libdcg-preload.so) or an exception with a reason;
#   every wrapped name has a row that says so;
# - under the preload, dlvsym(RTLD_DEFAULT or libc's handle, NAME, VERSION) for every
#   version of every wrapped name, and dlsym(libc's handle, NAME), return the guard's
#   function (compat versions included: preload/compat.def).
set -u
: "${BUILD:=build}"
: "${TMPDIR_TEST:=$(mktemp -d)}"
T=$TMPDIR_TEST
SO=$PWD/$BUILD/libdcg-preload.so
TABLE=preload/libc.tsv
fail=0
bad() { echo "FAIL: $*"; fail=1; }
command -v nm >/dev/null || { echo "nm not installed"; exit 77; }
command -v ldd >/dev/null || { echo "ldd not installed"; exit 77; }
libc=$(ldd /bin/sh | awk '$1 ~ /^libc\.so/ {print $3; exit}')
[ -r "$libc" ] || { echo "no glibc here (ldd /bin/sh names no libc.so)"; exit 77; }

preload/libc-inventory.sh "$libc" >"$T/now.tsv" || bad "libc-inventory.sh failed"
rows() { grep -v '^#' "$1"; }
# name and each version, one a line
pairs() { rows "$1" | awk -F'\t' '{n = split($2, v, " "); for (i = 1; i <= n; i++) print $1, v[i]}' | LC_ALL=C sort -u; }
pairs "$TABLE" >"$T/table.pairs"
pairs "$T/now.tsv" >"$T/now.pairs"
missing=$(LC_ALL=C comm -13 "$T/table.pairs" "$T/now.pairs")
[ -z "$missing" ] || bad "the running libc exports functions preload/libc.tsv does not classify (classify them in preload/libc-rules.tsv, then make libc-inventory):
$missing"
if [ "$(grep '^# glibc ' "$TABLE")" = "$(grep '^# glibc ' "$T/now.tsv")" ]; then
	diff -u <(rows "$TABLE") <(rows "$T/now.tsv") >"$T/stale" ||
		bad "preload/libc.tsv is not what preload/libc-rules.tsv gives (make libc-inventory): $(head -n 20 "$T/stale")"
else
	echo "note: preload/libc.tsv was made from $(grep '^# glibc ' "$TABLE" | cut -c3-), this is $(grep '^# glibc ' "$T/now.tsv" | cut -c3-)"
fi
[ "$(rows "$TABLE" | wc -l)" -gt 2000 ] || bad "preload/libc.tsv has too few rows"

un=$(rows "$TABLE" | awk -F'\t' '$3 == "unclassified" {print $1}')
[ -z "$un" ] || bad "unclassified: $un"
sed -nE 's/^GUARD_WRAP\([^,]+, *([A-Za-z0-9_]+),.*/\1/p' preload/wrap.def | LC_ALL=C sort >"$T/def"
nm -D --defined-only "$SO" | awk '{print $3}' | sed 's/@.*//' | LC_ALL=C sort >"$T/exported"
rows "$TABLE" | awk -F'\t' '$4 == "wrap" {print $1}' | LC_ALL=C sort >"$T/wrap"
rows "$TABLE" | awk -F'\t' '
	$3 != "none" && $4 != "wrap" && $4 != "except" {print "door without handling: " $1}
	$4 == "except" && length($5) < 12 {print "exception without a reason: " $1}
	$3 == "none" && $4 == "except" {print "an exception that is no door: " $1}' >"$T/handling"
[ -s "$T/handling" ] && bad "$(cat "$T/handling")"
nowrap=$(LC_ALL=C comm -23 "$T/wrap" "$T/def")
[ -z "$nowrap" ] || bad "marked wrap in preload/libc.tsv but not in preload/wrap.def: $nowrap"
noexp=$(LC_ALL=C comm -23 "$T/wrap" "$T/exported")
[ -z "$noexp" ] || bad "marked wrap but not exported by libdcg-preload.so: $noexp"
norow=$(LC_ALL=C comm -13 "$T/wrap" "$T/def")
[ -z "$norow" ] || bad "wrapped (preload/wrap.def) but not marked wrap in preload/libc.tsv: $norow"

# Every version of every wrapped name reaches the guard, under the preload. Names the
# running libc lacks are left out (the table may be older or newer than it).
LC_ALL=C join <(cut -d' ' -f1 "$T/now.pairs" | LC_ALL=C sort -u) "$T/wrap" >"$T/wrap.here"
awk 'NR == FNR {w[$1] = 1; next} ($1 in w)' "$T/wrap.here" "$T/now.pairs" >"$T/lookups"
[ "$(wc -l <"$T/lookups")" -gt 150 ] || bad "too few versioned names to look up"
if ! LD_PRELOAD=$SO "$BUILD/progs/libc_versions" libdcg-preload.so <"$T/lookups" >"$T/versions"; then
	bad "lookups that walk around the guard:
$(cat "$T/versions")"
fi
# and without the guard the same lookups do reach libc: the check can fail
if "$BUILD/progs/libc_versions" libdcg-preload.so <"$T/lookups" >/dev/null; then
	bad "the lookup check passes without the preload"
fi
exit $fail
