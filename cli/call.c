/* call.c - a tool call as policy questions, and the one decision every agent adapter
 * shares. */
#include "hook.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

void hook_call_init(struct hook_call *call)
{
	memset(call, 0, offsetof(struct hook_call, scratch));
	call->scratch[0][0] = call->scratch[1][0] = '\0';
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
