#!/bin/bash
# tests/e2e/codex/run.sh: the real Codex CLI (npm @openai/codex) with dcg's PreToolUse
# hook, installed by `dcg install --agent codex`, against a scripted Responses API on
# 127.0.0.1 inside a network namespace with only loopback (`unshare -n`).
#
# Facts this relies on (Codex 0.169.0): a provider in config.toml with base_url and
# wire_api = "responses" drives `codex exec` offline; hooks load from $CODEX_HOME/hooks.json
# (user) or .codex/hooks.json (trusted projects) and run untrusted only with
# --dangerously-bypass-hook-trust; the model "gpt-5.5" (served by the mock) gets the
# freeform apply_patch tool; shell calls reach hooks as tool_name "Bash" (also
# `apply_patch <<EOF` run through the shell), patches as "apply_patch".
#
# Env: DCG, DCG_E2E_CACHE, DCG_E2E_RUNS as in ../pi/run.sh. Exit 0, 77 skipped, 1 failed.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
KIT=$ROOT/tests/e2e/pi # the checker of what the client told the model
CODEX_VERSION=0.169.0
PORT=${PORT:-18932}

. "$ROOT/tests/e2e/lib.sh"
e2e_client codex @openai/codex "$CODEX_VERSION" bin/codex.js python3 git -- "$@"
CODEX_JS=$CLIENT

new_run() {
	R=$RUNS/$1
	rm -rf "$R"
	mkdir -p "$R/proj" "$R/home/.codex" "$R/ro"
	e2e_git_victim "$R"
	printf 'read-only line\n' >"$R/ro/keep.txt"
	cp "$R/ro/keep.txt" "$R/ro.orig"
	# the project's dcg policy: a read-only folder and an ask rule
	mkdir -p "$R/proj/.dcg"
	cat >"$R/proj/.dcg/policy.yaml" <<YAML
readOnlyPaths:
  - $R/ro/
bashToolPatterns:
  - pattern: '\\bdeploy-prod\\b'
    reason: deploys to production
    ask: true
YAML
	cat >"$R/home/.codex/config.toml" <<TOML
model = "gpt-5.5"
model_provider = "mock"

[model_providers.mock]
name = "mock"
base_url = "http://127.0.0.1:$PORT/v1"
wire_api = "responses"

[projects."$R/proj"]
trust_level = "trusted"
TOML
}

run_codex() {
	printf '%s\n' "$1" | sed "s#{RUN}#$R#g" >"$R/scenario.json"
	python3 "$ROOT/tests/e2e/mock_model.py" --port "$PORT" --scenario "$R/scenario.json" \
		--log "$R/requests.jsonl" 2>"$R/mock.err" &
	local mock=$!
	for _ in $(seq 50); do (echo >/dev/tcp/127.0.0.1/$PORT) 2>/dev/null && break; sleep 0.1; done
	(cd "$R/proj" && env -i PATH="${E2E_CLIENT_PATH:-/usr/local/bin:/usr/bin:/bin}" HOME="$R/home" \
		CODEX_HOME="$R/home/.codex" OPENAI_API_KEY=dummy LANG=C.UTF-8 TERM=dumb \
		DCG_LOG="$R/audit.jsonl" XDG_CONFIG_HOME="$R/home/.config" \
		timeout 120 ${E2E_WRAP:-} node "$CODEX_JS" exec --skip-git-repo-check \
		--dangerously-bypass-approvals-and-sandbox --dangerously-bypass-hook-trust \
		"do it" >"$R/out.txt" 2>"$R/err.txt" </dev/null)
	echo "rc=$?" >"$R/rc.txt"
	kill "$mock" 2>/dev/null
	wait "$mock" 2>/dev/null
	[ -f "$R/requests.jsonl" ] || : >"$R/requests.jsonl"
}

install_hook() { # --user | --project
	(cd "$R/proj" && HOME="$R/home" CODEX_HOME="$R/home/.codex" \
		"$DCG" install --agent codex --force "$1" >"$R/install.txt" 2>&1)
}

told() { python3 "$KIT/check.py" "$R/requests.jsonl" "$@"; }
same() { cmp -s "$1" "$2"; }

