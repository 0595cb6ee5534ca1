/* call.c - a tool call as policy questions, and the one decision every agent adapter
 * shares: the policy's, then the scope of the active intent (policy/intent.h). */
#include "hook.h"

#include "intent.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void hook_call_init(struct hook_call *call)
{
	/* not the scratch buffers, which are written before they are read: 8 KiB, two
	 * more pages touched at each start of the hook */
	memset(call, 0, offsetof(struct hook_call, scratch));
}

void hook_call_invalid(struct hook_call *call, const char *why)
{
	call->kind = HOOK_CALL_INVALID;
	call->invalid = why;
	call->n_paths = 0;
}

int hook_call_add_path(struct hook_call *call, const char *path, enum pol_op op)
{
	if (call->kind == HOOK_CALL_INVALID)
		return 0;
	if (call->n_paths == call->cap_paths) {
		size_t cap = call->cap_paths ? call->cap_paths * 2 : 4;
		const char **paths = realloc(call->paths, cap * sizeof(*paths));
		enum pol_op *ops;

		if (paths)
			call->paths = paths;
		ops = paths ? realloc(call->ops, cap * sizeof(*ops)) : NULL;
		if (!ops) {
			hook_call_invalid(call, "dcg ran out of memory reading the call");
			return -ENOMEM;
		}
		call->ops = ops;
		call->cap_paths = cap;
	}
	call->kind = HOOK_CALL_PATH;
	call->paths[call->n_paths] = path;
	call->ops[call->n_paths] = op;
	call->n_paths++;
	return 0;
}

void hook_call_release(struct hook_call *call)
{
	free(call->paths);
	free(call->ops);
	call->paths = NULL;
	call->ops = NULL;
	call->n_paths = call->cap_paths = 0;
}

/* ---- the intent scope of a call ------------------------------------------------------------ */

/* The set is read once per process and reused for the same folder and session (an
 * in-process caller such as the throughput bench asks many times); results point
 * into it, so it lives until the next folder or session, or the end of the process.
 * The folder and session are kept on the heap, "cwd\0session", not in two arrays
 * here: the record is a few words that share a page dcg writes at every start anyway
 * (the ordered .bss, cli/hook.order), not 4 KiB of its own. */
static struct {
	struct pol_intent_set *set;
	int valid, absent, tools_loaded;
	char *key; /* cwd, then session */
} cache;

/* Keeps cwd and session as the cache's key; out of memory, the set is not cached. */
static int cache_key(const char *cwd, const char *session)
{
	size_t lc = strlen(cwd) + 1, ls = strlen(session) + 1;
	char *k = malloc(lc + ls);

	free(cache.key);
	cache.key = k;
	if (!k)
		return -1;
	memcpy(k, cwd, lc);
	memcpy(k + lc, session, ls);
	return 0;
}

static int cache_holds(const char *cwd, const char *session)
{
	return cache.valid && cache.key && !strcmp(cache.key, cwd) &&
	       !strcmp(cache.key + strlen(cache.key) + 1, session);
}

static struct pol_intent_set *intents_for(const struct pol_policy *p, const char *cwd,
					  const char *session, int *err)
{
	char *here = NULL;

	*err = 0;
	if (!cwd || cwd[0] != '/')
		cwd = (here = getcwd(NULL, 0)) ? here : "/";
	if (!session)
		session = "";
	if (!cache_holds(cwd, session)) {
		pol_intent_free(cache.set);
		cache.set = NULL;
		cache.valid = cache.absent = cache.tools_loaded = 0;
		cache.set = pol_intent_open(cwd, session[0] ? session : NULL, NULL, err);
		if (!cache.set && *err != -ENOENT) {
			free(here);
			return NULL; /* not cached: the next call tries again */
		}
	}
	if (cache.set && p && !cache.tools_loaded) {
		/* tool classes: the `tools:` key of every policy file that was loaded */
		for (size_t i = 0; i < pol_file_count(p); i++) {
			const char *f = pol_file_name(p, i);

			if (f && f[0] != '<')
				pol_intent_tools_load(cache.set, f);
		}
		cache.tools_loaded = 1;
	}
	if (!cache.valid)
		cache.valid = cache_key(cwd, session) == 0;
	free(here);
	cache.absent = !cache.set;
	*err = 0;
	return cache.set;
}

