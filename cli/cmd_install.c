/* cmd_install.c - `dcg install|uninstall --agent NAME`: dcg's hook in an agent's
 * settings, merged in and taken out without touching anything else. */
#include "hook.h"

#include "agents/agents.h"

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
    "  --user     the user's settings (Claude Code: ~/.claude/settings.json)\n"
    "  --force    register this binary even from a temporary or build folder\n"
    "\n"
    "The hook fails closed: when the dcg binary is missing or dies, the agent refuses\n"
    "the call (Claude Code, Codex, Gemini CLI: the command exits 2; Cursor: failClosed;\n"
    "pi: the extension blocks). Register a binary that stays where it is (make install);\n"
    "a binary in a temporary or build folder is refused without --force, since removing\n"
    "it would refuse every call.\n";

/* Agents whose hook commands run through a shell and block on exit status 2: their
 * command fails closed with "|| exit 2" (a missing binary exits 127, a crash 128+N,
 * and either would otherwise be a warning while the tool runs). Cursor fails closed
 * through failClosed in its hooks.json, pi through its extension. */
static int exit2_blocks(const char *agent)
{
	return !strcmp(agent, "claude") || !strcmp(agent, "codex") || !strcmp(agent, "gemini");
}

/* The command line the agent will run: this very binary, quoted for a shell. */
static int hook_command(const char *agent, const char *exe, char *out, size_t size)
{
	int quote, w;

	quote = strpbrk(exe, " \t'\"$`\\;&|<>()*?[]{}!#~") != NULL;
	if (quote && strchr(exe, '\''))
		return -1; /* cannot quote it simply; refuse rather than register a broken hook */
	w = snprintf(out, size, "%s%s%s hook --agent %s%s", quote ? "'" : "", exe, quote ? "'" : "",
		     agent,
		     exit2_blocks(agent) ? " || { echo 'dcg could not run, so the call is refused "
					   "(the user can run: dcg doctor)' >&2; exit 2; }"
					 : "");
	return w < 0 || (size_t)w >= size ? -1 : 0;
}

/* Is exe in a temporary folder or a build folder, where it will not stay? */
static const char *transient_dir(const char *exe)
{
	static const char *const tmp[] = {"/tmp/", "/var/tmp/", "/dev/shm/", "/run/user/"};
	const char *t = getenv("TMPDIR"), *c = exe;
	size_t tl = t ? strlen(t) : 0;

	for (size_t i = 0; i < sizeof(tmp) / sizeof(tmp[0]); i++)
		if (!strncmp(exe, tmp[i], strlen(tmp[i])))
			return "a temporary folder";
	while (tl > 1 && t[tl - 1] == '/')
		tl--;
	if (tl > 1 && t[0] == '/' && !strncmp(exe, t, tl) && exe[tl] == '/')
		return "a temporary folder ($TMPDIR)";
	/* a folder component named like a build output */
	while ((c = strchr(c, '/')) != NULL) {
		const char *e = strchr(++c, '/');
		size_t n = e ? (size_t)(e - c) : 0;

		if (!e)
			break;
		if ((n == 5 && !strncmp(c, "build", 5)) || !strncmp(c, "build-", 6) ||
		    !strncmp(c, "_build", 6) || !strncmp(c, "cmake-build", 11) ||
		    (n == 6 && !strncmp(c, "target", 6)))
			return "a build folder";
	}
	return NULL;
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
	    {"agent", required_argument, NULL, 'a'},
	    {"project", no_argument, NULL, 'j'},
	    {"user", no_argument, NULL, 'u'},
	    {"settings", required_argument, NULL, 's'},
	    {"help", no_argument, NULL, 'h'},
	    {"force", no_argument, NULL, 'f'},
	    {NULL, 0, NULL, 0},
	};
	const char *name = NULL, *settings = NULL, *where;
	char cwd[PATH_MAX], path[PATH_MAX], command[PATH_MAX + 256], msg[PATH_MAX + 128];
	char exe[PATH_MAX];
	int c, user = 0, rc = 0, done = 0, force = 0;
	ssize_t n;
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
		case 'f':
			force = 1;
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
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0) {
		fprintf(stderr, "dcg: cannot name this dcg binary in a hook command\n");
		return 1;
	}
	exe[n] = '\0';
	where = remove ? NULL : transient_dir(exe);
	if (where && !force) {
		fprintf(stderr,
			"dcg: install: %s is in %s: the hook fails closed, so once it is moved or "
			"deleted the agent refuses every call. Install dcg where it stays (make "
			"install), then run that one's install; or pass --force to register this "
			"one anyway\n",
			exe, where);
		return 1;
	}
	if (where)
		fprintf(stderr, "dcg: install: warning: registering %s, in %s (--force)\n", exe,
			where);
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
			if (hook_command(ag->name, exe, command, sizeof(command))) {
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
