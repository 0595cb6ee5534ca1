/* run.c - `dcg run [--policy FILE] [--intent ID] [-- CMD ARGS...]`: CMD (default
 * $SHELL, else /bin/bash) with libdcg-preload.so in LD_PRELOAD.
 *
 * The policy is loaded and compiled here, once; children get its snapshot in a file
 * ($DCG_SNAPSHOT) so that each process starts without parsing YAML. The snapshot file
 * is named by a hash of its content and kept: a daemon started under the guard can
 * still exec after this command is gone, and the next run with the same policy reuses
 * it. dcg run execs CMD itself, so CMD's exit status and signals are its own. */
#include "../cli/commands.h"
#include "../cli/hook.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dcg_policy.h"
#include "rundir.h"

static void run_usage(FILE *f)
{
	fprintf(f, "usage: dcg run [--policy FILE] [--intent ID] [-- CMD ARGS...]\n"
		   "Runs CMD (default $SHELL, else /bin/bash) with the preload guard: every\n"
		   "dynamically linked process it starts refuses what the policy forbids.\n"
		   "Not covered: static binaries, raw syscalls, set-uid programs (dcg sandbox).\n");
}

/* LD_PRELOAD with the guard first, keeping what was there (unless it is already in). */
static int set_preload(const char *lib)
{
	const char *old = getenv("LD_PRELOAD");
	char *v;
	size_t n;
	int rc;

	if (old && strstr(old, lib))
		return 0;
	if (!old || !*old)
		return setenv("LD_PRELOAD", lib, 1);
	n = strlen(lib) + 1 + strlen(old) + 1;
	v = malloc(n);
	if (!v)
		return -1;
	snprintf(v, n, "%s %s", lib, old);
	rc = setenv("LD_PRELOAD", v, 1);
	free(v);
	return rc;
}

static void print_blocked(const struct pol_result *r, char *const argv[])
{
	fprintf(stderr, "dcg: blocked exec of %s: %s [%s]\n", argv[0],
		r->reason ? r->reason : "refused", r->rule_id ? r->rule_id : "?");
}

int cmd_run(int argc, char **argv)
{
	const char *policy_file = dcg_global_policy, *intent = NULL;
	char policy_abs[PATH_MAX], lib[PATH_MAX], snap[PATH_MAX], logp[PATH_MAX];
	char *default_cmd[2] = {NULL, NULL};
	struct pol_policy *p = NULL;
	struct pol_result r;
	struct pol_ctx ctx;
	char **cmd;
	int a = 1, rc = 1;

	while (a < argc) {
		if (!strcmp(argv[a], "--")) {
			a++;
			break;
		} else if (!strcmp(argv[a], "--help") || !strcmp(argv[a], "-h")) {
			run_usage(stdout);
			return 0;
		} else if (!strcmp(argv[a], "--policy") && a + 1 < argc) {
			policy_file = argv[a + 1];
			a += 2;
		} else if (!strncmp(argv[a], "--policy=", 9)) {
			policy_file = argv[a] + 9;
			a++;
		} else if (!strcmp(argv[a], "--intent") && a + 1 < argc) {
			intent = argv[a + 1];
			a += 2;
		} else if (!strncmp(argv[a], "--intent=", 9)) {
			intent = argv[a] + 9;
			a++;
		} else if (argv[a][0] == '-') {
			fprintf(stderr, "dcg run: unknown option '%s'\n", argv[a]);
			run_usage(stderr);
			return 1;
		} else {
			break;
		}
	}
	if (a < argc) {
		cmd = argv + a;
	} else {
		const char *sh = getenv("SHELL");

		default_cmd[0] = (char *)(sh && *sh ? sh : "/bin/bash");
		cmd = default_cmd;
	}
	if (!policy_file)
		policy_file = getenv("DCG_POLICY");
	if (policy_file && *policy_file) {
		if (!realpath(policy_file, policy_abs)) {
			fprintf(stderr, "dcg run: policy file %s: %s\n", policy_file,
				strerror(errno));
			return 1;
		}
		policy_file = policy_abs;
	} else {
		policy_file = NULL;
	}
	if (run_find_preload(lib, sizeof(lib)) < 0) {
		fprintf(stderr,
			"dcg run: libdcg-preload.so not found next to dcg (set DCG_PRELOAD)\n");
		return 1;
	}

	p = hook_policy_open(policy_file, NULL, stderr);
	if (!p) {
		fprintf(stderr, "dcg run: out of memory loading the policy\n");
		return 1;
	}
	rc = run_write_snapshot(p, "<dcg run>", snap, sizeof(snap));
	if (rc == -EPERM || rc == -ENAMETOOLONG)
		fprintf(stderr, "dcg run: no private folder for the policy snapshot\n");
	else if (rc == -EINVAL)
		fprintf(stderr, "dcg run: the policy snapshot does not load back as saved; "
				"each process will load the policy files itself\n");
	else if (rc < 0)
		fprintf(stderr, "dcg run: cannot write the policy snapshot; each process "
				"will load the policy files itself\n");
	else if (setenv("DCG_SNAPSHOT", snap, 1) != 0)
		goto out_free;
	rc = 1;
	if (policy_file && setenv("DCG_POLICY", policy_file, 1) != 0)
		goto out_free;
	/* One session per dcg run: the guard says once per session that a program it
	 * cannot follow (static, set-uid) ran. */
	{
		char sess[64];

		snprintf(sess, sizeof(sess), "%ld.%ld", (long)getpid(), (long)time(NULL));
		if (setenv("DCG_SESSION", sess, 1) != 0)
			goto out_free;
	}
	/* The log path is fixed now, so that `env -i` in a child does not move it. */
	if (pol_log_path(logp, sizeof(logp)) == 0 && logp[0] == '/' &&
	    setenv("DCG_LOG", logp, 1) != 0)
		goto out_free;
	/* Checks the ID against the project's intents file and sets $DCG_INTENT and
	 * $DCG_INTENTS_FILE, which the guard reads (and re-injects) in every process. */
	if (intent && hook_intent_prepare_run(intent, stderr) != 0)
		goto out_free;

	/* CMD itself is the first exec under the guard. */
	memset(&ctx, 0, sizeof(ctx));
	pol_result_init(&r);
	if (pol_check_argv(p, cmd, &ctx, &r) == POL_DENY) {
		print_blocked(&r, cmd);
		pol_result_release(&r);
		rc = 126;
		goto out_free;
	}
	pol_result_release(&r);

	if (set_preload(lib) != 0)
		goto out_free;
	pol_free(p);
	fflush(NULL);
	execvp(cmd[0], cmd);
	fprintf(stderr, "dcg run: %s: %s\n", cmd[0], strerror(errno));
	return errno == ENOENT ? 127 : 126;
out_free:
	pol_free(p);
	return rc;
}
