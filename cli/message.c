/* message.c - the human message, the agent's reason sentence and the decision record as
 * JSON: the formats of DESIGN.md "Messages". */
#include "hook.h"

#include "agents/agents.h"

#include "intent.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#define ANSI_RESET  "\033[0m"
#define ANSI_BOLD   "\033[1m"
#define ANSI_RED    "\033[1;31m"
#define ANSI_YELLOW "\033[1;33m"
#define ANSI_DIM    "\033[2m"

static const char *verdict_word(enum pol_decision d)
{
	switch (d) {
	case POL_DENY:
		return "BLOCKED";
	case POL_ASK:
		return "ASK";
	case POL_WARN:
		return "WARNING";
	case POL_LOG:
		return "LOGGED";
	default:
		return "ALLOWED";
	}
}

static const char *title(const struct pol_result *r)
{
	switch (r->detection) {
	case POL_DET_COMMAND:
		return "Destructive command";
	case POL_DET_HEREDOC:
		return "Destructive pattern in heredoc";
	case POL_DET_INLINE_SCRIPT:
		return "Destructive pattern in inline script";
	case POL_DET_PATH:
		return "Protected path";
	case POL_DET_SCOPE:
		return "Outside the active intent's scope";
	default:
		return "Refused input";
	}
}

/* The reason without its final full stop, so that sentences can be joined. */
static size_t reason_len(const char *reason)
{
	size_t n = strlen(reason);

	while (n && (reason[n - 1] == '.' || reason[n - 1] == ' '))
		n--;
	return n;
}

void hook_allow_hint(const struct pol_result *r, char *out, size_t size)
{
	snprintf(out, size, "If intentional: dcg allow %s -r \"reason\"",
		 r->rule_id ? r->rule_id : "RULE");
}

/* 1 when the policy's own suggestions already carry the "If intentional" line. */
static int has_allow_hint(const struct pol_result *r)
{
	size_t i;

	for (i = 0; i < r->n_suggestions; i++)
		if (r->suggestions[i] && !strncmp(r->suggestions[i], "If intentional:", 15))
			return 1;
	return 0;
}

/* The hook's own rules cannot be allowed: their refusal is about the input. */
static int allowable(const struct pol_result *r)
{
	return r->rule_id && strncmp(r->rule_id, "hook.", 5) != 0;
}

/* Replaces, in b, every occurrence of the content of a quoted string of raw (at least
 * 3 bytes long) by "***". The engine reports a command's matched text in its
 * normalized form, where the quotes are gone: this is how their content stays hidden. */
static void redact_raw_quotes(struct hook_buf *b, const char *raw, size_t raw_len)
{
	size_t i = 0, j, clen;

	while (i < raw_len && !b->oom) {
		char q = raw[i];
		if (q == '\\') {
			i += 2;
			continue;
		}
		if (q != '\'' && q != '"') {
			i++;
			continue;
		}
		for (j = i + 1; j < raw_len && raw[j] != q; j++)
			if (q == '"' && raw[j] == '\\')
				j++;
		if (j > raw_len)
			j = raw_len;
		clen = j - i - 1;
		if (clen >= 3) {
			const char *c = raw + i + 1, *hit;
			struct hook_buf nb = HOOK_BUF_INIT;
			size_t off = 0;
			while ((hit = memmem(b->s + off, b->len - off, c, clen)) != NULL) {
				hook_buf_add(&nb, b->s + off, (size_t)(hit - (b->s + off)));
				hook_buf_adds(&nb, "***");
				off = (size_t)(hit - b->s) + clen;
			}
			if (off) {
				hook_buf_add(&nb, b->s + off, b->len - off);
				hook_buf_release(b);
				*b = nb;
			} else {
				hook_buf_release(&nb);
			}
		}
		i = j + 1;
	}
}

/* Appends text (one line, no newline) redacted when not on a terminal and cut to
 * max_chars characters. raw: the text the decision was made on, whose quoted strings
 * are hidden too (may be NULL). */