int hook_intent_confines(const struct hook_call *call)
{
	char file[PATH_MAX], root[PATH_MAX];

	return call->tool && call->tool[0] &&
	       pol_intent_find_file(call->cwd, file, sizeof(file), root, sizeof(root)) == 0;
}

void hook_intent_apply(const struct pol_policy *p, const struct hook_call *call,
		       struct pol_result *r)
{
	struct pol_intent_set *s;
	struct pol_result t;
	const char *home = getenv("HOME");
	int err;

	if (r->decision == POL_DENY || call->kind == HOOK_CALL_INVALID)
		return; /* nothing can be worse */
	if (call->kind == HOOK_CALL_OTHER && !call->tool)
		return; /* not a tool call (another hook event) */
	s = intents_for(p, call->cwd, call->session_id, &err);
	if (!s) {
		if (err && err != -ENOENT)
			hook_result_refuse(r, HOOK_RULE_INTERNAL,
					   "dcg could not read the project's intents file");
		return;
	}
	pol_result_init(&t);
	switch (call->kind) {
	case HOOK_CALL_COMMAND:
		pol_intent_check_command(s, call->command, call->command_len, call->cwd, home, &t);
		break;
	case HOOK_CALL_PATH:
		for (size_t i = 0; i < call->n_paths; i++) {
			struct pol_result one;

			pol_intent_check_path(s, call->paths[i], call->ops[i], 0, call->cwd, home,
					      &one);
			if (one.decision > t.decision)
				t = one;
		}
		break;
	case HOOK_CALL_OTHER:
		pol_intent_check_tool(s, call->tool, call->tool_reads_only, &t);
		break;
	default:
		break;
	}
	if (t.decision > r->decision) {
		pol_result_release(r);
		*r = t;
	}
}

/* ---- the decision ------------------------------------------------------------------- */

void hook_result_refuse(struct pol_result *r, const char *rule_id, const char *reason)
{
	static const char *const sugg_input[] = {
	    "Send one well-formed tool call: a JSON object with tool_name and tool_input, valid "
	    "UTF-8, no NUL bytes",
	};
	static const char *const sugg_internal[] = {
	    "Retry the call; if it keeps failing, run `dcg status` to see what is wrong",
	};

	pol_result_release(r);
	pol_result_init(r);
	r->decision = POL_DENY;
	r->severity = POL_SEV_CRITICAL;
	r->detection = POL_DET_NONE;
	r->rule_id = rule_id;
	r->reason = reason;
	if (!strcmp(rule_id, HOOK_RULE_INTERNAL))
		r->suggestions = sugg_internal;
	else
		r->suggestions = sugg_input;
	r->n_suggestions = 1;
}

enum pol_decision hook_decide_call(const struct pol_policy *p, const struct hook_call *call,
				   unsigned flags, struct pol_result *r)
{
	struct pol_ctx ctx;
	struct pol_result tmp;
	size_t i;

	pol_result_init(r);
	if (call->kind == HOOK_CALL_OTHER) {
		hook_intent_apply(p, call, r); /* a destructive tool dcg cannot see into */
		return r->decision;
	}
	if (call->kind == HOOK_CALL_INVALID) {
		hook_result_refuse(r, HOOK_RULE_BAD_INPUT, call->invalid);
		return r->decision;
	}
	if (!p) {
		hook_result_refuse(r, HOOK_RULE_INTERNAL,
				   "dcg could not build its policy (out of memory)");
		return r->decision;
	}
	memset(&ctx, 0, sizeof(ctx));
	ctx.cwd = call->cwd && call->cwd[0] == '/' ? call->cwd : NULL;
	ctx.flags = flags;
	if (call->kind == HOOK_CALL_COMMAND) {
		pol_check_command(p, call->command, call->command_len, &ctx, r);
		hook_intent_apply(p, call, r);
		return r->decision;
	}

	for (i = 0; i < call->n_paths; i++) {
		pol_result_init(&tmp);
		pol_check_path(p, call->paths[i], call->ops[i], 0, &ctx, &tmp);
		if (tmp.decision > r->decision) {
			pol_result_release(r);
			*r = tmp;
		} else {
			pol_result_release(&tmp);
		}
	}
	hook_intent_apply(p, call, r);
	return r->decision;
}
