/* policy_open.c - the layered policy as every command loads it, with its diagnostics
 * printed and the embedded defaults kept whatever the files hold. */
#include "hook.h"

#include "commands.h"

#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

const char *dcg_global_policy;

void hook_print_diag(FILE *out, const struct pol_diag *d)
{
	fprintf(out, "%s:%u:%u: %s%s%s%s\n", d->file[0] ? d->file : "<policy>", d->line, d->col,
		d->rule[0] ? d->rule : "", d->rule[0] ? ": " : "", d->msg,
		d->fatal ? " (file ignored; embedded defaults still active)" : "");
}

struct pol_policy *hook_policy_open(const char *policy_file, const char *cwd, FILE *err)
{
	struct pol_policy *p;
	struct pol_env env;
	char *cwd_buf = NULL, exe[PATH_MAX], lib[PATH_MAX];
	size_t i, n;

	/* Lazy: an allowed call that names no path never expands the path rules (a
	 * symlink walk for each). Callers that share the policy with threads call
	 * pol_prepare() first. */
	/* The process's folder only when the call names none (an agent's call does, and
	 * the layered load then makes it the root): no getcwd, and no PATH_MAX buffer
	 * deepening every load's stack. */
	p = pol_new(POL_LOAD_LAZY | (cwd && cwd[0] == '/' ? POL_NEW_NO_CWD : 0));
	if (!p)
		return NULL;
	if (!(cwd && cwd[0] == '/'))
		cwd_buf = malloc(PATH_MAX);
	pol_env_from_process(&env, cwd_buf, cwd_buf ? PATH_MAX : 0);
	if (cwd && cwd[0] == '/')
		env.cwd = cwd;
	if (policy_file)
		env.policy_file = policy_file;
	/* The binary and the guard library in force: the guard's own files beside them
	 * (pol_self_rows), whichever way dcg was installed. /proc/self/exe is canonical. */
	{
		ssize_t k = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		const char *pre = getenv("DCG_PRELOAD");

		exe[k > 0 ? k : 0] = '\0';
		env.dcg_exe = exe[0] == '/' ? exe : NULL;
		if (pre && pre[0] && realpath(pre, lib))
			env.guard_lib = lib;
	}
	/* Errors in files leave the embedded defaults active: report and go on. */
	pol_load_layers(p, &env);
	free(cwd_buf);
	n = pol_diag_count(p);
	for (i = 0; err && i < n; i++)
		hook_print_diag(err, pol_diag_get(p, i));
	return p;
}
