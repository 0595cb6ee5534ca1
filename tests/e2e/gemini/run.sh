#!/bin/bash
# tests/e2e/gemini/run.sh: the real Gemini CLI (npm @google/gemini-cli) with dcg's
# BeforeTool hook, installed by `dcg install --agent gemini`, against a scripted
# Gemini API on 127.0.0.1 inside a network namespace with only loopback (`unshare -n`).
#
# Facts this relies on (Gemini CLI 0.61.0): GOOGLE_GEMINI_BASE_URL with GEMINI_API_KEY
# and security.auth.selectedType "gemini-api-key" drive `gemini -p` offline against
# .../v1beta/models/M:streamGenerateContent; project hooks run only in a trusted folder
# (security.folderTrust.enabled false here); hooks get {"tool_name","tool_input","cwd"}
# and a {"decision":"deny","reason"} answer becomes the tool's error for the model.
#
# Env: DCG, DCG_E2E_CACHE, DCG_E2E_RUNS as in ../pi/run.sh. Exit 0, 77 skipped, 1 failed.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
KIT=$ROOT/tests/e2e/pi # the checker of what the client told the model
GEMINI_VERSION=0.61.0
PORT=${PORT:-18933}

. "$ROOT/tests/e2e/lib.sh"
e2e_client gemini @google/gemini-cli "$GEMINI_VERSION" bundle/gemini.js python3 git -- "$@"
GEMINI_JS=$CLIENT

new_run() {
	R=$RUNS/$1
	rm -rf "$R"
	mkdir -p "$R/proj/vendor" "$R/proj/certs" "$R/home/.gemini"
	e2e_git_victim "$R"
	# Gemini CLI refuses paths outside the workspace by itself: the victims live inside
	printf 'read-only line\n' >"$R/proj/vendor/keep.txt"
	cp "$R/proj/vendor/keep.txt" "$R/ro.orig"
	printf 'SECRET-KEY-MATERIAL\n' >"$R/proj/certs/prod.pem"
	mkdir -p "$R/proj/.dcg"
	cat >"$R/proj/.dcg/policy.yaml" <<YAML
readOnlyPaths:
  - $R/proj/vendor/
bashToolPatterns:
  - pattern: '\\bdeploy-prod\\b'
    reason: deploys to production
    ask: true
YAML
	# the user's own settings, which the install must keep
	cat >"$R/home/.gemini/settings.json" <<JSON
{"security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": false}},
 "general": {"disableAutoUpdate": true}, "privacy": {"usageStatisticsEnabled": false}}
JSON
}

run_gemini() {
	printf '%s\n' "$1" | sed "s#{RUN}#$R#g" >"$R/scenario.json"
	python3 "$ROOT/tests/e2e/mock_model.py" --port "$PORT" --scenario "$R/scenario.json" \
		--log "$R/requests.jsonl" 2>"$R/mock.err" &
	local mock=$!
	for _ in $(seq 50); do (echo >/dev/tcp/127.0.0.1/$PORT) 2>/dev/null && break; sleep 0.1; done
	(cd "$R/proj" && env -i PATH="${E2E_CLIENT_PATH:-/usr/local/bin:/usr/bin:/bin}" HOME="$R/home" TERM=dumb \
		LANG=C.UTF-8 GEMINI_API_KEY=dummy GOOGLE_GEMINI_BASE_URL="http://127.0.0.1:$PORT" \
		DCG_LOG="$R/audit.jsonl" XDG_CONFIG_HOME="$R/home/.config" ${GEMINI_ENV:-} \
		timeout 120 ${E2E_WRAP:-} node "$GEMINI_JS" -p "do it" --yolo -m gemini-2.5-flash \
		>"$R/out.txt" 2>"$R/err.txt" </dev/null)
	echo "rc=$?" >"$R/rc.txt"
	kill "$mock" 2>/dev/null
	wait "$mock" 2>/dev/null
	[ -f "$R/requests.jsonl" ] || : >"$R/requests.jsonl"
}

install_hook() { # --user | --project
	(cd "$R/proj" && HOME="$R/home" "$DCG" install --agent gemini --force "$1" >"$R/install.txt" 2>&1)
}