SCEN_RESET='{"steps": [{"name": "exec_command", "input": {"cmd": "git reset --hard", "workdir": "{RUN}/proj"}}], "final_text": "E2E done."}'
SCEN_PATCH_RO='{"steps": [{"name": "apply_patch", "input": {"input": "*** Begin Patch\n*** Update File: {RUN}/ro/keep.txt\n@@\n-read-only line\n+patched line\n*** End Patch\n"}}], "final_text": "E2E done."}'
SCEN_PATCH_MIXED='{"steps": [{"name": "apply_patch", "input": {"input": "*** Begin Patch\n*** Add File: {RUN}/proj/new1.txt\n+one\n*** Add File: {RUN}/proj/new2.txt\n+two\n*** Update File: {RUN}/ro/keep.txt\n@@\n-read-only line\n+patched line\n*** End Patch\n"}}], "final_text": "E2E done."}'
SCEN_PATCH_SIX='{"steps": [{"name": "apply_patch", "input": {"input": "*** Begin Patch\n*** Add File: {RUN}/proj/m1.txt\n+1\n*** Add File: {RUN}/proj/m2.txt\n+2\n*** Add File: {RUN}/proj/m3.txt\n+3\n*** Add File: {RUN}/proj/m4.txt\n+4\n*** Add File: {RUN}/proj/m5.txt\n+5\n*** Delete File: {RUN}/ro/keep.txt\n*** End Patch\n"}}], "final_text": "E2E done."}'
SCEN_SHELL_PATCH_RO='{"steps": [{"name": "exec_command", "input": {"cmd": "apply_patch <<'"'"'EOF'"'"'\n*** Begin Patch\n*** Delete File: {RUN}/ro/keep.txt\n*** End Patch\nEOF\n", "workdir": "{RUN}/proj"}}], "final_text": "E2E done."}'
SCEN_ASK='{"steps": [{"name": "exec_command", "input": {"cmd": "deploy-prod --now || true; echo ran > asked.txt", "workdir": "{RUN}/proj"}}], "final_text": "E2E done."}'
SCEN_HARMLESS='{"steps": [{"name": "exec_command", "input": {"cmd": "echo harmless > harmless.txt", "workdir": "{RUN}/proj"}}, {"name": "apply_patch", "input": {"input": "*** Begin Patch\n*** Add File: {RUN}/proj/added.txt\n+added by patch\n*** End Patch\n"}}], "final_text": "E2E done."}'

# ---- control: no hook ------------------------------------------------------------------------
new_run control
run_codex "$SCEN_RESET"
if ! same "$R/proj/work.txt" "$R/work.orig"; then
	ok "control: git reset --hard destroys the uncommitted work without dcg"
else
	ko "control: git reset --hard did not run (rc $(cat "$R/rc.txt")): $(tail -3 "$R/err.txt")"
fi
run_codex "$SCEN_PATCH_RO"
same "$R/ro/keep.txt" "$R/ro.orig" && ko "control: apply_patch did not run: $(tail -3 "$R/err.txt")" || ok "control: apply_patch rewrites the read-only file without dcg"

# ---- user hook (~/.codex/hooks.json) ------------------------------------------------------------
new_run user_hook
install_hook --user
grep -q "hook --agent codex" "$R/home/.codex/hooks.json" 2>/dev/null && ok "dcg install --agent codex --user writes \$CODEX_HOME/hooks.json" || ko "install: $(cat "$R/install.txt")"
run_codex "$SCEN_RESET"
if same "$R/proj/work.txt" "$R/work.orig" && told --has "core.git.reset_hard" >/dev/null; then
	ok "git reset --hard is blocked: the work survives byte for byte, the model gets dcg's reason"
else
	ko "git reset --hard: survived=$(same "$R/proj/work.txt" "$R/work.orig" && echo yes || echo no)"
	told --has "core.git.reset_hard" --dump
fi
run_codex "$SCEN_PATCH_RO"
if same "$R/ro/keep.txt" "$R/ro.orig" && told --has "read-only path" >/dev/null; then
	ok "apply_patch on a read-only path is blocked, the file survives byte for byte"
else
	ko "apply_patch on read-only: survived=$(same "$R/ro/keep.txt" "$R/ro.orig" && echo yes || echo no)"
	told --has "read-only" --dump
fi
run_codex "$SCEN_PATCH_MIXED"
if same "$R/ro/keep.txt" "$R/ro.orig" && [ ! -e "$R/proj/new1.txt" ] && [ ! -e "$R/proj/new2.txt" ] &&
	told --has "read-only path" >/dev/null; then
	ok "one refused file refuses the whole patch (no file of it is written)"
