/* agent_codex.c - Codex CLI's PreToolUse hook, and the helpers the other adapters
 * share (agents.h): input checks, file and search calls, settings files of the form
 * {"hooks": {EVENT: [...]}}.
 *
 * Codex sends Claude Code's PreToolUse shape with tool_name "Bash" (tool_input.command
 * a string) or "apply_patch" (the whole patch in tool_input.command). Its output
 * schema has additionalProperties false and refuses permissionDecision "ask" and
 * "allow" and a deny without a reason, so dcg answers only a deny, with a reason,
 * and nothing at all for an allowed call. */
#include "agents.h"

#include "commands.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* ---- input checks ------------------------------------------------------------------- */

/* 1 when the JSON text holds an escaped NUL (\u0000): cJSON would cut the string
 * there and the policy would decide on less than the agent runs. */
static int has_escaped_nul(const char *s, size_t len)
{
	size_t i, bs;

	for (i = 0; i + 6 <= len; i++) {
		if (s[i] != '\\')
			continue;
		for (bs = 0; i + bs < len && s[i + bs] == '\\'; bs++)
			;
		if ((bs & 1) && i + bs + 5 <= len && s[i + bs] == 'u' &&
		    !memcmp(s + i + bs + 1, "0000", 4))
			return 1;
		i += bs - 1;
	}
	return 0;
}

static void set_invalid(struct hook_call *call, const char *why)
{
	call->kind = HOOK_CALL_INVALID;
	call->invalid = why;
	call->n_paths = 0;
}

struct cJSON *hook_agents_parse_input(const char *buf, size_t len, struct hook_call *call)
{
	cJSON *root;

	memset(call, 0, offsetof(struct hook_call, scratch));
	call->scratch[0][0] = call->scratch[1][0] = '\0';
	call->kind = HOOK_CALL_INVALID;
	if (len == 0) {
		call->invalid = "the hook received no input (expected one JSON tool call)";
		return NULL;
	}
	if (memchr(buf, '\0', len)) {
		call->invalid = "the input contains a NUL byte";
		return NULL;
	}
	if (!hook_utf8_valid(buf, len)) {
		call->invalid = "the input is not valid UTF-8";
		return NULL;
	}
	if (has_escaped_nul(buf, len)) {
		call->invalid = "the input contains an escaped NUL character (\\u0000)";
		return NULL;
	}
	root = cJSON_ParseWithLength(buf, len);
	if (!root) {
		call->invalid = "the input is not valid JSON";
		return NULL;
	}
	if (!cJSON_IsObject(root)) {
		call->invalid = "the input is not a JSON object";
		return root;
	}
	call->kind = HOOK_CALL_OTHER;
	return root;
}

const char *hook_agents_str(const struct cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsString(v) && v->valuestring ? v->valuestring : NULL;
}

static void add_path(struct hook_call *call, const char *path, enum pol_op op)
{
	if (call->n_paths < HOOK_CALL_MAX_PATHS) {
		call->paths[call->n_paths] = path;
		call->ops[call->n_paths] = op;
		call->n_paths++;
	}
}

void hook_agents_file(struct hook_call *call, const char *path, enum pol_op op)
{
	if (!path || !path[0]) {
		set_invalid(call, "the tool call names no file path");
		return;
	}
	call->kind = HOOK_CALL_PATH;
	add_path(call, path, op);
}

void hook_agents_search(struct hook_call *call, const char *dir, const char *glob, enum pol_op op)
{
	int n;

	if (!dir || !dir[0])
		dir = call->cwd && call->cwd[0] ? call->cwd : ".";
	call->kind = HOOK_CALL_PATH;
	add_path(call, dir, op);
	if (!glob || !glob[0])
		return;
	if (glob[0] == '/' || glob[0] == '~')
		n = snprintf(call->scratch[0], sizeof(call->scratch[0]), "%s", glob);
	else
		n = snprintf(call->scratch[0], sizeof(call->scratch[0]), "%s/%s", dir, glob);
	if (n < 0 || (size_t)n >= sizeof(call->scratch[0])) {
		set_invalid(call, "the search pattern is too long to check");
		return;
	}
	add_path(call, call->scratch[0], op);
}