told() { python3 "$KIT/check.py" "$R/requests.jsonl" "$@"; }
same() { cmp -s "$1" "$2"; }

SCEN_RESET='{"steps": [{"name": "run_shell_command", "input": {"command": "git reset --hard"}}], "final_text": "E2E done."}'
SCEN_WRITE_RO='{"steps": [{"name": "write_file", "input": {"file_path": "{RUN}/proj/vendor/keep.txt", "content": "overwritten\n"}}], "final_text": "E2E done."}'
SCEN_REPLACE_RO='{"steps": [{"name": "replace", "input": {"file_path": "{RUN}/proj/vendor/keep.txt", "old_string": "read-only line", "new_string": "replaced line", "instruction": "change it"}}], "final_text": "E2E done."}'
SCEN_READ_SECRET='{"steps": [{"name": "read_file", "input": {"file_path": "{RUN}/proj/certs/prod.pem"}}], "final_text": "E2E done."}'
SCEN_GREP_PEM='{"steps": [{"name": "grep_search", "input": {"pattern": "SECRET", "include_pattern": "*.pem"}}], "final_text": "E2E done."}'
SCEN_ASK='{"steps": [{"name": "run_shell_command", "input": {"command": "deploy-prod --now || true; echo ran > asked.txt"}}], "final_text": "E2E done."}'
SCEN_HARMLESS='{"steps": [{"name": "run_shell_command", "input": {"command": "echo harmless > harmless.txt"}}, {"name": "write_file", "input": {"file_path": "{RUN}/proj/notes.txt", "content": "fine\n"}}], "final_text": "E2E done."}'

# ---- control: no hook ------------------------------------------------------------------------
new_run control
run_gemini "$SCEN_RESET"
if ! same "$R/proj/work.txt" "$R/work.orig"; then
	ok "control: git reset --hard destroys the uncommitted work without dcg"
else
	ko "control: git reset --hard did not run (rc $(cat "$R/rc.txt")): $(tail -3 "$R/err.txt")"
fi
run_gemini "$SCEN_WRITE_RO"
same "$R/proj/vendor/keep.txt" "$R/ro.orig" && ko "control: write_file did not run: $(tail -3 "$R/err.txt")" || ok "control: write_file overwrites the read-only file without dcg"
run_gemini "$SCEN_READ_SECRET"
told --has SECRET-KEY-MATERIAL >/dev/null && ok "control: the model reads the secret without dcg" || ko "control: read_file did not reach the secret"
run_gemini "$SCEN_GREP_PEM"
told --has SECRET-KEY-MATERIAL >/dev/null && ok "control: grep_search finds the secret without dcg" || ko "control: grep_search did not reach the secret"

# ---- user settings (~/.gemini/settings.json) ------------------------------------------------------
new_run user_hook
install_hook --user
if grep -q "hook --agent gemini" "$R/home/.gemini/settings.json" && grep -q '"folderTrust"' "$R/home/.gemini/settings.json"; then
	ok "dcg install --agent gemini --user merges into ~/.gemini/settings.json, keeping the user's settings"
else
	ko "install: $(cat "$R/install.txt")"
fi
run_gemini "$SCEN_RESET"
if same "$R/proj/work.txt" "$R/work.orig" && told --has "core.git.reset_hard" >/dev/null; then
	ok "git reset --hard is blocked: the work survives byte for byte, the model gets dcg's reason"
else
	ko "git reset --hard: survived=$(same "$R/proj/work.txt" "$R/work.orig" && echo yes || echo no)"
	told --has "core.git.reset_hard" --dump
fi
run_gemini "$SCEN_WRITE_RO"
if same "$R/proj/vendor/keep.txt" "$R/ro.orig" && told --has "read-only path" >/dev/null; then
	ok "write_file to a read-only path is blocked, the file survives byte for byte"
else
	ko "write_file read-only: survived=$(same "$R/proj/vendor/keep.txt" "$R/ro.orig" && echo yes || echo no)"
	told --has "read-only" --dump
