#!/bin/bash
# hook_order.sh DCG > cli/hook.order: the functions of DCG that `dcg hook` runs on an
# allowed and a refused Bash call and on a file tool's call, from valgrind's callgrind,
# most instructions first. cli/module.mk links dcg with lld in this order (when the
# compiler can use lld), so that a call touches a few pages of text instead of a
# dozen spread over 750 KB. A name that no longer exists is ignored: regenerate the
# list after a large change of the hook's path (the names do not depend on the order).
set -eu
dcg=$(realpath "$1")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/home/proj"
# The calls an agent makes most: everyday commands (each with its command's handler),
# a refused one, the file tools. Every function these run is placed, most-shared first.
calls=(
	'"tool_name":"Bash","tool_input":{"command":"git status"}'
	'"tool_name":"Bash","tool_input":{"command":"rm -rf ~/projects"}'
	'"tool_name":"Read","tool_input":{"file_path":"@/proj/src/main.c"}'
	'"tool_name":"Write","tool_input":{"file_path":"@/.bashrc","content":"x"}'
	'"tool_name":"Edit","tool_input":{"file_path":"@/proj/src/main.c","old_string":"a","new_string":"b"}'
	'"tool_name":"Bash","tool_input":{"command":"ls -la"}'
	'"tool_name":"Bash","tool_input":{"command":"git log --oneline -5"}'
	'"tool_name":"Bash","tool_input":{"command":"make -j2"}'
	'"tool_name":"Bash","tool_input":{"command":"npm test"}'
	'"tool_name":"Bash","tool_input":{"command":"grep -rn TODO src"}'
	'"tool_name":"Bash","tool_input":{"command":"cat README.md | head -20"}'
	'"tool_name":"Bash","tool_input":{"command":"python3 -m pytest -q tests/"}'
	'"tool_name":"Bash","tool_input":{"command":"echo hello > out.txt && wc -l out.txt"}'
	'"tool_name":"Bash","tool_input":{"command":"find . -name \u0027*.c\u0027 -newer Makefile"}'
	'"tool_name":"Bash","tool_input":{"command":"sed -i s/a/b/ src/main.c"}'
	'"tool_name":"Bash","tool_input":{"command":"cp src/main.c /tmp/main.c.bak"}'
	'"tool_name":"Bash","tool_input":{"command":"curl -sL https://example.com -o page.html"}'
	'"tool_name":"Bash","tool_input":{"command":"tar xzf dist.tar.gz"}'
)
for i in "${!calls[@]}"; do
	c=${calls[$i]//@/$tmp/home}
	printf '{"hook_event_name":"PreToolUse","cwd":"%s/proj",%s}' "$tmp/home" "$c" |
		(cd "$tmp/home/proj" && env -i HOME="$tmp/home" DCG_LOG="$tmp/home/audit.jsonl" \
			valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$i" "$dcg" hook \
			>/dev/null 2>&1) || true
done
# "Ir file:function [object]" lines of dcg's own functions: the functions that more of the
# calls run first, so that what every call runs lies together, then what every shell
# command runs, and so on; among equals, most instructions first.
for f in "$tmp"/cg.*; do
	echo @call
	callgrind_annotate --threshold=100 "$f" 2>/dev/null
done | awk -v obj="[$dcg]" '
	$0 == "@call" { call++; next }
	index($0, obj) {
		ir = $1; gsub(",", "", ir)
		fn = $0; sub(/ \[.*/, "", fn); sub(/^ *[0-9,]+ *(\([^)]*\))? */, "", fn)
		sub(/^[^:]*:/, "", fn); sub(/'"'"'.*/, "", fn)
		if (fn ~ /^[A-Za-z_][A-Za-z_0-9.]*$/) {
			sum[fn] += ir
			if (seen[fn] != call) { seen[fn] = call; calls[fn]++ }
		}
	}
	END { for (fn in sum) print calls[fn], sum[fn], fn }' |
	sort -k1,1nr -k2,2nr -k3 | awk '{print $3}' >"$tmp/hot"
# A function over 16 KiB (PCRE2's interpreter: 73 KiB) goes last, so that it does not
# keep the small ones apart: only a part of it runs. So does pcre2_match_8: Debian's
# PCRE2 archive has no section per function, and the interpreter comes with it (an
# allowed call that tries no rule runs neither).
{
	nm -S "$dcg" | awk 'NF == 4 { n = $2; sub(/^0+/, "", n)
		if (length(n) > 4 || (length(n) == 4 && substr(n, 1, 1) ~ /[4-9a-f]/)) print $4 }'
	echo pcre2_match_8
} | sort -u >"$tmp/big"
# First what every start runs before the hook: crt1's _start, crtbegin's functions, main
# (cli/hook.ld puts the PLT and _init just before them), and main's table of commands
# (first in .rodata, in the window of the ELF headers the loader reads anyway).
printf '%s\n' _start frame_dummy register_tm_clones __do_global_dtors_aux \
	deregister_tm_clones main run_command find_command commands >"$tmp/start"
grep -vxFf "$tmp/start" "$tmp/hot" >"$tmp/hot2" || true
cat "$tmp/start"
grep -vxFf "$tmp/big" "$tmp/hot2" || true
grep -xFf "$tmp/big" "$tmp/hot2" || true
# The variables a call writes in .bss (dcg's objects have a section per variable), and
# the two it reads (policy/util.c's allocator, NULL for libc's: read before anything
# else on their page is written, they would cost a fault of their own):
# first, on the page the loader already writes at start (the end of .got.plt), the
# call's record last, since only its head is written before its 8 KiB of scratch; then
# the hook's allocation area (cli/hook_alloc.c), whose first blocks share the record's
# last page.
printf '%s\n' kept_policy kept_state kept_release dcg_global_policy cache completed.0 free_fn \
	alloc_fn alloc_on alloc_top alloc_dirty alloc_lists hook_the_call alloc_area
