/* cmd_install.c - `dcg install|uninstall --agent NAME`: dcg's hook in an agent's
 * settings, merged in and taken out without touching anything else. */
#include "hook.h"

#include "commands.h"

#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char install_usage[] =
    "usage: dcg install --agent claude|codex|gemini|cursor|pi|all [--project | --user]\n"
    "                   [--settings FILE]\n"
    "       dcg uninstall --agent claude|codex|gemini|cursor|pi|all [--project | --user]\n"
    "                   [--settings FILE]\n"
    "\n"
    "install registers `dcg hook` as the agent's pre-tool hook (Claude Code: for the\n"
    "Bash, Read, Write, Edit, MultiEdit, NotebookEdit, Glob, Grep and LS tools), merged\n"
    "into the settings file; running it again changes nothing. uninstall removes only\n"
    "what install added. --agent all: every agent whose config folder (.claude,\n"
    ".codex, .gemini, .cursor, .pi) exists here (--project) or in ~ (--user).\n"
    "  --project  the project's settings (Claude Code: .claude/settings.json here; default)\n"
    "  --user     the user's settings (Claude Code: ~/.claude/settings.json)\n";

/* The command line the agent will run: this very binary, quoted for a shell. */
static int hook_command(const char *agent, char *out, size_t size)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int quote, w;

	if (n <= 0)
		return -1;
	exe[n] = '\0';
	quote = strpbrk(exe, " \t'\"$`\\;&|<>()*?[]{}!#~") != NULL;
	if (quote && strchr(exe, '\''))
		return -1; /* cannot quote it simply; refuse rather than register a broken hook */
	w = snprintf(out, size, "%s%s%s hook --agent %s", quote ? "'" : "", exe, quote ? "'" : "",
		     agent);
	return w < 0 || (size_t)w >= size ? -1 : 0;
}

/* 1 when the agent's own folder in a settings path exists: the deepest component that
 * starts with a dot (~/.claude, ./.codex, ~/.pi of ~/.pi/agent/extensions/...), else
 * the folder holding the file. `--agent all` installs only where an agent lives. */
static int config_dir_exists(const char *path)
{
	char dir[PATH_MAX];
	char *slash, *dot = NULL, *p, *end;
	struct stat st;

	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
		return 0;
	slash = strrchr(dir, '/');
	if (!slash)
		return 1;
	*slash = '\0';
	for (p = dir; (p = strstr(p, "/.")) != NULL; p++)
		dot = p;
	if (dot && (end = strchr(dot + 1, '/')) != NULL)
		*end = '\0';
	return stat(dir[0] ? dir : "/", &st) == 0 && S_ISDIR(st.st_mode);
}

static int run(int argc, char **argv, int remove)
{
	static const struct option opts[] = {
	    {"agent", required_argument, NULL, 'a'}, {"project", no_argument, NULL, 'j'},
	    {"user", no_argument, NULL, 'u'},	     {"settings", required_argument, NULL, 's'},
	    {"help", no_argument, NULL, 'h'},	     {NULL, 0, NULL, 0},
	};
	const char *name = NULL, *settings = NULL;
	char cwd[PATH_MAX], path[PATH_MAX], command[PATH_MAX + 64], msg[PATH_MAX + 128];
	int c, user = 0, rc = 0, done = 0;
	size_t i;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			name = optarg;
			break;
		case 'j':
			user = 0;
			break;
		case 'u':
			user = 1;
			break;
		case 's':
			settings = optarg;
			break;
		case 'h':
			fputs(install_usage, stdout);
			return 0;
		default:
			fputs(install_usage, stderr);
			return 1;
		}
	}
	if (!name || optind != argc) {
		fputs(install_usage, stderr);
		return 1;
	}
	if (!getcwd(cwd, sizeof(cwd))) {
		fprintf(stderr, "dcg: cannot get the working directory\n");
		return 1;
	}
	for (i = 0; i < hook_agent_count(); i++) {
		const struct hook_agent *ag = hook_agent_get(i);
		if (strcmp(name, "all") != 0 && strcmp(name, ag->name) != 0)
			continue;
		done = 1;
		if (!ag->install) {
			fprintf(stderr, "dcg: %s: not supported yet for the %s agent\n",
				remove ? "uninstall" : "install", ag->name);
			if (strcmp(name, "all") != 0)
				rc = 1;
			continue;
		}
		if (settings) {
			snprintf(path, sizeof(path), "%s", settings);
		} else if (ag->settings_path(user, cwd, path, sizeof(path))) {
			fprintf(stderr, "dcg: cannot locate the %s settings of %s\n",
				user ? "user" : "project", ag->name);
			rc = 1;
			continue;
		}
		if (!settings && !strcmp(name, "all") && !config_dir_exists(path)) {
			printf("dcg: %s: no config folder for %s, skipped\n",
			       remove ? "uninstall" : "install", ag->name);
			continue;
		}
		if (remove) {
			if (ag->uninstall(path, msg, sizeof(msg)))
				rc = 1;
		} else {
			if (hook_command(ag->name, command, sizeof(command))) {
				fprintf(stderr,
					"dcg: cannot name this dcg binary in a hook command\n");
				rc = 1;
				continue;
			}
			if (ag->install(path, command, msg, sizeof(msg)))
				rc = 1;
		}
		fprintf(rc ? stderr : stdout, "dcg: %s\n", msg);
	}
	if (!done) {
		fprintf(stderr, "dcg: unknown agent '%s'\n", name);
		return 1;
	}
	return rc;
}

int cmd_install(int argc, char **argv)
{
	return run(argc, argv, 0);
}

int cmd_uninstall(int argc, char **argv)
{
	return run(argc, argv, 1);
}
