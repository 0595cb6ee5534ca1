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
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dcg_policy.h"
#include "rt.h"

static void run_usage(FILE *f)
{
	fprintf(f, "usage: dcg run [--policy FILE] [--intent ID] [-- CMD ARGS...]\n"
		   "Runs CMD (default $SHELL, else /bin/bash) with the preload guard: every\n"
		   "dynamically linked process it starts refuses what the policy forbids.\n"
		   "Not covered: static binaries, raw syscalls, set-uid programs (dcg sandbox).\n");
}

/* The runtime layers' refusal line (runtime/rt.h): a path rule names the whole path;
 * and its audit line, as the guard writes one for every exec it refuses. */
static void print_blocked(const struct pol_result *r, char *const argv[])
{
	char line[2048], joined[1024], cwd[4096];
	struct rt_msg m;

	rt_msg_init(&m, line, sizeof(line));
	rt_describe(&m, "blocked", "exec", argv[0], r);
	fprintf(stderr, "%s\n", line);
	rt_msg_init(&m, joined, sizeof(joined));
	for (size_t i = 0; argv[i] && m.len < sizeof(joined) - 1; i++) {
		if (i)
			rt_msg_add(&m, " ");
		rt_msg_add(&m, argv[i]);
	}
	rt_audit("preload", "exec", m.buf, r, 0, getcwd(cwd, sizeof(cwd)));
}

static int run(int argc, char **argv, int no_agent)
{
	struct launch_args a = {
	    .name = "dcg run", .preload = LAUNCH_PRELOAD_REQUIRED, .no_agent = no_agent};
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
	if (!no_agent)
		ctx.flags |= POL_CTX_AGENT; /* CMD becomes the agent's own process */
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

int cmd_run(int argc, char **argv)
{
	return run(argc, argv, 0);
}

int cmd_run_shell_prefix(int argc, char **argv)
{
	const char *sh = getenv("SHELL");
	char *cmd[64];
	int n = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: dcg --shell-prefix COMMAND [ARGS...]\n"
				"Runs COMMAND with $SHELL -c under dcg run: the form an agent's "
				"shell prefix\n(CLAUDE_CODE_SHELL_PREFIX='/path/to/dcg "
				"--shell-prefix') calls it in.\n");
		return 2;
	}
	/* dcg run's own parser sees `-- SHELL -c COMMAND ARGS...`; the wrapped shell is a
	 * tool's command, not the agent: the session names no agent (owner :agent). */
	cmd[n++] = (char *)"run";
	cmd[n++] = (char *)"--";
	cmd[n++] = (char *)(sh && sh[0] == '/' ? sh : "/bin/bash");
	cmd[n++] = (char *)"-c";
	for (int i = 1; i < argc && n < 63; i++)
		cmd[n++] = argv[i];
	cmd[n] = NULL;
	return run(n, cmd, 1);
}
