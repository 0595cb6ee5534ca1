#!/bin/bash
# tests/e2e/pi/run.sh: the real pi agent (npm @mariozechner/pi-coding-agent) with dcg's
# extension, installed by `dcg install --agent pi`, against a scripted model on
# 127.0.0.1 inside a network namespace with only loopback (`unshare -n`).
#
# The "model" asks for a destructive bash call, a write to a read-only path, a read
# of a zero-access path, an ask-rule call and a harmless call. With the extension the
# dangerous ones are refused (victims survive byte for byte, the model is told
# "Security Policy Violation: ..."), the harmless one runs; a control run without the
# extension shows that the same calls really do their damage.
#
# Env: DCG (binary, default build/dcg), DCG_E2E_CACHE (npm cache dir, outside git),
# DCG_E2E_RUNS (run dirs, default tests/e2e/runs). Exit 0 all passed, 77 skipped
# (no node/npm/unshare, or pi not installable), 1 some failed.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
PI_VERSION=0.73.1
PORT=${PORT:-18931}

. "$ROOT/tests/e2e/lib.sh"
e2e_client pi @mariozechner/pi-coding-agent "$PI_VERSION" dist/cli.js python3 -- "$@"
PI_CLI=$CLIENT

# new_run NAME: a fresh run dir with a project, a home and the victims.
new_run() {
	R=$RUNS/$1
	rm -rf "$R"
	mkdir -p "$R/proj" "$R/home/.pi/agent" "$R/home/.ssh" "$R/ro" "$R/doomed"
	# victim 1: a git repo with uncommitted work (git reset --hard would lose it)
	e2e_git_victim "$R"
	# victim 2: a read-only file (the project's damage-control rules say so)
	printf 'read-only bytes\n' >"$R/ro/keep.txt"
	# victim 3: a folder a rm -rf rule protects
	printf 'doomed bytes\n' >"$R/doomed/keep.txt"
	# victim 4: a secret under ~/.ssh (zero-access in dcg's defaults)
	printf 'SECRET-KEY-MATERIAL\n' >"$R/home/.ssh/id_e2e"
	cp "$R/ro/keep.txt" "$R/ro.orig"
	cat >"$R/home/.pi/agent/models.json" <<JSON
{ "providers": { "mock": {
    "baseUrl": "http://127.0.0.1:$PORT", "api": "anthropic-messages", "apiKey": "dummy",
    "models": [ { "id": "mock-model", "name": "Mock Model", "reasoning": false,
                  "contextWindow": 128000, "maxTokens": 4096 } ] } } }
JSON
}

# rules FILE_CONTENT: the project's .pi/damage-control-rules.yaml
rules() {
	mkdir -p "$R/proj/.pi"
	printf '%s\n' "$1" >"$R/proj/.pi/damage-control-rules.yaml"
}

good_rules() {
	rules "bashToolPatterns:
  - pattern: '\\btruncate\\s+-s\\s*0\\b'
    reason: truncate -s 0 empties files
  - pattern: '\\bdeploy-prod\\b'
    reason: deploys to production
    ask: true
readOnlyPaths:
  - $R/ro/"
}

# run_pi SCENARIO_JSON [pi args...]: one pi -p run against the mock, in $R/proj.
run_pi() {
	local scen=$1
	shift
	printf '%s\n' "$scen" | sed "s#{RUN}#$R#g" >"$R/scenario.json"
	python3 "$HERE/../mock_model.py" --port "$PORT" --scenario "$R/scenario.json" \
		--log "$R/requests.jsonl" 2>"$R/mock.err" &
	local mock=$!
	for _ in $(seq 50); do (echo >/dev/tcp/127.0.0.1/$PORT) 2>/dev/null && break; sleep 0.1; done
	(cd "$R/proj" && env -i PATH="${E2E_CLIENT_PATH:-/usr/local/bin:/usr/bin:/bin}" HOME="$R/home" TERM=dumb \
		LANG=C.UTF-8 SHELL=/bin/bash PI_CODING_AGENT_DIR="$R/home/.pi/agent" PI_OFFLINE=1 \
		PI_TELEMETRY=0 DCG_LOG="$R/audit.jsonl" XDG_CONFIG_HOME="$R/home/.config" \
		${EXTRA_ENV:-} timeout 120 ${E2E_WRAP:-} node "$PI_CLI" -p "do it" --provider mock \
		--model mock-model --no-session "$@" >"$R/out.txt" 2>"$R/err.txt" </dev/null)
	echo "rc=$?" >"$R/rc.txt"
	kill "$mock" 2>/dev/null
	wait "$mock" 2>/dev/null
	[ -s "$R/requests.jsonl" ] || : >"$R/requests.jsonl"
}

