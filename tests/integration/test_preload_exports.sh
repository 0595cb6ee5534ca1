#!/bin/bash
# libdcg-preload.so exports exactly the wrapped libc names: the list in
# preload/wrap.def, the version script preload/exports.map and `nm -D` agree, nothing
# of policy/, PCRE2 or libyaml leaks out, the guard needs no library but libc, and its
# writable segment needs no anonymous mapping.
set -u
BUILD=${BUILD:-build}
SO=$BUILD/libdcg-preload.so
[ -e "$SO" ] || { echo "no $SO"; exit 1; }
command -v nm >/dev/null || { echo "nm not installed"; exit 77; }
fail=0
T=${TMPDIR_TEST:-/tmp}

sed -nE 's/^GUARD_WRAP\([^,]+, *([A-Za-z0-9_]+),.*/\1/p' preload/wrap.def | sort > "$T/def"
sed -nE 's/^[[:space:]]+([A-Za-z0-9_]+);$/\1/p' preload/exports.map | sort > "$T/map"
nm -D --defined-only "$SO" | awk '{print $3}' | sed 's/@.*//' | sort > "$T/nm"
[ "$(wc -l < "$T/def")" -gt 80 ] || { echo "wrap.def parsed to too few names"; fail=1; }
diff -u "$T/def" "$T/map" || { echo "exports.map differs from wrap.def"; fail=1; }
diff -u "$T/def" "$T/nm" || { echo "nm -D differs from wrap.def"; fail=1; }
if nm -D --defined-only "$SO" | grep -Eq ' (pol_|guard_|pcre2_|yaml_)'; then
	echo "internal symbols exported"; fail=1
fi
needed=$(readelf -d "$SO" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | grep -v '^libc\.so' | grep -v '^ld-linux')
case $needed in
"" | *libpcre2* | *libyaml*) ;; # libc only; shared PCRE2/libyaml when no archives exist
*) echo "unexpected libraries: $needed"; fail=1 ;;
esac
# The writable segment is mapped from the file alone: no .bss past the page where the
# file's data ends (an anonymous mapping at every start, a memory area in every process).
n=0
while read -r _ _ vaddr _ filesz memsz flags _; do
	case $flags in *W*) ;; *) continue ;; esac
	n=$((n + 1))
	end_file=$((vaddr + filesz)) end_mem=$((vaddr + memsz))
	if [ $end_mem -gt $(((end_file + 4095) / 4096 * 4096)) ]; then
		echo "the writable segment needs an anonymous mapping ($((end_mem - end_file)) bytes of .bss past the file)"
		fail=1
	fi
done < <(readelf -lW "$SO" | grep -E '^ +LOAD ')
[ $n -eq 1 ] || { echo "expected one writable segment, found $n"; fail=1; }
exit $fail
