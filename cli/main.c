/* main.c - the dcg binary: global options, then one subcommand from the table. */
#include "commands.h"

#include <stdio.h>
#include <string.h>

#include "dcg_policy.h"

/* Every command: its name, function (cmd_NAME) and summary. The table below holds no
 * pointer (names and summaries in arrays, the function chosen by a switch): a table of
 * pointers is relocated by the loader at every start of dcg, the hook's too
 * (cli/README.md, "cost"). */
#define DCG_COMMANDS(X)                                                         \
	X(hook, "read one agent tool call on stdin, answer it")                 \
	X(check, "decide one shell command (or a path with --tool)")            \
	X(explain, "every rule tried on a command, and why it matched or not")  \
	X(allow, "add an allowlist entry for a rule, or list them (--list)")    \
	X(unallow, "remove an allowlist entry")                                 \
	X(allow_once, "redeem, list or revoke a code for one exact command")    \
	X(trust, "let a project's policy file loosen rules (records its hash)") \
	X(untrust, "forget the trust in a project's policy file")               \
	X(run, "a shell (or CMD) under the preload guard")                      \
	X(sandbox, "CMD under the seccomp sandbox")                             \
	X(rules, "list the active rules, or lint a policy file")                \
	X(status, "policy files, rule count, registrations, last violation")    \
	X(doctor, "check every registration, binary, policy file and layer")    \
	X(packs, "every rule pack, enabled or not, with its rule count")        \
	X(log, "the audit log, filtered by time, rule, agent, decision")        \
	X(stats, "refusals counted by rule and by agent")                       \
	X(simulate, "judge recorded tool calls with a policy; runs nothing")    \
	X(install, "register the hook with an agent")                           \
	X(uninstall, "remove the hook from an agent's settings")                \
	X(intent, "the active intent whose owned_scope confines writes")        \
	X(scan, "judge the commands a repository's files run later")            \
	X(help, "help on dcg or on one command")                                \
	X(version, "print the version")

static int cmd_version(int argc, char **argv);
static int cmd_help(int argc, char **argv);

enum {
#define X_ENUM(name, summary) CMD_##name,
	DCG_COMMANDS(X_ENUM)
#undef X_ENUM
	    N_COMMANDS
};