install_ext() { # install_ext --project|--user
	(cd "$R/proj" && HOME="$R/home" PI_CODING_AGENT_DIR="$R/home/.pi/agent" \
		"$DCG" install --agent pi --force "$1" >"$R/install.txt" 2>&1)
}

# run_pi_rpc yes|no SCENARIO_JSON: pi in RPC mode, where the extension has a UI;
# confirm dialogs are answered yes or no; UI requests land in $R/ui.jsonl and the
# session (with the extension's appendEntry records) in $R/sessions.
run_pi_rpc() {
	local answer=$1 scen=$2
	printf '%s\n' "$scen" | sed "s#{RUN}#$R#g" >"$R/scenario.json"
	python3 "$HERE/../mock_model.py" --port "$PORT" --scenario "$R/scenario.json" \
		--log "$R/requests.jsonl" 2>"$R/mock.err" &
	local mock=$!
	for _ in $(seq 50); do (echo >/dev/tcp/127.0.0.1/$PORT) 2>/dev/null && break; sleep 0.1; done
	(cd "$R/proj" && env -i PATH="${E2E_CLIENT_PATH:-/usr/local/bin:/usr/bin:/bin}" HOME="$R/home" TERM=dumb \
		LANG=C.UTF-8 SHELL=/bin/bash PI_CODING_AGENT_DIR="$R/home/.pi/agent" PI_OFFLINE=1 \
		PI_TELEMETRY=0 DCG_LOG="$R/audit.jsonl" XDG_CONFIG_HOME="$R/home/.config" \
		python3 "$HERE/rpc_driver.py" --confirm "$answer" --log "$R/ui.jsonl" -- \
		node "$PI_CLI" --mode rpc --provider mock --model mock-model \
		--session-dir "$R/sessions" >"$R/out.txt" 2>"$R/err.txt" </dev/null)
	echo "rc=$?" >"$R/rc.txt"
	kill "$mock" 2>/dev/null
	wait "$mock" 2>/dev/null
	[ -f "$R/requests.jsonl" ] || : >"$R/requests.jsonl"
}

# ui METHOD TEXT: some UI request of that method carries TEXT
ui() { grep "\"method\": \"$1\"" "$R/ui.jsonl" 2>/dev/null | grep -qF -- "$2"; }

told() { python3 "$HERE/check.py" "$R/requests.jsonl" "$@"; }
same() { cmp -s "$1" "$2"; }

SCEN_RESET='{"steps": [{"name": "bash", "input": {"command": "cd {RUN}/proj && git reset --hard"}}], "final_text": "E2E done."}'
SCEN_WRITE_RO='{"steps": [{"name": "write", "input": {"path": "{RUN}/ro/keep.txt", "content": "overwritten\n"}}], "final_text": "E2E done."}'
SCEN_RM='{"steps": [{"name": "bash", "input": {"command": "truncate -s 0 {RUN}/doomed/keep.txt"}}], "final_text": "E2E done."}'
SCEN_READ_SECRET='{"steps": [{"name": "read", "input": {"path": "~/.ssh/id_e2e"}}], "final_text": "E2E done."}'
SCEN_HARMLESS='{"steps": [{"name": "bash", "input": {"command": "echo harmless > {RUN}/proj/harmless.txt"}}, {"name": "write", "input": {"path": "notes.txt", "content": "fine\n"}}], "final_text": "E2E done."}'
SCEN_ASK='{"steps": [{"name": "bash", "input": {"command": "deploy-prod --now || true; echo ran > {RUN}/proj/asked.txt"}}], "final_text": "E2E done."}'

# ---- control: the same calls without the extension really do their damage -------------
new_run control
good_rules
run_pi "$SCEN_RESET"
same "$R/proj/work.txt" "$R/work.orig" && ko "control: git reset --hard did not run (test proves nothing)" || ok "control: git reset --hard destroys the uncommitted work without dcg"
run_pi "$SCEN_WRITE_RO"
same "$R/ro/keep.txt" "$R/ro.orig" && ko "control: write did not run" || ok "control: the write overwrites the read-only file without dcg"
run_pi "$SCEN_RM"
[ -s "$R/doomed/keep.txt" ] && ko "control: truncate did not run" || ok "control: truncate -s 0 empties the file without dcg"
run_pi "$SCEN_READ_SECRET"
told --has SECRET-KEY-MATERIAL >/dev/null && ok "control: the model reads the secret without dcg" || ko "control: the read did not reach the secret"