static void add_shown(struct hook_buf *b, const char *text, size_t len, size_t max_chars, int tty,
		      const char *raw, size_t raw_len)
{
	struct hook_buf red = HOOK_BUF_INIT;
	char cut[2048];
	size_t n;

	if (tty) {
		n = pol_truncate_utf8(text, len, max_chars, cut, sizeof(cut));
		hook_buf_add(b, cut, n);
		return;
	}
	/* Redact the whole line before cutting it, so that a cut inside a quoted string
	 * cannot leave its content visible. "x" becomes "***": room for growth. */
	hook_buf_add(&red, "", 0);
	if (!red.oom && len > 0) {
		size_t cap = len * 3 + 8;
		char *tmp = malloc(cap);
		if (!tmp) {
			b->oom = 1;
			hook_buf_release(&red);
			return;
		}
		n = pol_redact(text, len, tmp, cap);
		hook_buf_add(&red, tmp, n);
		free(tmp);
	}
	if (raw && raw_len)
		redact_raw_quotes(&red, raw, raw_len);
	if (red.oom) {
		b->oom = 1;
		hook_buf_release(&red);
		return;
	}
	n = pol_truncate_utf8(red.s, red.len, max_chars, cut, sizeof(cut));
	hook_buf_add(b, cut, n);
	hook_buf_release(&red);
}

static void add_context(struct hook_buf *b, const char *text, size_t len, unsigned line, int tty)
{
	unsigned first = line > HOOK_CONTEXT_AROUND ? line - HOOK_CONTEXT_AROUND : 1;
	unsigned last = line + HOOK_CONTEXT_AROUND, no = 1, width;
	const char *p = text, *end = text + len, *nl;
	char numbuf[16];

	/* A final newline ends the last line; it does not start an empty one. */
	if (len && text[len - 1] == '\n')
		end--;
	/* The window may end before `last` (clipped at the script's end): compute the
	 * real last line so that the numbers align on what is shown. */
	{
		unsigned count = 1;
		const char *q;
		for (q = text; q < end; q++)
			if (*q == '\n')
				count++;
		if (last > count)
			last = count;
		width = (unsigned)snprintf(numbuf, sizeof(numbuf), "%u", last);
	}
	hook_buf_adds(b, "\nContext:\n");
	while (p <= end && no <= last) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if (no >= first) {
			if (no == line) {
				if (tty)
					hook_buf_adds(b, ANSI_RED);
				hook_buf_addf(b, "> %*u| ", (int)width, no);
			} else {
				hook_buf_addf(b, "  %*u| ", (int)width, no);
			}
			add_shown(b, p, (size_t)(nl - p), HOOK_CONTEXT_CHARS, tty, NULL, 0);
			if (tty && no == line)
				hook_buf_adds(b, ANSI_RESET);
			hook_buf_adds(b, "\n");
		}
		no++;
		p = nl + 1;
	}
}

char *hook_msg_human(const struct pol_result *r, const struct hook_msg_opts *o)
{
	struct hook_buf b = HOOK_BUF_INIT;
	int tty = o && o->tty;
	const char *ctx_text = NULL;
	size_t ctx_len = 0, i;
	char hint[256];

	if (tty)
		hook_buf_adds(&b, r->decision == POL_DENY ? ANSI_RED : ANSI_YELLOW);
	hook_buf_addf(&b, "%s: %s", verdict_word(r->decision), title(r));
	if (tty)
		hook_buf_adds(&b, ANSI_RESET);
	hook_buf_adds(&b, "\n");
	if (r->language)
		hook_buf_addf(&b, "Language:   %s\n", r->language);
	hook_buf_addf(&b, "Rule ID:    %s\n", r->rule_id ? r->rule_id : "-");
	hook_buf_addf(&b, "Reason:     %s\n", r->reason ? r->reason : "-");
	if (r->matched[0] || r->path[0]) {
		const char *m = r->matched[0] ? r->matched : r->path;
		hook_buf_adds(&b, "Matched:    ");
		add_shown(&b, m, strlen(m), HOOK_MATCHED_CHARS, tty, o ? o->input : NULL,
			  o ? o->input_len : 0);
		hook_buf_adds(&b, "\n");
	}
	if (r->line)
		hook_buf_addf(&b, "Line:       %u\n", r->line);
	hook_buf_addf(&b, "Severity:   %s\n", pol_decision_name(r->decision));

	if (r->script && r->line) {
		ctx_text = r->script;
		ctx_len = r->script_len;
	} else if (o && o->input && r->line && memchr(o->input, '\n', o->input_len)) {
		ctx_text = o->input;
		ctx_len = o->input_len;
	}
	if (ctx_text)
		add_context(&b, ctx_text, ctx_len, r->line, tty);

	hook_buf_adds(&b, "\nSuggestions:\n");
	for (i = 0; i < r->n_suggestions; i++)
		if (r->suggestions[i])
			hook_buf_addf(&b, "- %s\n", r->suggestions[i]);
	if (allowable(r) && !has_allow_hint(r)) {
		hook_allow_hint(r, hint, sizeof(hint));
		hook_buf_addf(&b, "- %s\n", hint);
	}
	if (r->once_code[0])
		hook_buf_addf(&b, "- For this command only, at a terminal: dcg allow-once %s\n",
			      r->once_code);
	return hook_buf_detach(&b);
}

