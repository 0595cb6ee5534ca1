/* registration.c - is dcg's hook registration in an agent's settings sound? For
 * `dcg status` and `dcg doctor` (registration.h).
 *
 * Nothing read from a settings file is ever run as it is written: a project's
 * settings arrive with every cloned repository. The registered binary is run only as
 * `BIN check CMD`, only when it is a regular executable file, and for a project's
 * settings only when it is this very dcg (a cloned repository could name its own
 * program); the fail-closed test runs the command dcg install would write, built
 * here, never the registered text. */
#include "registration.h"

#include "agents/agents.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SETTINGS_MAX  (16 * 1024 * 1024)
#define PROBE_TIMEOUT 10 /* seconds a probe of the binary may take */

static void add_problem(struct reg_report *r, const char *fix, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void add_problem(struct reg_report *r, const char *fix, const char *fmt, ...)
{
	va_list ap;

	if (r->n_problems >= REG_MAX_PROBLEMS)
		return;
	va_start(ap, fmt);
	vsnprintf(r->problems[r->n_problems].what, sizeof(r->problems[0].what), fmt, ap);
	va_end(ap);
	snprintf(r->problems[r->n_problems].fix, sizeof(r->problems[0].fix), "%s", fix);
	r->n_problems++;
}

/* The dcg install command that repairs this registration. */
static void fix_install(const struct reg_report *r, char *out, size_t size)
{
	snprintf(out, size, "dcg install --agent %s %s", r->agent,
		 r->user ? "--user" : "--project (in the project folder)");
}

/* The first hook command string under node that dcg installed (hook_is_dcg_command);
 * *holder: the object holding it, *entry: the nearest object on the way with a
 * "matcher" (the entry that says which tools it covers), or NULL. */
static const cJSON *find_dcg_command(const cJSON *node, const cJSON **holder, const cJSON **entry)
{
	const cJSON *c, *saved = *entry;

	if (cJSON_IsObject(node)) {
		const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(node, "command");
		if (cJSON_GetObjectItemCaseSensitive(node, "matcher"))
			*entry = node;
		if (cJSON_IsString(cmd) && hook_is_dcg_command(cmd->valuestring)) {
			*holder = node;
			return cmd;
		}
	}
	if (!cJSON_IsObject(node) && !cJSON_IsArray(node))
		return NULL;
	cJSON_ArrayForEach(c, node)
	{
		const cJSON *hit = find_dcg_command(c, holder, entry);
		if (hit)
			return hit;
	}
	*entry = saved;
	return NULL;
}

/* The program of a hook command: its first word, unquoted ('...' as dcg writes it). */
static int command_binary(const char *command, char *out, size_t size)
{
	const char *p = command, *end;
	size_t n;

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '\'' || *p == '"') {
		end = strchr(p + 1, *p);
		if (!end)
			return -EINVAL;
		p++;
	} else {
		end = p + strcspn(p, " \t;&|");
	}
	n = (size_t)(end - p);
	if (!n || n >= size)
		return -EINVAL;
	memcpy(out, p, n);
	out[n] = '\0';
	return 0;
}

/* The binary named in pi's extension: the string where the template has its token. */
static int pi_binary(const char *text, char *out, size_t size)
{
	static const char token[] = "@@DCG_BIN@@";
	size_t tlen, o = 0;
	const char *tpl = hook_pi_extension(&tlen), *hit, *p;

	hit = memmem(tpl, tlen, token, sizeof(token) - 1);
	if (!hit || strncmp(text, tpl, (size_t)(hit - tpl)) != 0)
		return -EINVAL;
	for (p = text + (hit - tpl); *p && *p != '"'; p++) {
		if (*p == '\\' && p[1])
			p++;
		if (o + 1 >= size)
			return -ENAMETOOLONG;
		out[o++] = *p;
	}
	out[o] = '\0';
	return *p == '"' && o ? 0 : -EINVAL;
}

/* Looks a bare program name up in $PATH. */
static int resolve_binary(char *bin, size_t size)
{
	const char *path = getenv("PATH");
	char cand[PATH_MAX];

	if (strchr(bin, '/') || !path)
		return 0;
	while (*path) {
		size_t n = strcspn(path, ":");
		if (n &&
		    (size_t)snprintf(cand, sizeof(cand), "%.*s/%s", (int)n, path, bin) <
			sizeof(cand) &&
		    access(cand, X_OK) == 0) {
			snprintf(bin, size, "%s", cand);
			return 0;
		}
		path += n + (path[n] == ':');
	}
	return -ENOENT;
}

