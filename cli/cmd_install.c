/* cmd_install.c - `dcg install|uninstall --agent NAME`: dcg's hook in an agent's
 * settings, merged in and taken out without touching anything else. */
#include "hook.h"

#include "agents/agents.h"

#include "commands.h"
#include "registration.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Claude Code's managed settings on Linux: root-owned, above every user and project
 * file, so a user cannot take dcg's hook out. $DCG_CLAUDE_MANAGED_SETTINGS moves it
 * (tests). */
#define CLAUDE_MANAGED_SETTINGS "/etc/claude-code/managed-settings.json"

static const char install_usage[] =
    "usage: dcg install --agent claude|codex|gemini|cursor|pi|all [--project | --user]\n"
    "                   [--settings FILE]\n"
    "       dcg install --agent claude --shell-prefix [--project | --user]\n"
    "       dcg install --agent claude --managed   (as root)\n"
    "       dcg uninstall --agent claude|codex|gemini|cursor|pi|all [--project | --user]\n"
    "                   [--settings FILE] [--managed]\n"
    "\n"
    "install registers `dcg hook` as the agent's pre-tool hook (Claude Code: for the\n"
    "Bash, Read, Write, Edit, MultiEdit, NotebookEdit, Glob, Grep and LS tools), merged\n"
    "into the settings file; running it again changes nothing. uninstall removes only\n"
    "what install added. --agent all: every agent whose config folder (.claude,\n"
    ".codex, .gemini, .cursor, .pi) exists here (--project) or in ~ (--user).\n"
    "  --project  the project's settings (Claude Code: .claude/settings.json here; default)\n"
    "  --user     the user's settings (Claude Code: ~/.claude/settings.json)\n"
    "  --managed  Claude Code's managed settings (" CLAUDE_MANAGED_SETTINGS "),\n"
    "             which users cannot override: for a team or a machine\n"
    "  --force    register this binary even from a temporary or build folder\n"
    "  --shell-prefix  Claude Code only: also run every Bash tool command under dcg run\n"
    "             (env.CLAUDE_CODE_SHELL_PREFIX = 'DCG --shell-prefix'); uninstall\n"
    "             removes it\n"
    "--agent all says what it did for each agent and fails when it did nothing.\n"
    "uninstall deletes a settings file that held nothing but dcg's entry.\n"
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

/* The command line the agent runs for the binary exe, quoted for a shell, failing
 * closed (registration.h). */
int hook_command_for(const char *exe, const char *agent, char *out, size_t size)
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

/* What an install followed by an uninstall leaves in an empty file for agent ag (e.g.
 * "{}" or {"version": 1}), parsed; NULL when unknown. */
static cJSON *install_residue(const struct hook_agent *ag, const char *command)
{
	char dir[] = "/tmp/dcg-residue-XXXXXX", path[PATH_MAX], msg[PATH_MAX + 128], *text = NULL;
	cJSON *res = NULL;
	size_t len;

	if (!mkdtemp(dir))
		return NULL;
	snprintf(path, sizeof(path), "%s/settings.json", dir);
	if (ag->install(path, command, msg, sizeof(msg)) == 0 &&
	    ag->uninstall(path, msg, sizeof(msg)) == 0 &&
	    hook_read_file(path, 16 * 1024 * 1024, &text, &len) == 0)
		res = cJSON_Parse(text);
	free(text);
	unlink(path);
	rmdir(dir);
	return res;
}

/* After an uninstall: a settings file that now holds only what dcg's install put
 * there (nothing of anyone else's) is deleted, so that uninstall leaves no trace. */