char *hook_agent_reason(const struct pol_result *r)
{
	struct hook_buf b = HOOK_BUF_INIT;
	const char *reason = r->reason ? r->reason : "refused by policy";
	char json[2048];

	/* A scope result gives the agent the structured error it can parse and recover
	 * from: {"error","reason","suggestion","recoverable"} (policy/intent.h). */
	if (pol_intent_error_json(r, json, sizeof(json)))
		return strdup(json);
	hook_buf_addf(&b, "dcg: %s: %.*s.", r->rule_id ? r->rule_id : "policy",
		      (int)reason_len(reason), reason);
	/* The agent sees only this string: besides what and why, it needs a way on, so
	 * the first safe alternative goes in too (DESIGN.md's example had only the
	 * allow hint, which is the user's move, not the agent's). */
	if (r->n_suggestions && r->suggestions[0] &&
	    strncmp(r->suggestions[0], "If intentional:", 15) != 0) {
		const char *s = r->suggestions[0];
		size_t n = strlen(s);

		while (n && (s[n - 1] == '.' || s[n - 1] == ' '))
			n--;
		hook_buf_addf(&b, " Alternative: %.*s.", (int)n, s);
	}
	/* Allowing is the user's move, never the agent's: said as a request to pass on
	 * (the human stderr block keeps "If intentional: dcg allow ..."). */
	if (allowable(r))
		hook_buf_addf(&b,
			      " If it is intended, ask the user to run: dcg allow %s -r \"reason\"",
			      r->rule_id ? r->rule_id : "RULE");
	/* the narrower way: this exact command, here, once (the user's move too: it is
	 * redeemed only at a terminal) */
	if (r->once_code[0])
		hook_buf_addf(&b, " or, for this command only, the user can run: dcg allow-once %s",
			      r->once_code);
	return hook_buf_detach(&b);
}

/* Adds a string member with invalid UTF-8 replaced, so the JSON stays valid. */
static void json_add_str(cJSON *obj, const char *key, const char *s)
{
	char tmp[4096];
	size_t len = strlen(s);

	if (pol_utf8_valid(s, len) || len >= sizeof(tmp)) {
		cJSON_AddStringToObject(obj, key, s);
		return;
	}
	hook_utf8_sanitize(s, len, tmp, sizeof(tmp));
	cJSON_AddStringToObject(obj, key, tmp);
}

char *hook_result_json(const struct pol_result *r)
{
	cJSON *o = cJSON_CreateObject(), *sug;
	char hint[256], *out = NULL;
	size_t i;

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "decision", pol_decision_name(r->decision));
	if (r->rule_id)
		cJSON_AddStringToObject(o, "rule_id", r->rule_id);
	else
		cJSON_AddNullToObject(o, "rule_id");
	if (r->reason)
		cJSON_AddStringToObject(o, "reason", r->reason);
	cJSON_AddStringToObject(o, "detection", pol_detection_name(r->detection));
	if (r->language)
		cJSON_AddStringToObject(o, "language", r->language);
	if (r->matched[0])
		json_add_str(o, "matched", r->matched);
	if (r->line)
		cJSON_AddNumberToObject(o, "line", r->line);
	if (r->rule_id)
		cJSON_AddStringToObject(o, "severity", pol_severity_name(r->severity));
	if (r->detection == POL_DET_PATH) {
		json_add_str(o, "path", r->path);
		cJSON_AddStringToObject(o, "op", pol_op_name(r->op));
		cJSON_AddStringToObject(o, "path_kind", pol_path_kind_name(r->path_kind));
	}
	if (r->pattern)
		json_add_str(o, "pattern", r->pattern);
	if (r->origin)
		json_add_str(o, "origin", r->origin);
	if (r->allowed_by_allowlist)
		cJSON_AddTrueToObject(o, "allowed_by_allowlist");
	if (r->allowed_by_once)
		cJSON_AddTrueToObject(o, "allowed_by_once");
	if (r->observed)
		cJSON_AddStringToObject(o, "would", pol_decision_name(r->observed));
	if (r->once_code[0])
		cJSON_AddStringToObject(o, "once_code", r->once_code);
	if (r->limit_hit)
		cJSON_AddTrueToObject(o, "limit_hit");
	if (r->rule_id) {
		sug = cJSON_AddArrayToObject(o, "suggestions");
		for (i = 0; sug && i < r->n_suggestions; i++)
			if (r->suggestions[i])
				cJSON_AddItemToArray(sug, cJSON_CreateString(r->suggestions[i]));
		if (sug && allowable(r) && !has_allow_hint(r)) {
			hook_allow_hint(r, hint, sizeof(hint));
			cJSON_AddItemToArray(sug, cJSON_CreateString(hint));
		}
	}
	out = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return out;
}

