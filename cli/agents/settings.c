/* settings.c - agents' settings files of the form {"hooks": {EVENT: [...]}} (agents.h):
 * dcg's entries merged in without losing anything, updated in place when present,
 * removed without touching the rest; and the one read-edit-write every installer uses. */
#include "agents.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

int hook_is_dcg_command(const char *command)
{
	const char *p = command;

	/* "…/dcg hook", "dcg hook", "'/path with space/dcg' hook" */
	while ((p = strstr(p, "dcg")) != NULL) {
		int at_start = p == command || p[-1] == '/' || p[-1] == '\'' || p[-1] == '"' ||
			       isspace((unsigned char)p[-1]);
		const char *q = p + 3;

		if (*q == '\'' || *q == '"')
			q++;
		if (at_start && !strncmp(q, " hook", 5) && (q[5] == '\0' || q[5] == ' '))
			return 1;
		p += 3;
	}
	return 0;
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

int hook_agents_edit_file(const char *path, size_t max,
			  int (*edit)(const char *text, void *arg, char **out), void *arg,
			  char *msg, size_t msgsize)
{
	char *text = NULL, *out = NULL;
	size_t len;
	int err, rc;

	err = hook_read_file(path, max, &text, &len);
	if (err && err != -ENOENT) {
		snprintf(msg, msgsize, "cannot read %s: %s", path, strerror(-err));
		return err;
	}
	rc = edit(text, arg, &out);
	if (rc == 0) {
		err = hook_write_atomic(path, out, strlen(out), 0644);
		if (err) {
			snprintf(msg, msgsize, "cannot write %s: %s", path, strerror(-err));
			rc = err;
		}
	}
	free(text);
	free(out);
	return rc;
}

/* A settings file holds a few hooks: one larger than this is not one. */
#define SETTINGS_MAX (16 * 1024 * 1024)

struct merge_arg {
	const struct hook_agents_reg *regs;
	size_t n;
	const char *command, *top;
};

static int merge_edit(const char *text, void *arg, char **out)
{
	const struct merge_arg *m = arg;

	return hook_agents_settings_merge(text, m->regs, m->n, m->command, m->top, out);
}

static int remove_edit(const char *text, void *arg, char **out)
{
	int *missing = arg;

	*missing = !text;
	return text ? hook_agents_settings_remove(text, out) : 1;
}

int hook_agents_install_file(const char *settings_path, const struct hook_agents_reg *regs,
			     size_t n, const char *command, const char *top, const char *agent,
			     char *msg, size_t msgsize)
{
	struct merge_arg m = {regs, n, command, top};
	int rc = hook_agents_edit_file(settings_path, SETTINGS_MAX, merge_edit, &m, msg, msgsize);

	if (rc == -EINVAL)
		snprintf(msg, msgsize,
			 "%s is not a JSON object with a \"hooks\" object; left it unchanged",
			 settings_path);
	else if (rc == 1)
		snprintf(msg, msgsize, "dcg hook already installed for %s in %s", agent,
			 settings_path);
	else if (rc == 0)
		snprintf(msg, msgsize, "dcg hook installed for %s in %s", agent, settings_path);
	return rc == 1 ? 0 : rc;
}

int hook_agents_uninstall_file(const char *settings_path, const char *agent, char *msg,
			       size_t msgsize)
{
	int missing = 0;
	int rc =
	    hook_agents_edit_file(settings_path, SETTINGS_MAX, remove_edit, &missing, msg, msgsize);

	(void)agent;
	if (rc == -EINVAL)
		snprintf(msg, msgsize, "%s is not a JSON object; left it unchanged", settings_path);
	else if (rc == 1 && missing)
		snprintf(msg, msgsize, "no %s: nothing to remove", settings_path);
	else if (rc == 1)
		snprintf(msg, msgsize, "no dcg hook in %s: nothing to remove", settings_path);
	else if (rc == 0)
		snprintf(msg, msgsize, "dcg hook removed from %s", settings_path);
	return rc == 1 ? 0 : rc;
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