else
	ko "mixed patch: new1=$([ -e "$R/proj/new1.txt" ] && echo yes || echo no) ro survived=$(same "$R/ro/keep.txt" "$R/ro.orig" && echo yes || echo no)"
fi
run_codex "$SCEN_PATCH_SIX"
if [ -e "$R/ro/keep.txt" ] && [ ! -e "$R/proj/m1.txt" ] && told --has "read-only path" >/dev/null; then
	ok "a patch of six files whose last one is refused is refused whole (more files than a call holds)"
else
	ko "six-file patch: ro exists=$([ -e "$R/ro/keep.txt" ] && echo yes || echo no) m1=$([ -e "$R/proj/m1.txt" ] && echo yes || echo no)"
fi
run_codex "$SCEN_SHELL_PATCH_RO"
if [ -e "$R/ro/keep.txt" ] && told --has "read-only path" >/dev/null; then
	ok "apply_patch run through the shell is checked as a patch (a delete of a read-only file is blocked)"
else
	ko "shell apply_patch: file exists=$([ -e "$R/ro/keep.txt" ] && echo yes || echo no)"
	told --has "read-only" --dump
fi
run_codex "$SCEN_ASK"
if [ ! -e "$R/proj/asked.txt" ] && told --has "Codex hooks cannot ask" >/dev/null; then
	ok "an ask rule becomes a deny that says the user must confirm"
else
	ko "ask: ran=$([ -e "$R/proj/asked.txt" ] && echo yes || echo no)"
	told --has "cannot ask" --dump
fi
run_codex "$SCEN_HARMLESS"
if [ "$(cat "$R/proj/harmless.txt" 2>/dev/null)" = harmless ] && [ "$(cat "$R/proj/added.txt" 2>/dev/null)" = "added by patch" ]; then
	ok "a harmless command and a harmless patch run with the hook"
else
	ko "harmless calls did not run: $(tail -5 "$R/err.txt")"
fi
grep -q '"agent":"codex"' "$R/audit.jsonl" 2>/dev/null && ok "dcg's audit log records the Codex refusals" || ko "no codex entries in the audit log"

# ---- project hook (.codex/hooks.json in a trusted project) -------------------------------------
new_run project_hook
install_hook --project
run_codex "$SCEN_RESET"
if same "$R/proj/work.txt" "$R/work.orig" && told --has "core.git.reset_hard" >/dev/null; then
	ok "the project hook (.codex/hooks.json) blocks git reset --hard"
else
	ko "project hook did not block: $(grep -i hook "$R/err.txt" | tail -3)"
fi
(cd "$R/proj" && "$DCG" uninstall --agent codex --project >/dev/null 2>&1)
grep -q "dcg" "$R/proj/.codex/hooks.json" 2>/dev/null && ko "uninstall left dcg in .codex/hooks.json" || ok "dcg uninstall --agent codex removes the hook"

# ---- Codex wrapped whole in dcg run / dcg sandbox (no hook: the runtime layer alone) ----
SCEN_SCRIPT='{"steps": [{"name": "apply_patch", "input": {"input": "*** Begin Patch\n*** Add File: {RUN}/proj/tidy.py\n+import base64, shutil\n+shutil.rmtree(base64.b64decode(\"LmdpdA==\").decode())\n*** End Patch\n"}}, {"name": "exec_command", "input": {"cmd": "python3 tidy.py", "workdir": "{RUN}/proj"}}], "final_text": "E2E done."}'
SCEN_ORDINARY='{"steps": [{"name": "apply_patch", "input": {"input": "*** Begin Patch\n*** Add File: {RUN}/proj/notes.txt\n+notes\n*** End Patch\n"}}, {"name": "exec_command", "input": {"cmd": "cat work.txt && ls && git status --short && echo listed", "workdir": "{RUN}/proj"}}], "final_text": "E2E done."}'
# Codex's own binary is static: dcg run says once that it cannot see inside it (its
# apply_patch edits are the hook's and the sandbox's to judge); its shell commands run
# dynamically linked programs, which the preload guards.
E2E_NOTE_run="/codex is statically linked" e2e_wrapped run_codex "$SCEN_SCRIPT" "$SCEN_ORDINARY"

e2e_finish
