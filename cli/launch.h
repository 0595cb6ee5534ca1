/* launch.h - what `dcg run` and `dcg sandbox` do before CMD starts: the one place that
 * reads their shared options and builds the guarded environment (the policy snapshot,
 * the guard library in LD_PRELOAD, DCG_POLICY, DCG_SESSION, DCG_LOG, the intent).
 *
 * The environment is built in this process's own (setenv): `dcg run` then execs CMD,
 * `dcg sandbox` forks it under the supervisor (sandbox/sandbox.h), which reads the
 * intent from the same variables. */
#ifndef DCG_LAUNCH_H
#define DCG_LAUNCH_H

#include <stddef.h>
#include <stdio.h>

#include "dcg_policy.h"

enum launch_preload {
	LAUNCH_PRELOAD_REQUIRED, /* dcg run: no guard library is an error */
	LAUNCH_PRELOAD_IF_FOUND, /* dcg sandbox: the supervisor guards without it */
	LAUNCH_PRELOAD_NONE,	 /* dcg sandbox --no-preload */
};

struct launch_args {
	/* set by the command */
	const char *name;	     /* "dcg run": the prefix of its messages */
	enum launch_preload preload; /* --no-preload is an option where this is IF_FOUND */
	int sandbox;		     /* 1: DCG_SANDBOX=1 for the tree */
	int no_agent; /* 1: CMD is a tool's shell (a shell prefix), not the agent (:agent) */
	/* set by launch_parse() */
	const char *policy_file; /* --policy FILE, or NULL */
	const char *intent;	 /* --intent ID, or NULL */
	char **cmd;		 /* CMD ARGS... (NULL-terminated): argv's, or $SHELL alone */
	char *default_cmd[2];
};

/* Reads `[--policy FILE] [--intent ID] [--no-preload] [--help] [--] [CMD ARGS...]`
 * (argv[0] is the command's name) before anything is prepared. Returns 1 when CMD is to
 * run, 0 after printing the usage for --help, -1 after printing the usage on stderr
 * for an unknown option. */
int launch_parse(int argc, char **argv, struct launch_args *a, void (*usage)(FILE *f));

/* Prepares CMD's environment in this process, in this order: the policy file made
 * absolute (--policy, else `dcg --policy`, else $DCG_POLICY), the guard library, the
 * layered policy loaded (diagnostics on stderr), its snapshot when the guard library
 * is used (DCG_SNAPSHOT; when it cannot be written, a warning, and the guarded
 * processes load the policy files themselves), DCG_POLICY, a new DCG_SESSION, DCG_LOG
 * fixed, the intent checked (DCG_INTENT, DCG_INTENTS_FILE), LD_PRELOAD with the guard
 * first, DCG_SANDBOX. Returns the policy (pol_free) or NULL after saying why on stderr. */
struct pol_policy *launch_prepare(const struct launch_args *a);

/* The guard library: $DCG_PRELOAD, else libdcg-preload.so next to the dcg binary, else
 * ../lib/dcg/ beside it. Writes its path into out (at least PATH_MAX bytes). Returns 0
 * or -ENOENT. */
int launch_find_preload(char *out, size_t size);

/* Writes p's snapshot as $XDG_RUNTIME_DIR/dcg/snap-HASH (else /tmp/dcg-UID/), a folder
 * of ours (0700, refused when another user owns it or may write in it) that p gains as
 * a read-only path first (origin names who asks, e.g. "<dcg run>"). The file is named by
 * its content, kept for reuse, and replaced atomically; files unused for a week go. The
 * snapshot must load back with every rule as saved, or it is not written. out gets its
 * path. Returns 0, -EPERM (no private folder), -EINVAL (no faithful snapshot), or
 * another negative errno: the guarded processes then load the policy files themselves. */
int launch_write_snapshot(struct pol_policy *p, const char *origin, char *out, size_t size);

#endif /* DCG_LAUNCH_H */