void hook_agents_command(struct hook_call *call, const char *command)
{
	size_t len;

	if (!command) {
		set_invalid(call, "the shell call has no command string");
		return;
	}
	len = strlen(command);
	if (len > HOOK_AGENT_MAX_COMMAND) {
		set_invalid(call, "the command is too long to check (over 1 MiB)");
		return;
	}
	call->kind = HOOK_CALL_COMMAND;
	call->command = command;
	call->command_len = len;
}

static const char reason_oom[] = "dcg: this call is refused by dcg's policy";

char *hook_agents_reason(const struct pol_result *r)
{
	char *s = hook_agent_reason(r);

	return s ? s : (char *)reason_oom;
}

void hook_agents_reason_free(char *reason)
{
	if (reason != reason_oom)
		free(reason);
}

/* ---- settings files --------------------------------------------------------------------- */

static cJSON *parse_settings(const char *text)
{
	const char *p = text;

	if (!text)
		return cJSON_CreateObject();
	while (*p && isspace((unsigned char)*p))
		p++;
	if (!*p)
		return cJSON_CreateObject();
	return cJSON_Parse(text);
}

static char *print_settings(cJSON *root)
{
	char *s = cJSON_Print(root), *out;
	size_t n;

	if (!s)
		return NULL;
	n = strlen(s);
	out = realloc(s, n + 2);
	if (!out) {
		free(s);
		return NULL;
	}
	out[n] = '\n';
	out[n + 1] = '\0';
	return out;
}

static int is_dcg_hook(const cJSON *h)
{
	const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(h, "command");

	return cJSON_IsString(cmd) && hook_is_dcg_command(cmd->valuestring);
}

/* Sets obj[key] to item when it differs (item is consumed). */
static int set_item(cJSON *obj, const char *key, cJSON *item, int *changed)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (!item)
		return -ENOMEM;
	if (v && cJSON_Compare(v, item, 1)) {
		cJSON_Delete(item);
		return 0;
	}
	*changed = 1;
	if (v)
		return cJSON_ReplaceItemInObjectCaseSensitive(obj, key, item) ? 0 : -ENOMEM;
	cJSON_AddItemToObject(obj, key, item);
	return 0;
}

/* Writes the fields of one registration into the hook object h. */
static int fill_hook(cJSON *h, const struct hook_agents_reg *reg, const char *command, int *changed)
{
	int err = 0;

	if (!reg->flat)
		err = set_item(h, "type", cJSON_CreateString("command"), changed);
	if (!err && reg->name)
		err = set_item(h, "name", cJSON_CreateString(reg->name), changed);
	if (!err)
		err = set_item(h, "command", cJSON_CreateString(command), changed);
	if (!err && reg->timeout > 0)
		err = set_item(h, "timeout", cJSON_CreateNumber(reg->timeout), changed);
	if (!err && reg->flat && reg->matcher)
		err = set_item(h, "matcher", cJSON_CreateString(reg->matcher), changed);
	if (!err && reg->fail_closed)
		err = set_item(h, "failClosed", cJSON_CreateTrue(), changed);
	return err;
}

