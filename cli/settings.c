/* settings.c - dcg's entry in Claude Code's settings.json: merged in without losing
 * anything, updated in place when present, removed without touching the rest. */
#include "hook.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Claude Code's own limit for a hook, in seconds. dcg answers in about a millisecond
 * and denies by itself long before this (see cmd_hook's alarm), because a hook that
 * times out lets the tool run. */
#define HOOK_CLAUDE_TIMEOUT 30

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

/* The dcg hook object inside one PreToolUse entry, or NULL. */
static cJSON *find_dcg_hook(cJSON *entry)
{
	cJSON *hooks = cJSON_GetObjectItemCaseSensitive(entry, "hooks"), *h;

	if (!cJSON_IsArray(hooks))
		return NULL;
	cJSON_ArrayForEach(h, hooks)
	{
		cJSON *cmd = cJSON_GetObjectItemCaseSensitive(h, "command");
		if (cJSON_IsString(cmd) && hook_is_dcg_command(cmd->valuestring))
			return h;
	}
	return NULL;
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

/* Sets obj[key] to a string, reporting whether it changed. */
static int set_string(cJSON *obj, const char *key, const char *value, int *changed)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (cJSON_IsString(v) && !strcmp(v->valuestring, value))
		return 0;
	*changed = 1;
	if (v)
		return cJSON_ReplaceItemInObjectCaseSensitive(obj, key, cJSON_CreateString(value))
			   ? 0
			   : -ENOMEM;
	return cJSON_AddStringToObject(obj, key, value) ? 0 : -ENOMEM;
}

int hook_claude_settings_merge(const char *text, const char *command, char **out)
{
	cJSON *root, *hooks, *pre, *entry, *h = NULL, *arr, *item;
	int changed = 0, rc = -EINVAL;

	*out = NULL;
	root = parse_settings(text);
	if (!root || !cJSON_IsObject(root))
		goto out;
	hooks = cJSON_GetObjectItemCaseSensitive(root, "hooks");
	if (!hooks)
		hooks = cJSON_AddObjectToObject(root, "hooks");
	if (!cJSON_IsObject(hooks))
		goto out;
	pre = cJSON_GetObjectItemCaseSensitive(hooks, "PreToolUse");
	if (!pre)
		pre = cJSON_AddArrayToObject(hooks, "PreToolUse");
	if (!cJSON_IsArray(pre))
		goto out;

	cJSON_ArrayForEach(entry, pre)
	{
		h = find_dcg_hook(entry);
		if (h)
			break;
	}
	if (h) {
		/* Update in place: the same entry, whatever was around it. */
		if (set_string(entry, "matcher", HOOK_CLAUDE_MATCHER, &changed) ||
		    set_string(h, "type", "command", &changed) ||
		    set_string(h, "command", command, &changed)) {
			rc = -ENOMEM;
			goto out;
		}
	} else {
		entry = cJSON_CreateObject();
		if (!entry) {
			rc = -ENOMEM;
			goto out;
		}
		cJSON_AddItemToArray(pre, entry);
		cJSON_AddStringToObject(entry, "matcher", HOOK_CLAUDE_MATCHER);
		arr = cJSON_AddArrayToObject(entry, "hooks");
		item = cJSON_CreateObject();
		if (!arr || !item) {
			cJSON_Delete(item);
			rc = -ENOMEM;
			goto out;
		}
		cJSON_AddItemToArray(arr, item);
		cJSON_AddStringToObject(item, "type", "command");
		cJSON_AddStringToObject(item, "command", command);
		cJSON_AddNumberToObject(item, "timeout", HOOK_CLAUDE_TIMEOUT);
		changed = 1;
	}
	if (!changed) {
		rc = 1;
		goto out;
	}
	*out = print_settings(root);
	rc = *out ? 0 : -ENOMEM;
out:
	cJSON_Delete(root);
	return rc;
}

int hook_claude_settings_remove(const char *text, char **out)
{
	cJSON *root, *hooks, *pre, *entry, *next, *arr, *h, *hnext;
	int removed = 0, here, rc = -EINVAL;

	*out = NULL;
	root = parse_settings(text);
	if (!root || !cJSON_IsObject(root))
		goto out;
	hooks = cJSON_GetObjectItemCaseSensitive(root, "hooks");
	pre = cJSON_IsObject(hooks) ? cJSON_GetObjectItemCaseSensitive(hooks, "PreToolUse") : NULL;
	if (!cJSON_IsArray(pre)) {
		rc = 1;
		goto out;
	}
	for (entry = pre->child; entry; entry = next) {
		next = entry->next;
		arr = cJSON_GetObjectItemCaseSensitive(entry, "hooks");
		if (!cJSON_IsArray(arr))
			continue;
		here = 0;
		for (h = arr->child; h; h = hnext) {
			cJSON *cmd = cJSON_GetObjectItemCaseSensitive(h, "command");
			hnext = h->next;
			if (cJSON_IsString(cmd) && hook_is_dcg_command(cmd->valuestring)) {
				cJSON_Delete(cJSON_DetachItemViaPointer(arr, h));
				removed = here = 1;
			}
		}
		/* An entry left with no hooks was dcg's own. */
		if (here && cJSON_GetArraySize(arr) == 0)
			cJSON_Delete(cJSON_DetachItemViaPointer(pre, entry));
	}
	if (!removed) {
		rc = 1;
		goto out;
	}
	if (cJSON_GetArraySize(pre) == 0)
		cJSON_DeleteItemFromObjectCaseSensitive(hooks, "PreToolUse");
	if (!hooks->child)
		cJSON_DeleteItemFromObjectCaseSensitive(root, "hooks");
	*out = print_settings(root);
	rc = *out ? 0 : -ENOMEM;
out:
	cJSON_Delete(root);
	return rc;
}
