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
static int cmd_help(int argc, char **argv);

static const struct subcommand commands[] = {
    {"hook", cmd_hook, "read one agent tool call on stdin, answer it"},
    {"check", cmd_check, "decide one shell command (or a path with --tool)"},
    {"explain", cmd_explain, "every rule tried on a command, and why it matched or not"},
    {"allow", cmd_allow, "add an allowlist entry for a rule, or list them (--list)"},
    {"unallow", cmd_unallow, "remove an allowlist entry"},
    {"trust", cmd_trust, "let a project's policy file loosen rules (records its hash)"},
    {"untrust", cmd_untrust, "forget the trust in a project's policy file"},
    {"run", cmd_run, "a shell (or CMD) under the preload guard"},
    {"sandbox", cmd_sandbox, "CMD under the seccomp sandbox"},
    {"rules", cmd_rules, "list the active rules, or lint a policy file"},
    {"status", cmd_status, "policy files, rule count, registrations, last violation"},
    {"doctor", cmd_doctor, "check every registration, binary, policy file and layer"},
    {"packs", cmd_packs, "every rule pack, enabled or not, with its rule count"},
    {"log", cmd_log, "the audit log, filtered by time, rule, agent, decision"},
    {"stats", cmd_stats, "refusals counted by rule and by agent"},
    {"install", cmd_install, "register the hook with an agent"},
    {"uninstall", cmd_uninstall, "remove the hook from an agent's settings"},
    {"intent", cmd_intent, "the active intent whose owned_scope confines writes"},
    {"help", cmd_help, "help on dcg or on one command"},
    {"version", cmd_version, "print the version"},
};
#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

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
	size_t i;

	fprintf(f, "usage: dcg [--policy FILE] COMMAND [ARGS...]\n"
		   "       dcg help [COMMAND]\n"
		   "       dcg -v | --version\n\n"
		   "dcg guards a machine against an AI coding agent's destructive actions.\n\n"
		   "Commands:\n");
	for (i = 0; i < N_COMMANDS; i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f,
		"\n`dcg help COMMAND` or `dcg COMMAND --help` tells more. Policy files: the "
		"embedded defaults,\n"
		"/etc/dcg/policy.yaml ($DCG_SYSTEM_POLICY), $XDG_CONFIG_HOME/dcg/policy.yaml,\n"
		".dcg/policy.yaml upwards from the working directory (its loosening parts only\n"
		"once trusted: dcg trust), then $DCG_POLICY or --policy FILE.\n"
		"Exit status of check: 0 allowed, 2 denied, 3 ask, 1 usage or internal error.\n");
}

static const struct subcommand *find_command(const char *name)
{
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static const char help_usage[] = "usage: dcg help [COMMAND]\n"
				 "\n"
				 "Without COMMAND, the list of commands; with it, the same as\n"
				 "`dcg COMMAND --help`.\n";

/* dcg help [CMD]: CMD's own --help, so that the two never differ. */
static int cmd_help(int argc, char **argv)
{
	const struct subcommand *c;
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
	if (!c) {
		fprintf(stderr, "dcg: help: unknown command '%s' (see dcg help)\n", argv[1]);
		return 1;
	}
	args[0] = argv[1];
	args[1] = help;
	args[2] = NULL;
	return c->fn(2, args);
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
	const struct subcommand *c = find_command(argv[a]);
	if (c)
		return c->fn(argc - a, argv + a);
	fprintf(stderr, "dcg: unknown command '%s' (see dcg help)\n", argv[a]);
	return 1;
}