fi
run_gemini "$SCEN_REPLACE_RO"
if same "$R/proj/vendor/keep.txt" "$R/ro.orig" && told --has "read-only path" >/dev/null; then
	ok "replace in a read-only file is blocked"
else
	ko "replace read-only: survived=$(same "$R/proj/vendor/keep.txt" "$R/ro.orig" && echo yes || echo no)"
	told --has "read-only" --dump
fi
run_gemini "$SCEN_READ_SECRET"
if told --lacks SECRET-KEY-MATERIAL --has "zero-access" >/dev/null; then
	ok "read_file of a *.pem file (zero-access) is blocked: the model never sees the secret"
else
	ko "read_file of a secret"
	told --lacks SECRET-KEY-MATERIAL --dump
fi
run_gemini "$SCEN_GREP_PEM"
if told --lacks SECRET-KEY-MATERIAL --has "zero-access" >/dev/null; then
	ok "grep_search over *.pem files (zero-access) is blocked: the model never sees the secret"
else
	ko "grep_search over secrets"
	told --lacks SECRET-KEY-MATERIAL --dump
fi
run_gemini "$SCEN_ASK"
if [ ! -e "$R/proj/asked.txt" ] && told --has "needs the user's confirmation" >/dev/null; then
	ok "an ask rule becomes a deny that says the user must confirm (gemini -p would wait for ever)"
else
	ko "ask rule ran in non-interactive mode"
	told --dump
fi
run_gemini "$SCEN_HARMLESS"
if [ "$(cat "$R/proj/harmless.txt" 2>/dev/null)" = harmless ] && [ "$(cat "$R/proj/notes.txt" 2>/dev/null)" = fine ]; then
	ok "a harmless command and a harmless write run with the hook"
else
	ko "harmless calls did not run: $(tail -5 "$R/err.txt")"
fi
grep -q '"agent":"gemini"' "$R/audit.jsonl" 2>/dev/null && ok "dcg's audit log records the Gemini CLI refusals" || ko "no gemini entries in the audit log"

# ---- project settings (.gemini/settings.json) --------------------------------------------------------
new_run project_hook
install_hook --project
run_gemini "$SCEN_RESET"
if same "$R/proj/work.txt" "$R/work.orig" && told --has "core.git.reset_hard" >/dev/null; then
	ok "the project hook (.gemini/settings.json) blocks git reset --hard"
else
	ko "project hook did not block: $(tail -3 "$R/err.txt")"
fi
(cd "$R/proj" && "$DCG" uninstall --agent gemini --project >/dev/null 2>&1)
grep -q "hook --agent" "$R/proj/.gemini/settings.json" 2>/dev/null && ko "uninstall left dcg in .gemini/settings.json" || ok "dcg uninstall --agent gemini removes the hook"

# ---- Gemini CLI wrapped whole in dcg run / dcg sandbox (no hook: the runtime layer alone) ----
SCEN_SCRIPT='{"steps": [{"name": "write_file", "input": {"file_path": "{RUN}/proj/tidy.py", "content": "import base64, shutil\nshutil.rmtree(base64.b64decode(\"LmdpdA==\").decode())\n"}}, {"name": "run_shell_command", "input": {"command": "python3 tidy.py"}}], "final_text": "E2E done."}'
SCEN_ORDINARY='{"steps": [{"name": "read_file", "input": {"file_path": "{RUN}/proj/work.txt"}}, {"name": "write_file", "input": {"file_path": "{RUN}/proj/notes.txt", "content": "notes\n"}}, {"name": "run_shell_command", "input": {"command": "ls && git status --short && echo listed"}}], "final_text": "E2E done."}'
# Gemini CLI relaunches itself in a child node process (more heap) unless told not to;
# that child, not the process dcg started, then writes ~/.gemini/settings.json, which
# only the agent's own process may (owner :agent). Wrapped, it runs as one process.
GEMINI_ENV=GEMINI_CLI_NO_RELAUNCH=true e2e_wrapped run_gemini "$SCEN_SCRIPT" "$SCEN_ORDINARY"

e2e_finish
