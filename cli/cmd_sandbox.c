/* cmd_sandbox.c - `dcg sandbox [--policy FILE] [--intent ID] [--no-preload] [-- CMD
 * ARGS...]`: CMD under the seccomp supervisor (sandbox/sandbox.h), in the environment
 * `dcg run` builds too (launch.h). */
#include "commands.h"
#include "launch.h"

#include <stdio.h>

#include "../sandbox/sandbox.h"
#include "dcg_policy.h"

static void sbx_usage(FILE *f)
{
	fputs("usage: dcg sandbox [--policy FILE] [--intent ID] [--no-preload] [-- CMD ARGS...]\n"
	      "Runs CMD (default $SHELL) under the seccomp supervisor: the policy's path rules\n"
	      "hold for every process of the tree, static binaries and raw syscalls included.\n"
	      "--no-preload: do not add libdcg-preload.so (refusals are then said by the\n"
	      "supervisor only, with the syscall's name).\n"
	      "--intent ID: writes outside the intent's owned_scope are refused too.\n",
	      f);
}

int cmd_sandbox(int argc, char **argv)
{
	struct launch_args a = {
	    .name = "dcg sandbox", .preload = LAUNCH_PRELOAD_IF_FOUND, .sandbox = 1};
	struct pol_policy *p;
	char msg[256];
	int rc = launch_parse(argc, argv, &a, sbx_usage);

	if (rc <= 0)
		return rc < 0;
	/* Before anything is prepared: CMD never runs unprotected. */
	if (sbx_kernel_check(msg, sizeof msg) < 0) {
		fprintf(stderr, "dcg sandbox: %s; refusing to run without protection\n", msg);
		return 1;
	}
	p = launch_prepare(&a);
	if (!p)
		return 1;
	rc = sbx_run(p, a.cmd);
	pol_free(p);
	return rc;
}
