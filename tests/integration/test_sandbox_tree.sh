#!/bin/bash
# dcg sandbox follows the whole process tree: a three-level tree with an orphan, a
# multi-threaded program, exit status and signals passing through, and no run at
# all when the filter cannot be installed.
. "$(dirname "$0")/sbx_progs/lib.sh"
sbx_workspace
sbx_require_kernel
sbx_build sbx_tree
sbx_build sbx_threads

# Three levels; the grandchild outlives its parent and writes done.txt after a
# pause: dcg sandbox returns only after the last descendant has exited.
rm -f "$W/scratch/done.txt"
sbx_expect 0 "$BIN/sbx_tree" nd/f scratch/done.txt
[ "$(cat "$W/scratch/done.txt" 2>/dev/null)" = DONE ] ||
	fail "the orphaned grandchild did not finish inside the sandbox (done.txt: $(cat "$W/scratch/done.txt" 2>&1))"

# Eight threads at once, allowed and refused calls mixed.
sbx_expect 0 "$BIN/sbx_threads" scratch nd/f ro/f

# Exit status passes through.
sbx_expect 0 /bin/true
sbx_expect 1 /bin/false
sbx_expect 42 /bin/sh -c 'exit 42'
# A command that cannot be found is 127, as in a shell.
sbx_expect 127 /nonexistent/cmd

# An exec the policy says to ask about (the embedded core.git.stash_drop) is denied
# when there is no terminal to ask on (setsid: the supervisor has none).
if command -v git >/dev/null; then
	out=$(cd "$W" && setsid -w "${SANDBOX[@]}" --policy "$W/policy.yaml" -- git stash drop 2>&1 </dev/null)
	rc=$?
	[ $rc = 126 ] || fail "ask without a terminal: exit $rc, expected 126 ($out)"
	case $out in *"blocked execve of"*"[core.git.stash_drop]"*) ;; *) fail "no refusal line for the ask: $out" ;; esac
	# The same words after many options, exec'd by a shell: argv's strings lie apart
	# in its memory, not end to end as in a fresh process's.
	out=$(cd "$W" && setsid -w "${SANDBOX[@]}" --policy "$W/policy.yaml" -- /bin/bash -c \
		'git -c a.b=1 -c c.d=2 -c e.f=3 -c g.h=4 -c i.j=5 -c k.l=6 stash drop -q' 2>&1 </dev/null)
	rc=$?
	[ $rc = 126 ] || fail "long argv from a shell: exit $rc, expected 126 ($out)"
	case $out in *"blocked execve of"*"[core.git.stash_drop]"*) ;; *) fail "no refusal line for the long argv: $out" ;; esac
	# ... and from a program whose strings lie in order, a few bytes apart.
	sbx_build sbx_ops
	out=$(cd "$W" && setsid -w "${SANDBOX[@]}" --policy "$W/policy.yaml" -- \
		"$BIN/sbx_ops" exec-spaced "$(command -v git)" 2>&1 </dev/null)
	rc=$?
	[ $rc = 13 ] || fail "spaced argv: exit $rc, expected 13 ($out)"
	case $out in *"blocked execve of"*"[core.git.stash_drop]"*) ;; *) fail "no refusal line for the spaced argv: $out" ;; esac
fi

# Death by a signal passes through: dcg dies of the same signal.
(cd "$W" && sbx /bin/sh -c 'kill -TERM $$') 2>/dev/null
rc=$?
[ $rc = 143 ] || fail "CMD killed by SIGTERM: dcg exited $rc, expected 143"

# SIGTERM and SIGINT sent to dcg reach CMD.
for sig in TERM INT; do
	rm -f "$W/scratch/trapped"
	(cd "$W" && exec "${SANDBOX[@]}" --policy "$W/policy.yaml" -- /bin/bash -c \
		"trap 'echo $sig >scratch/trapped; exit 7' $sig; touch scratch/ready; while :; do sleep 0.05; done") &
	pid=$!
	for _ in $(seq 100); do [ -e "$W/scratch/ready" ] && break; sleep 0.05; done
	[ -e "$W/scratch/ready" ] || fail "CMD did not start"
	kill -s "$sig" "$pid"
	wait "$pid"
	rc=$?
	rm -f "$W/scratch/ready"
	[ $rc = 7 ] || fail "SIG$sig: dcg exited $rc, expected CMD's 7"
	[ "$(cat "$W/scratch/trapped" 2>/dev/null)" = "$sig" ] || fail "SIG$sig did not reach CMD"
done

# A sandbox inside the sandbox cannot install its listener (a second listener would
# take precedence over ours): it says so and runs nothing.
# (--no-preload outside: an ASan-built dcg inside must not find a preload first.)
out=$( (cd "$W" && "${SANDBOX[@]}" --no-preload --policy "$W/policy.yaml" -- \
	"${SANDBOX[@]}" --policy "$W/policy.yaml" -- /bin/sh -c 'echo RAN') 2>&1)
rc=$?
[ $rc = 1 ] || fail "nested sandbox exited $rc, expected 1"
case $out in *RAN*) fail "nested sandbox ran its command without protection" ;; esac
case $out in *"without protection"*) ;; *) fail "no clear message from the nested sandbox: $out" ;; esac

sbx_assert_intact
echo ok
