#!/bin/bash
# No-delete protects names (DESIGN.md, "Runtime semantics"), under dcg run, dcg sandbox
# and the supervisor alone (sandbox --no-preload):
# - a file made just before the session starts is never the session's own: made, then
#   the guard started at once with `rm -f` on it, 50 times under dcg run and under the
#   supervisor alone (the start is the
#   file system's own stamp, compared strictly: runtime/rt.h, rt_session_now);
# - a directory the session made never replaces a no-delete name (the atomic-save
#   exception is for regular files), nor does a symlink;
# - laundering: a no-delete name that existed before the session stays protected
#   whatever replaced its inode (sed -i, os.replace, perl -i, then rm, rm -r, mv);
# - ordinary work passes without a line: sed -i, perl -i, an atomic save, git's lock
#   files in a no-delete folder, and deleting what the session made there.
# CASES=start,dir,launder,ordinary limits the parts (all by default).
. "$(dirname "$0")/lib.sh"

W=$T/ws
P=$T/policy.yaml
CASES=${CASES:-start,dir,launder,ordinary}
mkdir -p "$W"
printf "noDeletePaths: ['%s/nd/']\n" "$W" >"$P"
command -v python3 >/dev/null || { echo "python3 missing"; exit 77; }
command -v perl >/dev/null || { echo "perl missing"; exit 77; }

layers=(run)
[ $sandbox_ok = 1 ] && layers+=(sandbox sandbox-no-preload)
largs() { [ "$1" = sandbox-no-preload ] && echo "sandbox --no-preload" || echo "$1"; }
want() { case ",$CASES," in *",$1,"*) return 0 ;; esac; return 1; }

# The names, inodes and contents of nd/ (what no-delete keeps: the names).
names() { (cd "$W" && find nd -printf '%p %y\n' | sort); }

# A fresh nd/, made just before the session starts (which is before it: the start is
# the file system's own stamp, compared strictly).
fresh() {
	rm -rf "$W/nd" "$W/out"
	mkdir -p "$W/nd/sub" "$W/nd/x" "$W/out"
	printf 'a line\n' >"$W/nd/f"
	printf 'deep\n' >"$W/nd/sub/g"
}

# ---- a file made just before the start --------------------------------------------
if want start; then
	# (dcg sandbox with the preload refuses in the preload first: the supervisor's
	# own judgement is sandbox --no-preload)
	for layer in "${layers[@]}"; do
		[ $layer = sandbox ] && continue
		mkdir -p "$W/nd"
		kept=0
		for i in $(seq 50); do
			echo x >"$W/nd/f$i"
			(cd "$W" && $DCG $(largs $layer) --policy "$P" -- rm -f "nd/f$i") 2>/dev/null
			[ -f "$W/nd/f$i" ] && kept=$((kept + 1))
		done
		[ $kept = 50 ] || fail "dcg $layer: $((50 - kept)) of 50 files made just before the start were deleted"
		echo "ok start: dcg $layer kept 50 of 50 files made just before it started"
		rm -rf "$W/nd"
	done
fi

# ---- a directory (or a symlink) the session made never replaces a no-delete name ----
if want dir; then
	for layer in "${layers[@]}"; do
		for how in "mkdir nd/t && python3 -c \"import os; os.rename('nd/t', 'nd/x')\"" \
			"mkdir nd/t && mv -T nd/t nd/x" \
			"ln -s sub nd/t && python3 -c \"import os; os.rename('nd/t', 'nd/f')\""; do
			fresh
			ino=$(stat -c %i "$W/nd/x")
			before=$(names)
			(cd "$W" && $DCG $(largs $layer) --policy "$P" -- sh -c "$how") >"$T/out" 2>&1
			[ "$(stat -c %i "$W/nd/x")" = "$ino" ] && [ -d "$W/nd/x" ] && [ -f "$W/nd/f" ] ||
				{ cat "$T/out"; fail "dcg $layer: '$how' replaced a no-delete name"; }
			grep -q '^dcg: blocked rename' "$T/out" ||
				{ cat "$T/out"; fail "dcg $layer: '$how': no refusal line"; }
			echo "ok dir: dcg $layer refused $how"
		done
	done
fi

