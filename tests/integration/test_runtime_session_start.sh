#!/bin/bash
# A file made in a no-delete folder in the session's first milliseconds is the
# session's own, under both runtime layers: the kernel stamps it from its coarse clock,
# which lags the fine one by up to a tick (10 ms), so a session start read from the fine
# clock made such a file look older than the session, and its deletion was refused
# most of the time. Each layer makes, renames and deletes one at once, 30 times; a file
# made a tenth of a second before the session still cannot be deleted.
. "$(dirname "$0")/lib.sh"

W=$T/ws
mkdir -p "$W/nd"
printf "noDeletePaths: ['%s/nd/']\n" "$W" >"$W/policy.yaml"


for layer in run sandbox "sandbox --no-preload"; do
	[ "$layer" != run ] && [ $sandbox_ok = 0 ] && continue
	failed=0
	for i in $(seq 30); do
		(cd "$W" && "$DCG" $layer --policy policy.yaml -- \
			sh -c 'echo x > nd/f && mv nd/f nd/g && rm nd/g') 2>"$T/err" || {
			failed=$((failed + 1))
			sed 's/^/    /' "$T/err"
			rm -f "$W/nd/f" "$W/nd/g"
		}
	done
	[ $failed = 0 ] || fail "dcg $layer: $failed of 30 files made at the session's start were kept"

	echo old >"$W/nd/old"
	sleep 0.1
	(cd "$W" && "$DCG" $layer --policy policy.yaml -- rm -f nd/old) 2>"$T/err"
	[ -f "$W/nd/old" ] || fail "dcg $layer let a file made before the session go"
	grep -q "^dcg: blocked .* of $W/nd/old: noDeletePaths" "$T/err" ||
		{ cat "$T/err"; fail "dcg $layer: no refusal line for the older file"; }
	rm -f "$W/nd/old"
	echo "dcg $layer: 30 files made at the session's start deleted, an older one kept"

	# The one $DCG_SESSION format (runtime/rt.h) as the agent sees it, under each
	# launcher: PID.SECONDS.NANOSECONDS.AGENTSTART:FILE, the pid and start its own,
	# the file of kept names the launcher made in the guard's folder.
	(cd "$W" && "$DCG" $layer --policy policy.yaml -- \
		sh -c 'set -- $(cat /proc/$$/stat); echo "$$ ${22} $DCG_SESSION"') >"$T/sess" 2>"$T/err" ||
		{ cat "$T/err"; fail "dcg $layer: no session shown"; }
	read -r pid start sess <"$T/sess"
	re='^([0-9]+)\.[0-9]+\.[0-9]{9}\.([0-9]+):(/.*/session-[0-9]+-[0-9]+)$'
	[[ $sess =~ $re ]] || fail "dcg $layer: \$DCG_SESSION '$sess' is not PID.SEC.NSEC.AGENTSTART:FILE"
	[ "${BASH_REMATCH[1]}" = "$pid" ] || fail "dcg $layer: the session's pid ${BASH_REMATCH[1]} is not the agent's $pid"
	[ "${BASH_REMATCH[2]}" = "$start" ] ||
		fail "dcg $layer: the session's agent start ${BASH_REMATCH[2]} is not the agent's $start"
	case ${BASH_REMATCH[3]} in
	"$XDG_RUNTIME_DIR"/dcg/session-*) ;;
	*) fail "dcg $layer: the kept names' file ${BASH_REMATCH[3]} is not in the guard's folder" ;;
	esac
	echo "dcg $layer: \$DCG_SESSION is $sess"
done