static int merge_one(cJSON *hooks, const struct hook_agents_reg *reg, const char *command,
		     int *changed)
{
	cJSON *list, *entry, *h, *arr, *found = NULL, *found_entry = NULL;

	list = cJSON_GetObjectItemCaseSensitive(hooks, reg->event);
	if (!list) {
		list = cJSON_AddArrayToObject(hooks, reg->event);
		if (!list)
			return -ENOMEM;
	}
	if (!cJSON_IsArray(list))
		return -EINVAL;
	cJSON_ArrayForEach(entry, list)
	{
		if (reg->flat) {
			if (is_dcg_hook(entry)) {
				found = entry;
				break;
			}
			continue;
		}
		arr = cJSON_GetObjectItemCaseSensitive(entry, "hooks");
		if (!cJSON_IsArray(arr))
			continue;
		cJSON_ArrayForEach(h, arr)
		{
			if (is_dcg_hook(h)) {
				found = h;
				found_entry = entry;
				break;
			}
		}
		if (found)
			break;
	}
	if (found) {
		/* Update in place: the same entry, whatever was around it. */
		if (found_entry && reg->matcher &&
		    set_item(found_entry, "matcher", cJSON_CreateString(reg->matcher), changed))
			return -ENOMEM;
		return fill_hook(found, reg, command, changed);
	}
	*changed = 1;
	if (reg->flat) {
		h = cJSON_CreateObject();
		if (!h)
			return -ENOMEM;
		cJSON_AddItemToArray(list, h);
		return fill_hook(h, reg, command, changed);
	}
	entry = cJSON_CreateObject();
	if (!entry)
		return -ENOMEM;
	cJSON_AddItemToArray(list, entry);
	if (reg->matcher && !cJSON_AddStringToObject(entry, "matcher", reg->matcher))
		return -ENOMEM;
	arr = cJSON_AddArrayToObject(entry, "hooks");
	h = cJSON_CreateObject();
	if (!arr || !h) {
		cJSON_Delete(h);
		return -ENOMEM;
	}
	cJSON_AddItemToArray(arr, h);
	return fill_hook(h, reg, command, changed);
}

int hook_agents_settings_merge(const char *text, const struct hook_agents_reg *regs, size_t n,
			       const char *command, const char *top, char **out)
{
	cJSON *root, *hooks, *extra = NULL, *item;
	int changed = 0, rc = -EINVAL;
	size_t i;

	*out = NULL;
	root = parse_settings(text);
	if (!root || !cJSON_IsObject(root))
		goto out;
	if (top) {
		extra = cJSON_Parse(top);
		if (!cJSON_IsObject(extra)) {
			rc = -EINVAL;
			goto out;
		}
		cJSON_ArrayForEach(item, extra)
		{
			if (cJSON_GetObjectItemCaseSensitive(root, item->string))
				continue;
			cJSON_AddItemToObject(root, item->string, cJSON_Duplicate(item, 1));
			changed = 1;
		}
	}
	hooks = cJSON_GetObjectItemCaseSensitive(root, "hooks");
	if (!hooks)
		hooks = cJSON_AddObjectToObject(root, "hooks");
	if (!cJSON_IsObject(hooks))
		goto out;
	for (i = 0; i < n; i++) {
		rc = merge_one(hooks, &regs[i], command, &changed);
		if (rc)
			goto out;
	}
	if (!changed) {
		rc = 1;
		goto out;
	}
	*out = print_settings(root);
	rc = *out ? 0 : -ENOMEM;
out:
	cJSON_Delete(extra);
	cJSON_Delete(root);
	return rc;
}

int hook_agents_settings_remove(const char *text, char **out)
{
	cJSON *root, *hooks, *list, *lnext, *entry, *next, *arr, *h, *hnext;
	int removed = 0, here, rc = -EINVAL;

	*out = NULL;
	root = parse_settings(text);
	if (!root || !cJSON_IsObject(root))
		goto out;
	hooks = cJSON_GetObjectItemCaseSensitive(root, "hooks");
	if (!cJSON_IsObject(hooks)) {
		rc = 1;
		goto out;
	}
	for (list = hooks->child; list; list = lnext) {
		lnext = list->next;
		if (!cJSON_IsArray(list))
			continue;
		here = 0;
		for (entry = list->child; entry; entry = next) {
			next = entry->next;
			if (is_dcg_hook(entry)) { /* a flat entry */
				cJSON_Delete(cJSON_DetachItemViaPointer(list, entry));
				removed = here = 1;
				continue;
			}
			arr = cJSON_GetObjectItemCaseSensitive(entry, "hooks");
			if (!cJSON_IsArray(arr))
				continue;
			int mine = 0;
			for (h = arr->child; h; h = hnext) {
				hnext = h->next;
				if (is_dcg_hook(h)) {
					cJSON_Delete(cJSON_DetachItemViaPointer(arr, h));
					removed = here = mine = 1;
				}
			}
			/* An entry left with no hooks was dcg's own. */
			if (mine && cJSON_GetArraySize(arr) == 0)
				cJSON_Delete(cJSON_DetachItemViaPointer(list, entry));
		}
		if (here && cJSON_GetArraySize(list) == 0)
			cJSON_Delete(cJSON_DetachItemViaPointer(hooks, list));
	}
	if (!removed) {
		rc = 1;
		goto out;
	}
	if (!hooks->child)
		cJSON_DeleteItemFromObjectCaseSensitive(root, "hooks");
	*out = print_settings(root);
	rc = *out ? 0 : -ENOMEM;
out:
	cJSON_Delete(root);
	return rc;
}

