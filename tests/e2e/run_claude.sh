#!/bin/bash
# One run of the real Claude Code against the mock model, inside a private network
# namespace (only loopback exists, so nothing can leave the machine).
#
#   run_claude.sh RUN_DIR SCENARIO CLAUDE_BIN
#
# DCG_E2E_WRAP, when set, is put before the client's command (e.g. "/path/dcg run --"):
# the whole client then runs under a runtime layer. DCG_E2E_ENV adds NAME=VALUE words to
# the client's environment.
# RUN_DIR holds proj/ (the working directory, with .claude/settings.json when the hook
# is installed), home/ (a throwaway HOME) and the scenario's victims. Writes there:
# scenario.json, requests.jsonl (what the client sent the model), out.json, err.txt,
# mock.err and rc.
set -u
if [ -z "${DCG_E2E_IN_NETNS:-}" ]; then
	# Root can make the namespace directly; others through a user namespace.
	if [ "$(id -u)" = 0 ]; then
		exec env DCG_E2E_IN_NETNS=1 unshare -n "$0" "$@"
	else
		exec env DCG_E2E_IN_NETNS=1 unshare -rn "$0" "$@"
	fi
fi
R=$1
SCENARIO=$2
CLAUDE=$3
PORT=${DCG_E2E_PORT:-8765}
HERE=$(cd "$(dirname "$0")" && pwd)

ip link set lo up 2>/dev/null || { echo "run_claude: cannot bring up lo" >&2; exit 1; }
sed "s#{RUN}#$R#g" "$SCENARIO" > "$R/scenario.json"
: > "$R/requests.jsonl"
python3 "$HERE/mock_model.py" --port "$PORT" --scenario "$R/scenario.json" \
	--log "$R/requests.jsonl" 2> "$R/mock.err" &
MOCK=$!
for _ in $(seq 100); do
	(echo > /dev/tcp/127.0.0.1/"$PORT") 2>/dev/null && break
	sleep 0.05
done

cd "$R/proj" || exit 1
# A clean environment: only what the client needs to talk to the mock. IS_SANDBOX=1
# lets bypassPermissions run as root (the namespace makes us root).
env -i PATH="${E2E_CLIENT_PATH:-/usr/local/bin:/usr/bin:/bin}" HOME="$R/home" TERM=dumb LANG=C.UTF-8 SHELL=/bin/bash \
	ANTHROPIC_BASE_URL="http://127.0.0.1:$PORT" ANTHROPIC_API_KEY=dummy \
	DISABLE_TELEMETRY=1 DISABLE_ERROR_REPORTING=1 DISABLE_AUTOUPDATER=1 \
	CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 IS_SANDBOX=1 ${DCG_E2E_ENV:-} \
	timeout 120 ${DCG_E2E_WRAP:-} "$CLAUDE" -p "do it" --output-format json \
	--permission-mode bypassPermissions \
	> "$R/out.json" 2> "$R/err.txt" < /dev/null
echo $? > "$R/rc"
kill "$MOCK" 2>/dev/null
wait "$MOCK" 2>/dev/null
exit 0