# ---- with the extension (project install) -------------------------------------------------
new_run ext
good_rules
install_ext --project
[ -f "$R/proj/.pi/extensions/dcg-damage-control.ts" ] && ok "dcg install --agent pi --project writes .pi/extensions/dcg-damage-control.ts" || ko "install: $(cat "$R/install.txt")"
grep -q "\"$DCG\"" "$R/proj/.pi/extensions/dcg-damage-control.ts" && ok "the installed extension names this dcg binary" || ko "the installed extension does not name $DCG"

run_pi "$SCEN_RESET"
if same "$R/proj/work.txt" "$R/work.orig" && told --has "Security Policy Violation: git reset --hard" >/dev/null; then
	ok "git reset --hard is blocked: the work survives byte for byte, the model gets the reason"
else
	ko "git reset --hard: work survived=$(same "$R/proj/work.txt" "$R/work.orig" && echo yes || echo no)"
	told --has "Security Policy Violation" --dump
fi
run_pi "$SCEN_WRITE_RO"
if same "$R/ro/keep.txt" "$R/ro.orig" && told --has "Security Policy Violation" >/dev/null; then
	ok "a write to a read-only path (.pi/damage-control-rules.yaml) is blocked, the file survives byte for byte"
else
	ko "write to read-only path: survived=$(same "$R/ro/keep.txt" "$R/ro.orig" && echo yes || echo no)"
	told --has "Security Policy Violation" --dump
fi
run_pi "$SCEN_RM"
if [ "$(cat "$R/doomed/keep.txt")" = "doomed bytes" ] && told --has "Security Policy Violation: truncate -s 0 empties files" >/dev/null; then
	ok "truncate -s 0 is blocked by a bashToolPatterns rule of .pi/damage-control-rules.yaml"
else
	ko "truncate with the rules file: $(wc -c <"$R/doomed/keep.txt") bytes left"
	told --has "truncate" --dump
fi
run_pi "$SCEN_READ_SECRET"
if told --lacks SECRET-KEY-MATERIAL --has "Security Policy Violation" >/dev/null; then
	ok "a read of ~/.ssh (zero-access) is blocked: the model never sees the secret"
else
	ko "read of ~/.ssh"
	told --lacks SECRET-KEY-MATERIAL --dump
fi
run_pi "$SCEN_ASK"
if [ ! -e "$R/proj/asked.txt" ] && told --has "there is no one to ask" >/dev/null; then
	ok "an ask rule with no UI (pi -p) is a deny"
else
	ko "ask without UI: ran=$([ -e "$R/proj/asked.txt" ] && echo yes || echo no)"
	told --has "no one to ask" --dump
fi
run_pi "$SCEN_HARMLESS"
if [ "$(cat "$R/proj/harmless.txt" 2>/dev/null)" = harmless ] && [ "$(cat "$R/proj/notes.txt" 2>/dev/null)" = fine ]; then
	ok "harmless bash and write calls run with the extension"
else
	ko "harmless calls did not run: $(cat "$R/err.txt" | tail -5)"
fi
if grep -q '"layer": *"hook"' "$R/audit.jsonl" 2>/dev/null && grep -q '"agent": *"pi"' "$R/audit.jsonl"; then
	ok "dcg's audit log records the pi interceptions"
else
	ko "no pi entries in dcg's audit log: $(head -c 300 "$R/audit.jsonl" 2>/dev/null)"
fi

# ---- a broken rules file: reported, and the rest of the policy still protects -----------
new_run broken_rules
rules "bashToolPatterns: [ this is: not yaml"
install_ext --project
run_pi "$SCEN_RESET"
if same "$R/proj/work.txt" "$R/work.orig" && told --has "Security Policy Violation" >/dev/null; then
	ok "with an unparsable .pi/damage-control-rules.yaml the embedded defaults still block git reset --hard"
else
	ko "broken rules file: work survived=$(same "$R/proj/work.txt" "$R/work.orig" && echo yes || echo no); $(tail -3 "$R/err.txt")"
fi

# ---- user install (~/.pi/agent/extensions) ---------------------------------------------------
new_run user_install
install_ext --user
[ -f "$R/home/.pi/agent/extensions/dcg-damage-control.ts" ] && ok "dcg install --agent pi --user writes ~/.pi/agent/extensions/" || ko "user install: $(cat "$R/install.txt")"
run_pi "$SCEN_RESET"
if same "$R/proj/work.txt" "$R/work.orig" && told --has "Security Policy Violation" >/dev/null; then
	ok "the user-level extension blocks git reset --hard"