#define SETTINGS_MAX (16 * 1024 * 1024)

int hook_agents_install_file(const char *settings_path, const struct hook_agents_reg *regs,
			     size_t n, const char *command, const char *top, const char *agent,
			     char *msg, size_t msgsize)
{
	char *text = NULL, *out = NULL;
	size_t len;
	int err, rc;

	err = hook_read_file(settings_path, SETTINGS_MAX, &text, &len);
	if (err && err != -ENOENT) {
		snprintf(msg, msgsize, "cannot read %s: %s", settings_path, strerror(-err));
		return err;
	}
	rc = hook_agents_settings_merge(text, regs, n, command, top, &out);
	if (rc < 0) {
		snprintf(msg, msgsize,
			 "%s is not a JSON object with a \"hooks\" object; left it unchanged",
			 settings_path);
		goto out;
	}
	if (rc == 1) {
		snprintf(msg, msgsize, "dcg hook already installed for %s in %s", agent,
			 settings_path);
		rc = 0;
		goto out;
	}
	err = hook_write_atomic(settings_path, out, strlen(out), 0644);
	if (err) {
		snprintf(msg, msgsize, "cannot write %s: %s", settings_path, strerror(-err));
		rc = err;
		goto out;
	}
	snprintf(msg, msgsize, "dcg hook installed for %s in %s", agent, settings_path);
out:
	free(text);
	free(out);
	return rc;
}

int hook_agents_uninstall_file(const char *settings_path, char *msg, size_t msgsize)
{
	char *text = NULL, *out = NULL;
	size_t len;
	int err, rc;

	err = hook_read_file(settings_path, SETTINGS_MAX, &text, &len);
	if (err == -ENOENT) {
		snprintf(msg, msgsize, "no %s: nothing to remove", settings_path);
		return 0;
	}
	if (err) {
		snprintf(msg, msgsize, "cannot read %s: %s", settings_path, strerror(-err));
		return err;
	}
	rc = hook_agents_settings_remove(text, &out);
	if (rc < 0) {
		snprintf(msg, msgsize, "%s is not a JSON object; left it unchanged", settings_path);
		goto out;
	}
	if (rc == 1) {
		snprintf(msg, msgsize, "no dcg hook in %s: nothing to remove", settings_path);
		rc = 0;
		goto out;
	}
	err = hook_write_atomic(settings_path, out, strlen(out), 0644);
	if (err) {
		snprintf(msg, msgsize, "cannot write %s: %s", settings_path, strerror(-err));
		rc = err;
		goto out;
	}
	snprintf(msg, msgsize, "dcg hook removed from %s", settings_path);
out:
	free(text);
	free(out);
	return rc;
}