/* Runs argv with stdin, stdout and stderr on /dev/null (stdin_text: fed on stdin) and
 * returns its exit status, 128+signal, or -1 when it could not run or timed out. */
static int run_quiet(char *const argv[], const char *stdin_text)
{
	int in[2] = {-1, -1}, status, waited = 0;
	pid_t pid, w;

	if (stdin_text && pipe2(in, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		if (stdin_text) {
			close(in[0]);
			close(in[1]);
		}
		return -1;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		if (null < 0)
			_exit(126);
		dup2(stdin_text ? in[0] : null, 0);
		dup2(null, 1);
		dup2(null, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	if (stdin_text) {
		ssize_t n;
		close(in[0]);
		signal(SIGPIPE, SIG_IGN);
		n = write(in[1], stdin_text, strlen(stdin_text));
		(void)n;
		close(in[1]);
	}
	for (;;) {
		w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			return -1;
		if (waited >= PROBE_TIMEOUT * 100) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return -1;
		}
		struct timespec ts = {0, 10 * 1000 * 1000};
		nanosleep(&ts, NULL);
		waited++;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Does the binary decide? `BIN check 'rm -rf /'` must deny (exit 2). */
static void probe_binary(struct reg_report *r)
{
	char fix[REG_TEXT], chk[] = "check", cmd[] = "rm -rf /";
	char *argv[] = {r->binary, chk, cmd, NULL};
	struct stat st;
	int rc;

	fix_install(r, fix, sizeof(fix));
	if (stat(r->binary, &st) < 0) {
		add_problem(r, fix, "its binary %s is missing", r->binary);
		return;
	}
	if (!S_ISREG(st.st_mode) || access(r->binary, X_OK) < 0) {
		add_problem(r, fix, "its binary %s is not an executable file", r->binary);
		return;
	}
	if (!r->user && !reg_same_file(r->binary, "/proc/self/exe")) {
		r->answers = -1; /* not run: named by a project file */
		return;
	}
	rc = run_quiet(argv, NULL);
	if (rc != 2)
		add_problem(r, fix,
			    rc < 0 ? "its binary %s does not answer (no decision within %d s)"
				   : "its binary %s does not decide (`check 'rm -rf /'` exited %d, "
				     "not 2)",
			    r->binary, rc < 0 ? PROBE_TIMEOUT : rc);
	else
		r->answers = 1;
}

/* Would dcg install change this file? Installs with the registered command into a
 * copy in a temporary folder and compares. 1: it would, 0: it would not, -1: unknown. */
static int install_changes(const struct hook_agent *ag, const char *text, size_t len,
			   const char *command)
{
	char dir[] = "/tmp/dcg-doctor-XXXXXX", path[PATH_MAX], msg[PATH_MAX + 128], *after = NULL;
	size_t alen;
	int rc = -1;

	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/settings", dir);
	if (hook_write_atomic(path, text, len, 0600) == 0 &&
	    ag->install(path, command, msg, sizeof(msg)) == 0 &&
	    hook_read_file(path, SETTINGS_MAX, &after, &alen) == 0)
		rc = alen != len || memcmp(after, text, len) != 0;
	free(after);
	unlink(path);
	rmdir(dir);
	return rc;
}

/* Does the command dcg install writes for binary fail closed, i.e. refuse (exit 2)
 * when the binary is gone? Runs that command, built here, with the binary replaced by
 * a path that does not exist. 1 yes, 0 no, -1 unknown. */
static int install_fails_closed(const char *agent)
{
	char cmd[PATH_MAX + 256], sh[] = "/bin/sh", c[] = "-c";
	char *argv[] = {sh, c, cmd, NULL};
	int rc;

	if (hook_command_for("/nonexistent/dcg-doctor-probe/dcg", agent, cmd, sizeof(cmd)))
		return -1;
	rc = run_quiet(argv, "{}");
	return rc == 2 ? 1 : rc < 0 ? -1 : 0;
}

static void inspect_json(const struct hook_agent *ag, struct reg_report *r, const char *text,
			 size_t len)
{
	char fix[REG_TEXT], want[PATH_MAX + 256];
	const cJSON *holder = NULL, *entry = NULL, *cmd;
	cJSON *root = cJSON_Parse(text);
	int changes;

	fix_install(r, fix, sizeof(fix));
	if (!cJSON_IsObject(root)) {
		r->registered = strstr(text, " hook") && strstr(text, "dcg");
		add_problem(r, fix, "%s is not a JSON object: %s cannot read it", r->path,
			    ag->name);
		cJSON_Delete(root);
		return;
	}
	cmd = find_dcg_command(root, &holder, &entry);
	if (!cmd) {
		cJSON_Delete(root);
		return;
	}
	r->registered = 1;
	snprintf(r->command, sizeof(r->command), "%s", cmd->valuestring);
	if (command_binary(cmd->valuestring, r->binary, sizeof(r->binary)) ||
	    resolve_binary(r->binary, sizeof(r->binary))) {
		add_problem(r, fix, "its hook command names no binary dcg can find: %s",
			    cmd->valuestring);
	} else {
		probe_binary(r);
		if (!hook_command_for(r->binary, ag->name, want, sizeof(want)) &&
		    strcmp(want, cmd->valuestring) != 0) {
			int closed = install_fails_closed(ag->name);
			add_problem(r, fix,
				    "its hook command is not the one dcg install writes%s: %s",
				    closed == 1 ? " (which refuses every call when the binary "
						  "is gone: this one does not fail closed)"
						: "",
				    cmd->valuestring);
		}
	}
	changes = install_changes(ag, text, len, cmd->valuestring);
	if (changes == 1) {
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(entry, "matcher");
		add_problem(r, fix,
			    "its entry is not what dcg install writes: malformed, or not covering "
			    "every tool dcg checks%s%s%s",
			    cJSON_IsString(m) ? " (matcher \"" : "",
			    cJSON_IsString(m) ? m->valuestring : "",
			    cJSON_IsString(m) ? "\")" : "");
	}
	cJSON_Delete(root);
}

static void inspect_pi(struct reg_report *r, const char *text)
{
	char fix[REG_TEXT], *want;

	fix_install(r, fix, sizeof(fix));
	if (!strstr(text, "dcg-damage-control: the pi extension of dcg"))
		return; /* someone else's file of that name */
	r->registered = 1;
	if (pi_binary(text, r->binary, sizeof(r->binary))) {
		add_problem(r, fix, "the extension %s does not name a dcg binary", r->path);
		return;
	}
	snprintf(r->command, sizeof(r->command), "%s hook --agent pi", r->binary);
	probe_binary(r);
	want = hook_pi_extension_for(r->binary);
	if (want && strcmp(want, text) != 0)
		add_problem(r, fix,
			    "the extension %s is not the one this dcg installs (edited, "
			    "or from another version)",
			    r->path);
	free(want);
}

void reg_inspect(const struct hook_agent *ag, int user, const char *path, struct reg_report *r)
{
	char *text = NULL, fix[REG_TEXT];
	size_t len;
	int err;

	memset(r, 0, sizeof(*r));
	r->agent = ag->name;
	r->user = user;
	snprintf(r->path, sizeof(r->path), "%s", path);
	err = hook_read_file(path, SETTINGS_MAX, &text, &len);
	if (err == -ENOENT)
		return;
	r->exists = 1;
	if (err) {
		fix_install(r, fix, sizeof(fix));
		add_problem(r, fix, "cannot read %s: %s", path, strerror(-err));
		return;
	}
	if (!strcmp(ag->name, "pi"))
		inspect_pi(r, text);
	else
		inspect_json(ag, r, text, len);
	free(text);
}

int reg_same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	if (!strcmp(a, b))
		return 1;
	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

size_t reg_inspect_all(const char *cwd, struct reg_report *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < hook_agent_count(); i++) {
		const struct hook_agent *ag = hook_agent_get(i);
		for (int user = 1; user >= 0 && n < max; user--) {
			char path[PATH_MAX];
			size_t k;

			if (ag->settings_path(user, cwd, path, sizeof(path)))
				continue;
			for (k = 0; k < n; k++)
				if (out[k].agent == ag->name && reg_same_file(out[k].path, path))
					break;
			if (k < n)
				continue; /* the project is $HOME: one file, counted once */
			reg_inspect(ag, user, path, &out[n++]);
		}
	}
	return n;
}