else
	ko "user-level extension did not block: $(tail -3 "$R/err.txt")"
fi

# ---- fail closed: the extension refuses every call when dcg cannot answer ------------------
new_run no_dcg
install_ext --project
EXTRA_ENV="DCG_BIN=/nonexistent/dcg" run_pi "$SCEN_HARMLESS"
if [ ! -e "$R/proj/harmless.txt" ] && told --has "dcg could not check this call" >/dev/null; then
	ok "without a working dcg binary the extension refuses calls (fails closed)"
else
	ko "missing dcg: harmless ran=$([ -e "$R/proj/harmless.txt" ] && echo yes || echo no)"
	told --has "could not check" --dump
fi

# ---- with a UI (RPC mode): ask confirms, status line, notifications, session log -----------------
new_run rpc_yes
good_rules
install_ext --project
run_pi_rpc yes "$SCEN_ASK"
if [ "$(cat "$R/proj/asked.txt" 2>/dev/null)" = ran ] && ui confirm '"timeout": 30000' &&
	ui confirm "deploys to production"; then
	ok "an ask rule asks the user (ctx.ui.confirm, 30 s timeout); confirmed, the call runs"
else
	ko "ask confirmed: ran=$([ -e "$R/proj/asked.txt" ] && echo yes || echo no) rc=$(cat "$R/rc.txt"); $(head -c 400 "$R/ui.jsonl" 2>/dev/null)"
fi
ui setStatus "Damage-Control Active: " && ok "the status line shows the active rule count" || ko "no 'Damage-Control Active: N Rules' status: $(grep setStatus "$R/ui.jsonl" | head -2)"
ui notify "dcg asks" && ok "a triggered ask rule is notified" || ko "no notify for the ask"
if grep -rqs '"customType":"damage-control-log"' "$R/sessions" && grep -rqs 'ask-confirmed' "$R/sessions"; then
	ok "every interception is logged with pi.appendEntry(\"damage-control-log\", ...)"
else
	ko "no damage-control-log entry in the session: $(ls -R "$R/sessions" 2>/dev/null | head -5)"
fi

new_run rpc_no
good_rules
install_ext --project
run_pi_rpc no "$SCEN_ASK"
if [ ! -e "$R/proj/asked.txt" ] && told --has "User denied execution" >/dev/null; then
	ok "an ask the user declines blocks the call with \"User denied execution\""
else
	ko "ask declined: ran=$([ -e "$R/proj/asked.txt" ] && echo yes || echo no)"
	told --has "User denied" --dump
fi
run_pi_rpc no "$SCEN_RESET"
if same "$R/proj/work.txt" "$R/work.orig" && ui setStatus "Last Violation: " && ui notify "dcg blocked"; then
	ok "a block is notified and shown as the last violation in the status line"
else
	ko "block with UI: $(grep -E 'setStatus|notify' "$R/ui.jsonl" | tail -3)"
fi

new_run rpc_broken_rules
rules "bashToolPatterns: [ this is: not yaml"
install_ext --project
run_pi_rpc no "$SCEN_RESET"
if ui notify "damage-control-rules.yaml has problems" && same "$R/proj/work.txt" "$R/work.orig"; then
	ok "an unparsable rules file is notified at session start, and the defaults still protect"
else
	ko "broken rules with UI: $(grep notify "$R/ui.jsonl" | head -3)"
fi

# ---- uninstall removes the extension --------------------------------------------------------
(cd "$R/proj" && "$DCG" uninstall --agent pi --project >/dev/null 2>&1)
[ ! -e "$R/proj/.pi/extensions/dcg-damage-control.ts" ] && ok "dcg uninstall --agent pi removes the extension" || ko "uninstall left the extension"

# ---- pi wrapped whole in dcg run / dcg sandbox (no extension: the runtime layer alone) ----
SCEN_SCRIPT='{"steps": [{"name": "write", "input": {"path": "{RUN}/proj/tidy.py", "content": "import base64, shutil\nshutil.rmtree(base64.b64decode(\"LmdpdA==\").decode())\n"}}, {"name": "bash", "input": {"command": "python3 tidy.py"}}], "final_text": "E2E done."}'
SCEN_ORDINARY='{"steps": [{"name": "read", "input": {"path": "{RUN}/proj/work.txt"}}, {"name": "write", "input": {"path": "{RUN}/proj/notes.txt", "content": "notes\n"}}, {"name": "bash", "input": {"command": "ls && git status --short && echo listed"}}], "final_text": "E2E done."}'
e2e_wrapped run_pi "$SCEN_SCRIPT" "$SCEN_ORDINARY"

e2e_finish
