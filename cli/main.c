/* main.c - the dcg binary: global options, then one subcommand from the table. */
#include "commands.h"

#include <stdio.h>
#include <string.h>

#include "dcg_policy.h"

struct subcommand {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static int cmd_version(int argc, char **argv);

static const struct subcommand commands[] = {
    {"hook", cmd_hook, "read one agent tool call on stdin, answer it"},
    {"check", cmd_check, "decide one shell command (or a path with --tool)"},
    {"explain", cmd_explain, "every rule tried on a command, and why it matched or not"},
    {"allow", cmd_allow, "add an allowlist entry for a rule"},
    {"trust", cmd_trust, "let a project's policy file loosen rules (records its hash)"},
    {"untrust", cmd_untrust, "forget the trust in a project's policy file"},
    {"run", cmd_run, "a shell (or CMD) under the preload guard"},
    {"sandbox", cmd_sandbox, "CMD under the seccomp sandbox"},
    {"rules", cmd_rules, "list the active rules, or lint a policy file"},
    {"status", cmd_status, "active policy files, rule count, last violation"},
    {"log", cmd_log, "the audit log"},
    {"install", cmd_install, "register the hook with an agent"},
    {"uninstall", cmd_uninstall, "remove the hook from an agent's settings"},
    {"intent", cmd_intent, "the active intent whose owned_scope confines writes"},
    {"version", cmd_version, "print the version"},
};
#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static int cmd_version(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("dcg %s\n", DCG_VERSION);
	return 0;
}

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: dcg [--policy FILE] COMMAND [ARGS...]\n"
		   "       dcg --version\n\n"
		   "dcg guards a machine against an AI coding agent's destructive actions.\n\n"
		   "Commands:\n");
	for (i = 0; i < N_COMMANDS; i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f,
		"\n`dcg COMMAND --help` tells more. Policy files: the embedded defaults,\n"
		"/etc/dcg/policy.yaml ($DCG_SYSTEM_POLICY), $XDG_CONFIG_HOME/dcg/policy.yaml,\n"
		".dcg/policy.yaml upwards from the working directory (its loosening parts only\n"
		"once trusted: dcg trust), then $DCG_POLICY or --policy FILE.\n"
		"Exit status of check: 0 allowed, 2 denied, 3 ask, 1 usage or internal error.\n");
}

int main(int argc, char **argv)
{
	size_t i;
	int a = 1;

	while (a < argc && argv[a][0] == '-') {
		if (!strcmp(argv[a], "--version") || !strcmp(argv[a], "-V")) {
			return cmd_version(0, NULL);
		} else if (!strcmp(argv[a], "--help") || !strcmp(argv[a], "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[a], "--policy") && a + 1 < argc) {
			dcg_global_policy = argv[a + 1];
			a += 2;
		} else if (!strncmp(argv[a], "--policy=", 9)) {
			dcg_global_policy = argv[a] + 9;
			a++;
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
	for (i = 0; i < N_COMMANDS; i++) {
		if (!strcmp(commands[i].name, argv[a]))
			return commands[i].fn(argc - a, argv + a);
	}
	fprintf(stderr, "dcg: unknown command '%s' (see dcg --help)\n", argv[a]);
	return 1;
}
