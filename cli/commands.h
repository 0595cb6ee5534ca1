/* commands.h - the subcommands of the dcg binary. Each takes the arguments after its
 * name (argv[0] is the subcommand's name) and returns the process exit status
 * (DESIGN.md "Command line": 0 allowed, 2 denied, 3 ask, 1 usage or internal error).
 * Every command accepts --help and --policy FILE. */
#ifndef DCG_COMMANDS_H
#define DCG_COMMANDS_H

#include <getopt.h>

int cmd_hook(int argc, char **argv);	   /* cli/cmd_hook.c */
int cmd_check(int argc, char **argv);	   /* cli/cmd_check.c */
int cmd_explain(int argc, char **argv);	   /* cli/cmd_check.c */
int cmd_allow(int argc, char **argv);	   /* cli/cmd_allow.c */
int cmd_unallow(int argc, char **argv);	   /* cli/cmd_allow.c */
int cmd_allow_once(int argc, char **argv); /* cli/cmd_once.c: `dcg allow-once` */
int cmd_simulate(int argc, char **argv);   /* cli/cmd_simulate.c */
int cmd_rules(int argc, char **argv);	   /* cli/cmd_rules.c */
int cmd_status(int argc, char **argv);	   /* cli/cmd_status.c */
int cmd_doctor(int argc, char **argv);	   /* cli/cmd_status.c */
int cmd_packs(int argc, char **argv);	   /* cli/cmd_rules.c */
int cmd_log(int argc, char **argv);	   /* cli/cmd_log.c */
int cmd_stats(int argc, char **argv);	   /* cli/cmd_log.c */
int cmd_install(int argc, char **argv);	   /* cli/cmd_install.c */
int cmd_uninstall(int argc, char **argv);
int cmd_intent(int argc, char **argv); /* cli/cmd_intent.c */
int cmd_trust(int argc, char **argv);  /* cli/cmd_trust.c */
int cmd_untrust(int argc, char **argv);
int cmd_run(int argc, char **argv);
/* `dcg --shell-prefix COMMAND [ARGS...]`: `dcg run -- $SHELL -c COMMAND ARGS...`, the
 * form an agent's shell prefix calls (Claude Code's CLAUDE_CODE_SHELL_PREFIX). */
int cmd_run_shell_prefix(int argc, char **argv); /* cli/cmd_run.c */
int cmd_sandbox(int argc, char **argv);		 /* cli/cmd_sandbox.c */
int cmd_scan(int argc, char **argv);		 /* cli/cmd_scan.c */

/* The hook's own allocator from here on (cli/hook_alloc.c, in the dcg binary only):
 * main calls it for `dcg hook`, before the call is read. */
void hook_alloc_start(void);

/* The --policy FILE given before the subcommand (`dcg --policy F check ...`), or NULL:
 * commands use it when they get no --policy of their own. */
extern const char *dcg_global_policy;

/* --policy FILE, --json and --help for the small commands (rules, packs, status, doctor),
 * anywhere on the line; an unknown option, or --json where json is NULL, is an error
 * printed with the usage. Returns the index of the first non-option, -1 for a usage
 * error, -2 after printing the usage for --help. cli/cmd_rules.c */
int cmd_small_opts(int argc, char **argv, const char **policy, int *json, const char *usage);

/* A long option of a command: getopt_long's struct option, less its name pointer, which
 * the loader would relocate at every start of dcg (the hook's too) in a static table.
 * A table of them ends with {"", 0, 0}. */
struct cli_option {
	char name[14];
	char has_arg; /* no_argument, required_argument, optional_argument */
	char val;
};
#define CLI_OPTIONS_MAX 16

/* getopt_long(argc, argv, shortopts, OPTS as struct options, NULL). cli/opts.c */
int cli_getopt(int argc, char **argv, const char *shortopts, const struct cli_option *opts);

#endif /* DCG_COMMANDS_H */