static void remove_if_dcg_alone(const struct hook_agent *ag, const char *path, const char *command)
{
	char *text = NULL;
	size_t len;
	cJSON *have, *residue;

	if (hook_read_file(path, 16 * 1024 * 1024, &text, &len))
		return;
	have = cJSON_Parse(text);
	free(text);
	if (!cJSON_IsObject(have)) {
		cJSON_Delete(have);
		return;
	}
	residue = install_residue(ag, command);
	if (residue && (have->child == NULL || cJSON_Compare(have, residue, 1)) &&
	    unlink(path) == 0)
		printf("dcg: %s held nothing else: removed it\n", path);
	cJSON_Delete(residue);
	cJSON_Delete(have);
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

struct install_opts {
	const char *name, *settings;
	int user, managed, remove, force, shell_prefix;
};

/* Claude Code's shell prefix: set to "EXE --shell-prefix" (install --shell-prefix), or
 * removed when it is dcg's (uninstall). Claude Code splits a prefix at its last " -",
 * so EXE itself must not hold one. Returns 0 or 1 (said on stderr). */
static int claude_shell_prefix(const char *path, const char *exe, int remove)
{
	char value[PATH_MAX + 32], msg[PATH_MAX + 256];
	int rc;

	if (!remove && strstr(exe, " -")) {
		fprintf(stderr,
			"dcg: %s holds \" -\", which Claude Code's shell prefix cannot "
			"name\n",
			exe);
		return 1;
	}
	snprintf(value, sizeof(value), "%s --shell-prefix", exe);
	rc = hook_claude_shell_prefix(path, remove ? NULL : value, msg, sizeof(msg));
	if (rc < 0 || (rc == 0 || !remove))
		fprintf(rc < 0 ? stderr : stdout, "dcg: %s\n", msg);
	return rc < 0;
}

static int parse_install(int argc, char **argv, struct install_opts *o)
{
	static const struct cli_option opts[] = {
	    {"agent", required_argument, 'a'},
	    {"project", no_argument, 'j'},
	    {"user", no_argument, 'u'},
	    {"settings", required_argument, 's'},
	    {"managed", no_argument, 'm'},
	    {"force", no_argument, 'f'},
	    {"help", no_argument, 'h'},
	    {"shell-prefix", no_argument, 'p'},
	    {"", 0, 0},
	};
	int c;

	optind = 1;
	while ((c = cli_getopt(argc, argv, "h", opts)) != -1) {
		switch (c) {
		case 'a':
			o->name = optarg;
			break;
		case 'j':
			o->user = 0;
			break;
		case 'u':
			o->user = 1;
			break;
		case 's':
			o->settings = optarg;
			break;
		case 'm':
			o->managed = 1;
			break;
		case 'f':
			o->force = 1;
			break;
		case 'p':
			o->shell_prefix = 1;
			break;
		case 'h':
			fputs(install_usage, stdout);
			return 1;
		default:
			fputs(install_usage, stderr);
			return -1;
		}
	}
	if (!o->name || optind != argc) {
		if (optind != argc)
			fprintf(stderr, "dcg: unexpected '%s'\n", argv[optind]);
		fputs(install_usage, stderr);
		return -1;
	}
	if (o->shell_prefix && strcmp(o->name, "claude") != 0) {
		fprintf(stderr, "dcg: --shell-prefix is for Claude Code only (--agent claude)\n");
		return -1;
	}
	if (o->managed && strcmp(o->name, "claude") != 0) {
		fprintf(stderr, "dcg: --managed is for Claude Code only (--agent claude)\n");
		return -1;
	}
	if (o->managed && !o->settings) {
		const char *env = getenv("DCG_CLAUDE_MANAGED_SETTINGS");
		o->settings = env && *env ? env : CLAUDE_MANAGED_SETTINGS;
	}
	return 0;
}

static int run(int argc, char **argv, int remove)
{
	struct install_opts o = {NULL, NULL, 0, 0, remove, 0, 0};
	char cwd[PATH_MAX], path[PATH_MAX], command[PATH_MAX + 256], msg[PATH_MAX + 128];
	char done_list[256] = "", skipped[256] = "", exe[PATH_MAX];
	int rc = 0, known = 0, changed = 0, all;
	const char *where;
	ssize_t n;
	size_t i;

	rc = parse_install(argc, argv, &o);
	if (rc)
		return rc > 0 ? 0 : 1;
	all = !strcmp(o.name, "all");
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
	if (where && !o.force) {
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
		int err;
		if (!all && strcmp(o.name, ag->name) != 0)
			continue;
		known = 1;
		if (!ag->install) {
			fprintf(stderr, "dcg: %s: not supported yet for the %s agent\n",
				remove ? "uninstall" : "install", ag->name);
			if (!all)
				rc = 1;
			continue;
		}
		if (o.settings) {
			snprintf(path, sizeof(path), "%s", o.settings);
		} else if (ag->settings_path(o.user, cwd, path, sizeof(path))) {
			fprintf(stderr, "dcg: cannot locate the %s settings of %s\n",
				o.user ? "user" : "project", ag->name);
			rc = 1;
			continue;
		}
		if (!o.settings && all && !config_dir_exists(path)) {
			printf("dcg: %s: no config folder for %s, skipped\n",
			       remove ? "uninstall" : "install", ag->name);
			snprintf(skipped + strlen(skipped), sizeof(skipped) - strlen(skipped),
				 "%s%s", skipped[0] ? ", " : "", ag->name);
			continue;
		}
		if (hook_command_for(exe, ag->name, command, sizeof(command))) {
			fprintf(stderr, "dcg: cannot name this dcg binary in a hook command\n");
			rc = 1;
			continue;
		}
		err = remove ? ag->uninstall(path, msg, sizeof(msg))
			     : ag->install(path, command, msg, sizeof(msg));
		if (err)
			rc = 1;
		fprintf(err ? stderr : stdout, "dcg: %s\n", msg);
		if (!err) {
			changed = 1;
			snprintf(done_list + strlen(done_list),
				 sizeof(done_list) - strlen(done_list), "%s%s",
				 done_list[0] ? ", " : "", ag->name);
		}
		if (!err && !strcmp(ag->name, "claude") && (remove || o.shell_prefix))
			err = claude_shell_prefix(path, exe, remove);
		if (err)
			rc = 1;
		if (!err && remove)
			remove_if_dcg_alone(ag, path, command);
	}
	if (!known) {
		fprintf(stderr,
			"dcg: unknown agent '%s' (claude, codex, gemini, cursor, pi, all)\n",
			o.name);
		return 1;
	}
	if (all && !changed) {
		fprintf(stderr,
			"dcg: %s --agent all: no agent is set up %s (no .claude, .codex, .gemini, "
			".cursor or .pi folder): nothing %s. Name one: dcg %s --agent claude%s\n",
			remove ? "uninstall" : "install", o.user ? "in your home" : "here",
			remove ? "removed" : "installed", remove ? "uninstall" : "install",
			o.user ? " --user" : "");
		return 1;
	}
	if (all)
		printf("dcg: %s: %s%s%s%s\n", remove ? "uninstalled" : "installed", done_list,
		       skipped[0] ? "; skipped (no config folder): " : "", skipped,
		       rc ? "; some failed (above)" : "");
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
