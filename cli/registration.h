/* registration.h - the soundness of dcg's hook registrations, for `dcg status` and
 * `dcg doctor` (cli/registration.c).
 *
 * A registration is BROKEN when the agent would not be guarded as dcg install means
 * it to be: its binary is missing or does not decide, the entry is malformed or does
 * not cover every tool dcg checks (it is not what dcg install writes), or its command
 * does not fail closed. Each problem comes with the command that fixes it. */
#ifndef DCG_REGISTRATION_H
#define DCG_REGISTRATION_H

#include "agents/agents.h"
#include "hook.h"

#include <limits.h>

#define REG_MAX_PROBLEMS 6
#define REG_TEXT	 512

struct reg_problem {
	char what[REG_TEXT + PATH_MAX];
	char fix[REG_TEXT];
};

struct reg_report {
	const char *agent; /* hook_agent name (static) */
	int user;	   /* 1: the user's settings, 0: the project's */
	char path[PATH_MAX];
	int exists;	/* the settings file exists */
	int registered; /* it holds a dcg entry */
	int answers;	/* 1: the registered binary decided a probe command; -1: not run (a
		      * project file names another program than this dcg) */
	char command[PATH_MAX + 64]; /* the registered hook command */
	char binary[PATH_MAX];
	size_t n_problems;
	struct reg_problem problems[REG_MAX_PROBLEMS];
};

/* Inspects the settings file at path for agent ag (user: which of its two files). */
void reg_inspect(const struct hook_agent *ag, int user, const char *path, struct reg_report *r);

/* Inspects every agent's user and project settings for the folder cwd, each file
 * once (in $HOME the two are one). Returns how many reports it wrote (<= max). */
size_t reg_inspect_all(const char *cwd, struct reg_report *out, size_t max);

/* 1 when a and b name the same file (same path, or same device and inode). */
int reg_same_file(const char *a, const char *b);

/* The hook command dcg install registers for agent when the binary is exe, into out
 * (cli/cmd_install.c). Returns 0, or -1 when exe cannot be quoted simply. */
int hook_command_for(const char *exe, const char *agent, char *out, size_t size);

#endif /* DCG_REGISTRATION_H */