int hook_agents_settings_path(int user, const char *cwd, const char *rel, char *out, size_t size)
{
	const char *home = getenv("HOME");
	int n;

	if (user) {
		if (!home || !home[0])
			return -ENOENT;
		n = snprintf(out, size, "%s/%s", home, rel);
	} else {
		n = snprintf(out, size, "%s/%s", cwd ? cwd : ".", rel);
	}
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* ---- apply_patch ------------------------------------------------------------------------- */

static const char *line_end(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	return nl ? nl : end;
}

/* When line [p, e) starts with marker, the trimmed rest into path and plen. */
static int marker(const char *p, const char *e, const char *m, const char **path, size_t *plen)
{
	size_t ml = strlen(m);

	if ((size_t)(e - p) < ml || memcmp(p, m, ml) != 0)
		return 0;
	p += ml;
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	while (e > p && (e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t'))
		e--;
	*path = p;
	*plen = (size_t)(e - p);
	return 1;
}

long hook_codex_patch_files(const char *patch, size_t len, struct hook_patch_file *out, size_t max)
{
	const char *p = patch, *end = patch + len, *e, *path;
	size_t n = 0, plen;
	int begun = 0;
	long last_update = -1;

	for (; p < end; p = e + 1) {
		enum pol_op op;
		const char *q = p;
		int add = 0;

		e = line_end(p, end);
		while (q < e && (*q == ' ' || *q == '\t'))
			q++;
		if (!begun) {
			if ((size_t)(e - q) >= 15 && !memcmp(q, "*** Begin Patch", 15))
				begun = 1;
			continue;
		}
		if (marker(q, e, "*** Add File:", &path, &plen))
			op = POL_OP_WRITE, add = 1; /* a new file is a write: it may replace one */
		else if (marker(q, e, "*** Update File:", &path, &plen))
			op = POL_OP_WRITE;
		else if (marker(q, e, "*** Delete File:", &path, &plen))
			op = POL_OP_DELETE;
		else if (marker(q, e, "*** Move to:", &path, &plen))
			op = POL_OP_RENAME_TO;
		else
			continue;
		if (!plen)
			return -EINVAL;
		if (op == POL_OP_RENAME_TO) {
			/* The file being updated moves away: a rename from it. */
			if (last_update >= 0 && (size_t)last_update < max)
				out[last_update].op = POL_OP_RENAME_FROM;
			last_update = -1;
		} else {
			last_update = op == POL_OP_WRITE && !add ? (long)n : -1;
		}
		if (n < max) {
			out[n].path = path;
			out[n].len = plen;
			out[n].op = op;
		}
		n++;
	}
	return begun ? (long)n : -EINVAL;
}

/* ---- the adapter ------------------------------------------------------------------------- */

struct codex_state {
	cJSON *root;
	char *paths; /* NUL-terminated copies of the patch's paths, back to back */
};

void hook_codex_release(void *state)
{
	struct codex_state *st = state;

	if (!st)
		return;
	cJSON_Delete(st->root);
	free(st->paths);
	free(st);
}

/* Worst-first selection when a patch names more files than a call holds: each file is
 * decided here with the same layered policy, and the call keeps the worst ones, so
 * that the final decision (hook_decide_call) sees the file that refuses the patch. */
const struct pol_policy *hook_codex_patch_policy;

void hook_agents_worst_first(const struct hook_call *call, const char **paths, enum pol_op *ops,
			     size_t n)
{
	struct pol_policy *own = NULL;
	const struct pol_policy *pol = hook_codex_patch_policy;
	struct pol_ctx ctx;
	struct pol_result r;
	size_t i, j;
	enum pol_decision *d;

	if (n <= HOOK_CALL_MAX_PATHS)
		return; /* all of them fit: the decision sees every one */
	if (!pol)
		pol = own = hook_policy_open(dcg_global_policy, call->cwd, NULL);
	d = calloc(n, sizeof(*d));
	if (!pol || !d) {
		/* Without a policy no choice can be made: the first files stand. */
		free(d);
		pol_free(own);
		return;
	}
	memset(&ctx, 0, sizeof(ctx));
	ctx.cwd = call->cwd && call->cwd[0] == '/' ? call->cwd : NULL;
	for (i = 0; i < n; i++) {
		pol_result_init(&r);
		d[i] = pol_check_path(pol, paths[i], ops[i], 0, &ctx, &r);
		pol_result_release(&r);
		if (d[i] < POL_DENY) { /* a file outside the active intent's scope counts too */
			enum pol_decision sd = hook_intent_path_decision(call, paths[i], ops[i]);
			d[i] = sd > d[i] ? sd : d[i];
		}
	}
	/* A stable selection sort on the decision, worst first. */
	for (i = 0; i < n && i < HOOK_CALL_MAX_PATHS; i++) {
		size_t best = i;
		for (j = i + 1; j < n; j++)
			if (d[j] > d[best])
				best = j;
		if (best != i) {
			const char *c = paths[best];
			enum pol_op o = ops[best];
			enum pol_decision bd = d[best];
			memmove(&paths[i + 1], &paths[i], (best - i) * sizeof(*paths));
			memmove(&ops[i + 1], &ops[i], (best - i) * sizeof(*ops));
			memmove(&d[i + 1], &d[i], (best - i) * sizeof(*d));
			paths[i] = c;
			ops[i] = o;
			d[i] = bd;
		}
	}
	free(d);
	pol_free(own);
}

static void patch_call(struct hook_call *call, struct codex_state *st, const char *patch)
{
	size_t len = strlen(patch), i, total = 0;
	struct hook_patch_file *files = NULL;
	const char **copies = NULL;
	enum pol_op *ops = NULL;
	char *p;
	long n;

	n = hook_codex_patch_files(patch, len, NULL, 0);
	if (n < 0) {
		set_invalid(call, "the apply_patch input is not a patch (no \"*** Begin Patch\", "
				  "or a file without a path)");
		return;
	}
	if (n == 0) {
		set_invalid(call, "the patch names no file");
		return;
	}
	files = calloc((size_t)n, sizeof(*files));
	copies = calloc((size_t)n, sizeof(*copies));
	ops = calloc((size_t)n, sizeof(*ops));
	if (!files || !copies || !ops)
		goto oom;
	hook_codex_patch_files(patch, len, files, (size_t)n);
	for (i = 0; i < (size_t)n; i++)
		total += files[i].len + 1;
	st->paths = malloc(total);
	if (!st->paths)
		goto oom;
	for (p = st->paths, i = 0; i < (size_t)n; i++) {
		memcpy(p, files[i].path, files[i].len);
		p[files[i].len] = '\0';
		copies[i] = p;
		ops[i] = files[i].op;
		p += files[i].len + 1;
	}
	hook_agents_worst_first(call, copies, ops, (size_t)n);
	call->kind = HOOK_CALL_PATH;
	for (i = 0; i < (size_t)n && i < HOOK_CALL_MAX_PATHS; i++)
		add_path(call, copies[i], ops[i]);
	free(files);
	free(copies);
	free(ops);
	return;
oom:
	free(files);
	free(copies);
	free(ops);
	set_invalid(call, "dcg ran out of memory reading the patch");
}

/* `apply_patch <<'EOF' ... EOF` run through the shell tool is the same patch. */
static int is_shell_patch(const char *cmd)
{
	while (*cmd == ' ' || *cmd == '\t' || *cmd == '\n')
		cmd++;
	return !strncmp(cmd, "apply_patch", 11) && strstr(cmd, "*** Begin Patch") != NULL;
}

int hook_codex_parse(const char *buf, size_t len, struct hook_call *call, void **state)
{
	struct codex_state *st;
	const cJSON *input, *cmd;
	const char *event, *tool;

	*state = NULL;
	st = calloc(1, sizeof(*st));
	if (!st) {
		memset(call, 0, offsetof(struct hook_call, scratch));
		set_invalid(call, "dcg ran out of memory reading the call");
		return 0;
	}
	*state = st;
	st->root = hook_agents_parse_input(buf, len, call);
	if (call->kind == HOOK_CALL_INVALID)
		return 0;
	event = hook_agents_str(st->root, "hook_event_name");
	if (event && strcmp(event, "PreToolUse") != 0) {
		call->kind = HOOK_CALL_OTHER; /* another event carries no tool call to stop */
		return 0;
	}
	tool = hook_agents_str(st->root, "tool_name");
	call->cwd = hook_agents_str(st->root, "cwd");
	call->session_id = hook_agents_str(st->root, "session_id"); /* intent selection */
	call->tool = tool;
	if (!tool || !tool[0]) {
		set_invalid(call, "the input has no tool_name");
		return 0;
	}
	input = cJSON_GetObjectItemCaseSensitive(st->root, "tool_input");
	if (strcmp(tool, "Bash") != 0 && strcmp(tool, "apply_patch") != 0) {
		call->kind = HOOK_CALL_OTHER;
		return 0;
	}
	if (!cJSON_IsObject(input)) {
		set_invalid(call, "the tool call has no tool_input object");
		return 0;
	}
	cmd = cJSON_GetObjectItemCaseSensitive(input, "command");
	if (cJSON_IsArray(cmd) && !strcmp(tool, "Bash")) {
		set_invalid(call, "the Bash call's command is an argument list, not a string");
		return 0;
	}
	if (!cJSON_IsString(cmd) || !cmd->valuestring) {
		set_invalid(call, !strcmp(tool, "Bash") ? "the Bash call has no command string"
							: "the apply_patch call has no patch text");
		return 0;
	}
	if (strlen(cmd->valuestring) > HOOK_AGENT_MAX_COMMAND) {
		set_invalid(call, "the command is too long to check (over 1 MiB)");
		return 0;
	}
	if (!strcmp(tool, "apply_patch") || is_shell_patch(cmd->valuestring))
		patch_call(call, st, cmd->valuestring);
	else
		hook_agents_command(call, cmd->valuestring);
	return 0;
}

char *hook_codex_answer(const struct hook_answer *a, int *exit_code)
{
	const struct pol_result *r = a->result;
	struct hook_buf b = HOOK_BUF_INIT;
	cJSON *root = NULL, *hso;
	char *reason, *out = NULL;

	*exit_code = 0;
	/* Codex refuses "allow" and "ask": an allowed call gets no answer at all. */
	if (r->decision != POL_DENY && r->decision != POL_ASK)
		return NULL;
	reason = hook_agents_reason(r);
	hook_buf_adds(&b, reason);
	if (r->decision == POL_ASK)
		/* Codex hooks cannot ask: refuse, and say who can let it through. */
		hook_buf_adds(&b,
			      ". This call needs the user's confirmation, and Codex hooks cannot "
			      "ask: it is refused. The user must confirm it: run it themselves, "
			      "or allow the rule as above.");
	hook_buf_adds(&b, "");
	root = cJSON_CreateObject();
	hso = root ? cJSON_AddObjectToObject(root, "hookSpecificOutput") : NULL;
	if (!hso || b.oom)
		goto out;
	cJSON_AddStringToObject(hso, "hookEventName", "PreToolUse");
	cJSON_AddStringToObject(hso, "permissionDecision", "deny");
	cJSON_AddStringToObject(hso, "permissionDecisionReason", b.s);
	out = cJSON_PrintUnformatted(root);
out:
	if (!out)
		*exit_code = 2; /* Codex reads exit 2 with a reason on stderr as a block */
	cJSON_Delete(root);
	hook_buf_release(&b);
	hook_agents_reason_free(reason);
	return out;
}

static const struct hook_agents_reg codex_regs[] = {
    /* Codex names shell calls "Bash" for every shell-like tool, and apply_patch as is. */
    {"PreToolUse", "Bash|apply_patch", 30, NULL, 0, 0},
};

int hook_codex_install(const char *settings_path, const char *command, char *msg, size_t msgsize)
{
	int rc = hook_agents_install_file(settings_path, codex_regs, 1, command, NULL, "codex", msg,
					  msgsize);
	size_t l = strlen(msg);

	if (!rc && l + 1 < msgsize)
		snprintf(msg + l, msgsize - l,
			 " (Codex runs a new hook only once it is trusted: review it with /hooks)");
	return rc;
}

int hook_codex_uninstall(const char *settings_path, char *msg, size_t msgsize)
{
	return hook_agents_uninstall_file(settings_path, msg, msgsize);
}

int hook_codex_settings_path(int user, const char *cwd, char *out, size_t size)
{
	const char *home = getenv("CODEX_HOME");
	int n;

	if (user && home && home[0]) {
		n = snprintf(out, size, "%s/hooks.json", home);
		return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
	}
	return hook_agents_settings_path(user, cwd, ".codex/hooks.json", out, size);
}