# ---- laundering ----------------------------------------------------------------------
# name|command|what must still be there
cat >"$T/launder" <<'CASES'
sed_then_rm|sed -i '' nd/f && rm nd/f|nd/f
sed_then_rm_f|sed -i 's/a/b/' nd/f && rm -f nd/f|nd/f
sed_twice_then_rm|sed -i '' nd/f && sed -i '' nd/f && rm nd/f|nd/f
python_replace_then_unlink|python3 -c "import os; open('nd/t','w').write('x'); os.replace('nd/t','nd/f'); os.unlink('nd/f')"|nd/f
perl_then_rm_r|perl -i -pe 1 nd/sub/g && rm -r nd/sub|nd/sub/g
sed_then_mv_away|sed -i '' nd/f && mv nd/f out/f|nd/f
sed_then_mv_within|sed -i '' nd/f && mv nd/f nd/h|nd/f
sed_then_replace_by_old|sed -i '' nd/f && mv out/old nd/f; rm nd/f|nd/f
CASES
if want launder; then
	while IFS='|' read -r name cmd keep; do
		[ -n "$name" ] || continue
		# without dcg the name is gone (else the case proves nothing here)
		fresh
		echo old >"$W/out/old"
		(cd "$W" && bash -c "$cmd") >/dev/null 2>&1
		[ -e "$W/$keep" ] && fail "$name: $keep survives even without dcg"
		for layer in "${layers[@]}"; do
			fresh
			echo old >"$W/out/old"
			(cd "$W" && $DCG $(largs $layer) --policy "$P" -- bash -c "$cmd") >"$T/out" 2>&1
			[ -e "$W/$keep" ] || { cat "$T/out"; fail "$name: $keep laundered away under dcg $layer"; }
			grep -q "^dcg: blocked .*$W/nd/" "$T/out" ||
				{ cat "$T/out"; fail "$name: no refusal line under dcg $layer"; }
			echo "ok launder $name: dcg $layer"
		done
	done <"$T/launder"
fi

# ---- ordinary work in a no-delete folder --------------------------------------------
# name|command (in $W; nd/ is fresh and older than the session)|what must be gone after
cat >"$T/ordinary" <<'CASES'
sed_i|sed -i 's/a/b/' nd/f && grep -q 'b line' nd/f|
perl_i|perl -i -pe 's/a/c/' nd/f && grep -q 'c line' nd/f|
python_atomic_save|python3 -c "import os; open('nd/.f.tmp','w').write('new\n'); os.replace('nd/.f.tmp','nd/f')" && grep -q new nd/f|nd/.f.tmp
editor_backup_save|cp nd/f nd/f~ && printf 'edited\n' >nd/.f.swp && mv nd/.f.swp nd/f && rm nd/f~ && grep -q edited nd/f|nd/f~
made_then_deleted|echo x >nd/new && sed -i 's/x/y/' nd/new && mv nd/new nd/new2 && rm nd/new2|nd/new2
made_dir_then_deleted|mkdir -p nd/tmpd/a && echo x >nd/tmpd/a/f && rm -r nd/tmpd|nd/tmpd
git_commits|git -C nd/repo add -A && git -C nd/repo commit -qm two && echo more >>nd/repo/file && git -C nd/repo commit -qam three && git -C nd/repo status --short|nd/repo/.git/index.lock
CASES
if want ordinary; then
	command -v git >/dev/null || { echo "git missing: no git case"; }
	while IFS='|' read -r name cmd gone; do
		[ -n "$name" ] || continue
		case $name in git_*) command -v git >/dev/null || continue ;; esac
		for layer in "${layers[@]}"; do
			fresh
			if [ "${name#git_}" != "$name" ]; then
				git init -q "$W/nd/repo"
				git -C "$W/nd/repo" config user.email t@example.com
				git -C "$W/nd/repo" config user.name t
				echo one >"$W/nd/repo/file"
				git -C "$W/nd/repo" add file
				git -C "$W/nd/repo" commit -qm one
				echo two >>"$W/nd/repo/file"
			fi
			(cd "$W" && $DCG $(largs $layer) --policy "$P" -- bash -c "$cmd") >"$T/out" 2>&1 ||
				{ cat "$T/out"; fail "$name failed under dcg $layer"; }
			grep -q '^dcg:' "$T/out" && { cat "$T/out"; fail "$name: a dcg line under dcg $layer"; }
			[ -z "$gone" ] || [ ! -e "$W/$gone" ] || fail "$name: $gone left behind under dcg $layer"
			echo "ok ordinary $name: dcg $layer"
		done
	done <"$T/ordinary"
fi
