#!/bin/bash
# Runs every tests/integration/test_*.sh with BUILD set and a fresh temporary
# directory in TMPDIR_TEST. Exit 0 passes, 77 skips, anything else fails. Each script
# runs under a timeout so that a hang is a failure, not a stuck CI.
set -u
BUILD=${1:-build}
cd "$(dirname "$0")/../.." || exit 1
export BUILD
export DCG_BIN="$PWD/$BUILD/dcg"
pass=0 fail=0 skip=0
failed=()
for t in tests/integration/test_*.sh; do
	[ -e "$t" ] || continue
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/dcg-it.XXXXXX")
	log="$tmp.log"
	start=$(date +%s)
	# dcg run's snapshots go to the test's own folder unless the script names one:
	# never into the machine's /tmp/dcg-UID, where they would pile up run after run.
	mkdir -m 700 "$tmp/xdg-run"
	XDG_RUNTIME_DIR="$tmp/xdg-run" TMPDIR_TEST="$tmp" timeout 600 bash "$t" >"$log" 2>&1
	rc=$?
	secs=$(( $(date +%s) - start ))
	case $rc in
	0) pass=$((pass + 1)); echo "PASS $t (${secs}s)" ;;
	77) skip=$((skip + 1)); echo "SKIP $t: $(tail -n 1 "$log")" ;;
	*) fail=$((fail + 1)); failed+=("$t"); echo "FAIL $t (rc=$rc, ${secs}s)"; sed 's/^/    /' "$log" | tail -n 40 ;;
	esac
	# A test that replaced /dev/null (a control run gone wrong as root) breaks every
	# later program that writes there: name it, and put the device back.
	if [ ! -c /dev/null ]; then
		fail=$((fail + 1)); failed+=("$t"); echo "FAIL $t: /dev/null is no longer a device"
		[ "$(id -u)" = 0 ] && rm -f /dev/null && mknod -m 666 /dev/null c 1 3
	fi
	chmod -R u+rwX "$tmp" 2>/dev/null
	rm -rf "$tmp" "$log"
done
echo "integration: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
