/* cmd_run.c - `dcg run [--policy FILE] [--intent ID] [-- CMD ARGS...]`: CMD (default
 * $SHELL, else /bin/bash) with libdcg-preload.so in LD_PRELOAD.
 *
 * The policy is loaded and compiled here, once; children get its snapshot in a file
 * ($DCG_SNAPSHOT) so that each process starts without parsing YAML (launch.h). The
 * snapshot file is named by a hash of its content and kept: a daemon started under the
 * guard can still exec after this command is gone, and the next run with the same
 * policy reuses it. dcg run execs CMD itself, so CMD's exit status and signals are its
 * own. */
#include "commands.h"
#include "launch.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "dcg_policy.h"

static void run_usage(FILE *f)
{
	fprintf(f, "usage: dcg run [--policy FILE] [--intent ID] [-- CMD ARGS...]\n"
		   "Runs CMD (default $SHELL, else /bin/bash) with the preload guard: every\n"
		   "dynamically linked process it starts refuses what the policy forbids.\n"
		   "Not covered: static binaries, raw syscalls, set-uid programs (dcg sandbox).\n");
}

static void print_blocked(const struct pol_result *r, char *const argv[])
{
	fprintf(stderr, "dcg: blocked exec of %s: %s [%s]\n", argv[0],
		r->reason ? r->reason : "refused", r->rule_id ? r->rule_id : "?");
}

int cmd_run(int argc, char **argv)
{
	struct launch_args a = {.name = "dcg run", .preload = LAUNCH_PRELOAD_REQUIRED};
	struct pol_policy *p;
	struct pol_result r;
	struct pol_ctx ctx;
	int rc = launch_parse(argc, argv, &a, run_usage);

	if (rc <= 0)
		return rc < 0;
	p = launch_prepare(&a);
	if (!p)
		return 1;
	/* CMD itself is the first exec under the guard. */
	memset(&ctx, 0, sizeof(ctx));
	ctx.flags = POL_CTX_RUNTIME; /* what CMD then does is checked call by call */
	pol_result_init(&r);
	if (pol_check_argv(p, a.cmd, &ctx, &r) == POL_DENY) {
		print_blocked(&r, a.cmd);
		pol_result_release(&r);
		pol_free(p);
		return 126;
	}
	pol_result_release(&r);
	pol_free(p);
	fflush(NULL);
	execvp(a.cmd[0], a.cmd);
	fprintf(stderr, "dcg run: %s: %s\n", a.cmd[0], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}