/* ---- Claude Code's answer ------------------------------------------------------------ */

static const char *agent_reason_prefix(enum pol_detection d)
{
	switch (d) {
	case POL_DET_HEREDOC:
		return "Heredoc contains destructive pattern: ";
	case POL_DET_INLINE_SCRIPT:
		return "Inline script contains destructive pattern: ";
	case POL_DET_COMMAND:
		return "Command contains destructive pattern: ";
	case POL_DET_PATH:
		return "Protected path: ";
	case POL_DET_SCOPE:
		return "Outside the active intent's scope: ";
	default:
		return "Refused input: ";
	}
}

char *hook_claude_answer(const struct hook_answer *a, int *exit_code)
{
	const struct pol_result *r = a->result;
	cJSON *root = NULL, *hso, *det, *sug;
	char *reason = NULL, *out = NULL, hint[256];
	struct hook_buf rb = HOOK_BUF_INIT;
	size_t i;

	*exit_code = 0;
	/* Never answer "allow": it would skip Claude Code's own permission checks. */
	if (r->decision != POL_DENY && r->decision != POL_ASK)
		return NULL;
	reason = hook_agent_reason(r);
	root = cJSON_CreateObject();
	if (!reason || !root)
		goto out;
	hso = cJSON_AddObjectToObject(root, "hookSpecificOutput");
	if (!hso)
		goto out;
	cJSON_AddStringToObject(hso, "hookEventName", "PreToolUse");
	cJSON_AddStringToObject(hso, "permissionDecision", pol_decision_name(r->decision));
	json_add_str(hso, "permissionDecisionReason", reason);
	hook_buf_adds(&rb, agent_reason_prefix(r->detection));
	hook_buf_adds(&rb, r->reason ? r->reason : "refused by policy");
	if (rb.oom)
		goto out;
	json_add_str(hso, "reason", rb.s);
	det = cJSON_AddObjectToObject(hso, "details");
	if (!det)
		goto out;
	cJSON_AddStringToObject(det, "detection_type", pol_detection_name(r->detection));
	if (r->language)
		cJSON_AddStringToObject(det, "language", r->language);
	cJSON_AddStringToObject(det, "rule_id", r->rule_id ? r->rule_id : "");
	if (r->matched[0])
		json_add_str(det, "matched_text", r->matched);
	if (r->line)
		cJSON_AddNumberToObject(det, "line_in_heredoc", r->line);
	if (r->detection == POL_DET_PATH && r->path[0]) {
		json_add_str(det, "path", r->path);
		cJSON_AddStringToObject(det, "operation", pol_op_name(r->op));
	}
	cJSON_AddStringToObject(det, "severity", pol_decision_name(r->decision));
	if (r->once_code[0])
		cJSON_AddStringToObject(det, "once_code", r->once_code);
	sug = cJSON_AddArrayToObject(det, "suggestions");
	for (i = 0; sug && i < r->n_suggestions; i++)
		if (r->suggestions[i])
			cJSON_AddItemToArray(sug, cJSON_CreateString(r->suggestions[i]));
	if (sug && allowable(r) && !has_allow_hint(r)) {
		hook_allow_hint(r, hint, sizeof(hint));
		cJSON_AddItemToArray(sug, cJSON_CreateString(hint));
	}
	out = cJSON_PrintUnformatted(root);
out:
	hook_buf_release(&rb);
	cJSON_Delete(root);
	free(reason);
	return out;
}