#define NAME_MAX_LEN	12
#define SUMMARY_MAX_LEN 60
#define X_FITS(cmd, text)                                                               \
	_Static_assert(sizeof(#cmd) <= NAME_MAX_LEN && sizeof(text) <= SUMMARY_MAX_LEN, \
		       "dcg " #cmd ": name or summary too long for commands[]");
DCG_COMMANDS(X_FITS)
#undef X_FITS

/* A name is its function's, '_' written '-' (allow_once is `dcg allow-once`). */
static const struct {
	char name[NAME_MAX_LEN];
	char summary[SUMMARY_MAX_LEN];
} commands[N_COMMANDS] = {
#define X_ROW(cmd, text) {#cmd, text},
    DCG_COMMANDS(X_ROW)
#undef X_ROW
};

static int run_command(int i, int argc, char **argv)
{
	switch (i) {
#define X_CASE(name, summary) \
	case CMD_##name:      \
		return cmd_##name(argc, argv);
		DCG_COMMANDS(X_CASE)
#undef X_CASE
	}
	return 1;
}

static const char version_usage[] = "usage: dcg version\n"
				    "       dcg -v | --version\n"
				    "\n"
				    "Prints the version of dcg.\n";

static int cmd_version(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fputs(version_usage, stdout);
		return 0;
	}
	if (argc > 1) {
		fprintf(stderr, "dcg: version: unknown argument '%s'\n", argv[1]);
		fputs(version_usage, stderr);
		return 1;
	}
	printf("dcg %s\n", DCG_VERSION);
	return 0;
}

static void usage(FILE *f)
{
	int i;

	fprintf(f, "usage: dcg [--policy FILE] COMMAND [ARGS...]\n"
		   "       dcg help [COMMAND]\n"
		   "       dcg -v | --version\n\n"
		   "dcg guards a machine against an AI coding agent's destructive actions.\n\n"
		   "Commands:\n");
	for (i = 0; i < N_COMMANDS; i++) {
		char name[NAME_MAX_LEN];

		for (size_t k = 0; k < NAME_MAX_LEN; k++)
			name[k] = commands[i].name[k] == '_' ? '-' : commands[i].name[k];
		fprintf(f, "  %-10s %s\n", name, commands[i].summary);
	}
	fprintf(f,
		"\n`dcg help COMMAND` or `dcg COMMAND --help` tells more. Policy files: the "
		"embedded defaults,\n"
		"/etc/dcg/policy.yaml ($DCG_SYSTEM_POLICY), $XDG_CONFIG_HOME/dcg/policy.yaml,\n"
		".dcg/policy.yaml upwards from the working directory (its loosening parts only\n"
		"once trusted: dcg trust), then $DCG_POLICY or --policy FILE.\n"
		"Exit status of check: 0 allowed, 2 denied, 3 ask, 1 usage or internal error.\n");
}

/* The command's index in commands[], -1 for none. */
static int find_command(const char *name)
{
	char key[NAME_MAX_LEN];
	size_t k;

	for (k = 0; name[k] && k < NAME_MAX_LEN - 1; k++)
		key[k] = name[k] == '-' ? '_' : name[k];
	if (name[k])
		return -1;
	key[k] = '\0';
	for (int i = 0; i < N_COMMANDS; i++)
		if (!strcmp(commands[i].name, key))
			return i;
	return -1;
}

static const char help_usage[] = "usage: dcg help [COMMAND]\n"
				 "\n"
				 "Without COMMAND, the list of commands; with it, the same as\n"
				 "`dcg COMMAND --help`.\n";

/* dcg help [CMD]: CMD's own --help, so that the two never differ. */
static int cmd_help(int argc, char **argv)
{
	int c;
	char help[] = "--help";
	char *args[3];

	if (argc < 2) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(help_usage, stdout);
		return 0;
	}
	if (argc > 2 || argv[1][0] == '-') {
		fprintf(stderr, "dcg: help: unexpected '%s'\n", argv[argc > 2 ? 2 : 1]);
		fputs(help_usage, stderr);
		return 1;
	}
	c = find_command(argv[1]);
	if (c < 0) {
		fprintf(stderr, "dcg: help: unknown command '%s' (see dcg help)\n", argv[1]);
		return 1;
	}
	args[0] = argv[1];
	args[1] = help;
	args[2] = NULL;
	return run_command(c, 2, args);
}

int main(int argc, char **argv)
{
	int a = 1;

	while (a < argc && argv[a][0] == '-') {
		if (!strcmp(argv[a], "--version") || !strcmp(argv[a], "-V") ||
		    !strcmp(argv[a], "-v")) {
			printf("dcg %s\n", DCG_VERSION);
			return 0;
		} else if (!strcmp(argv[a], "--help") || !strcmp(argv[a], "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[a], "--policy") && a + 1 < argc) {
			dcg_global_policy = argv[a + 1];
			a += 2;
		} else if (!strncmp(argv[a], "--policy=", 9)) {
			dcg_global_policy = argv[a] + 9;
			a++;
		} else if (!strcmp(argv[a], "--shell-prefix")) {
			/* an agent's shell prefix: one executable and its options */
			return cmd_run_shell_prefix(argc - a, argv + a);
		} else {
			fprintf(stderr, "dcg: unknown option '%s'\n", argv[a]);
			usage(stderr);
			return 1;
		}
	}
	if (a >= argc) {
		usage(stderr);
		return 1;
	}
	int c = find_command(argv[a]);
	if (c == CMD_hook)
		hook_alloc_start(); /* one short process: no glibc malloc to start */
	if (c >= 0)
		return run_command(c, argc - a, argv + a);
	fprintf(stderr, "dcg: unknown command '%s' (see dcg help)\n", argv[a]);
	return 1;
}
