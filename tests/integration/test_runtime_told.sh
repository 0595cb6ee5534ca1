#!/bin/bash
# One process refused many times (rm -rf of a protected tree: one refusal per file)
# prints RT_TOLD_MAX (20) refusal lines and one line saying the rest go to the audit log,
# under each runtime layer; every refusal is still in the audit log, and every file
# survives.
. "$(dirname "$0")/lib.sh"

W=$T/ws
mkdir -p "$W/nd/deep"
for i in $(seq 60); do echo "$i" >"$W/nd/deep/f$i"; done
printf "noDeletePaths: ['%s/nd/']\n" "$W" >"$W/policy.yaml"
sleep 0.05 # the files are older than the session (runtime/rt.c, rt_session_now)


for layer in run sandbox "sandbox --no-preload"; do
	[ "$layer" != run ] && [ $sandbox_ok = 0 ] && continue
	rm -f "$DCG_LOG"
	(cd "$W" && "$DCG" $layer --policy policy.yaml -- rm -rf nd/deep) 2>"$T/err" &&
		fail "dcg $layer: rm -rf of a no-delete tree succeeded"
	blocked=$(grep -c '^dcg: blocked' "$T/err")
	more=$(grep -c '^dcg: further refusals of this process go to the audit log only' "$T/err")
	[ "$blocked" = 20 ] && [ "$more" = 1 ] ||
		{ head -30 "$T/err"; fail "dcg $layer: $blocked refusal lines and $more closing lines, not 20 and 1"; }
	logged=$(grep -c '"decision":"deny"' "$DCG_LOG")
	[ "$logged" -ge 60 ] || fail "dcg $layer: $logged refusals in the audit log, not 60 or more"
	[ "$(ls "$W/nd/deep" | wc -l)" = 60 ] || fail "dcg $layer: files of the no-delete tree are gone"
	echo "dcg $layer: 20 lines, then the audit log ($logged refusals)"
done
