/* cmd_status.c - `dcg status` (what is active, what is registered, the last violation)
 * and `dcg doctor` (is every part sound, and how to fix what is not). */
#include "hook.h"

#include "commands.h"
#include "launch.h"
#include "registration.h"
#include "../sandbox/sandbox.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_REGS 16

static const char status_usage[] =
    "usage: dcg status [--json] [--policy FILE]\n"
    "\n"
    "The active policy files, the rule count, problems in the files, dcg's hook\n"
    "registration for every agent (its user and project settings, each file once):\n"
    "installed, not installed, or BROKEN (binary missing or not answering, entry\n"
    "malformed or not covering the tools dcg checks, not failing closed) with the\n"
    "command that fixes it; and the last violation in the audit log.\n";

static const char doctor_usage[] =
    "usage: dcg doctor [--json] [--policy FILE]\n"
    "\n"
    "Checks that dcg protects as it should: for every agent, whether the hook is\n"
    "registered and, if so, its entry well formed and covering the tools dcg checks,\n"
    "its binary present and answering, and its command failing closed; the policy\n"
    "files parse; the preload library loads; the kernel has what dcg sandbox needs\n"
    "(seccomp user notification); the audit log is writable.\n"
    "Exit status 0 when everything is sound, 1 otherwise, with the fix for each\n"
    "problem.\n";

/* The small commands' options; no operand. 0 to go on, 1 after --help, -1 on a usage
 * error. */
static int parse_opts(int argc, char **argv, const char **policy, int *json, const char *usage)
{
	int a = cmd_small_opts(argc, argv, policy, json, usage);

	if (a == -2)
		return 1;
	if (a < 0)
		return -1;
	if (a < argc) {
		fprintf(stderr, "%s: unexpected '%s'\n", argv[0], argv[a]);
		fputs(usage, stderr);
		return -1;
	}
	return 0;
}

/* The last line of the audit log that records a deny, ask or warn, into out. Reads
 * only the file's tail. Returns 1 when found. */
static int last_violation(const char *log, char *out, size_t size)
{
	char buf[65536];
	struct stat st;
	off_t start;
	ssize_t n;
	int fd, found = 0;
	char *p, *end;

	fd = open(log, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return 0;
	}
	start = st.st_size > (off_t)sizeof(buf) - 1 ? st.st_size - (off_t)sizeof(buf) + 1 : 0;
	n = pread(fd, buf, sizeof(buf) - 1, start);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	end = buf + n;
	for (p = buf; p < end;) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		cJSON *o, *d;
		if (!nl)
			break;
		*nl = '\0';
		o = cJSON_Parse(p);
		d = cJSON_GetObjectItemCaseSensitive(o, "decision");
		if (cJSON_IsString(d) &&
		    (!strcmp(d->valuestring, "deny") || !strcmp(d->valuestring, "ask") ||
		     !strcmp(d->valuestring, "warn"))) {
			const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "time");
			const cJSON *r = cJSON_GetObjectItemCaseSensitive(o, "rule_id");
			const cJSON *tool = cJSON_GetObjectItemCaseSensitive(o, "tool");
			const cJSON *in = cJSON_GetObjectItemCaseSensitive(o, "input");
			snprintf(out, size, "%s %s %s (%s): %.120s",
				 cJSON_IsString(t) ? t->valuestring : "?", d->valuestring,
				 cJSON_IsString(r) ? r->valuestring : "?",
				 cJSON_IsString(tool) ? tool->valuestring : "?",
				 cJSON_IsString(in) ? in->valuestring : "");
			found = 1;
		}
		cJSON_Delete(o);
		p = nl + 1;
	}
	return found;
}

static const char *reg_state(const struct reg_report *r)
{
	return r->n_problems ? "broken" : r->registered ? "installed" : "not installed";
}

static cJSON *reg_json(const struct reg_report *r)
{
	cJSON *o = cJSON_CreateObject(), *probs;

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "agent", r->agent);
	cJSON_AddStringToObject(o, "scope", r->user ? "user" : "project");
	cJSON_AddStringToObject(o, "settings", r->path);
	cJSON_AddStringToObject(o, "state", reg_state(r));
	if (r->registered) {
		cJSON_AddStringToObject(o, "command", r->command);
		cJSON_AddStringToObject(o, "binary", r->binary);
	}
	probs = cJSON_AddArrayToObject(o, "problems");
	for (size_t i = 0; probs && i < r->n_problems; i++) {
		cJSON *p = cJSON_CreateObject();
		if (!p)
			break;
		cJSON_AddStringToObject(p, "problem", r->problems[i].what);
		cJSON_AddStringToObject(p, "fix", r->problems[i].fix);
		cJSON_AddItemToArray(probs, p);
	}
	return o;
}

static void print_regs(const struct reg_report *regs, size_t n)
{
	char missing[256] = "";

	for (size_t i = 0; i < n; i++) {
		const struct reg_report *r = &regs[i];
		if (r->n_problems) {
			printf("hook:        BROKEN for %s in %s: %s\n", r->agent, r->path,
			       r->problems[0].what);
			for (size_t k = 1; k < r->n_problems; k++)
				printf("             and %s\n", r->problems[k].what);
			printf("             fix: %s\n", r->problems[0].fix);
		} else if (r->registered) {
			printf("hook:        installed for %s in %s (%s)\n", r->agent, r->path,
			       r->binary);
		}
	}
	for (size_t i = 0; i < hook_agent_count(); i++) {
		const char *name = hook_agent_get(i)->name;
		int any = 0;
		for (size_t k = 0; k < n; k++)
			any |= regs[k].agent == name && (regs[k].registered || regs[k].n_problems);
		if (!any)
			snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing),
				 "%s%s", missing[0] ? ", " : "", name);
	}
	if (missing[0])
		printf("hook:        not installed for %s (dcg install --agent NAME)\n", missing);
}

int cmd_status(int argc, char **argv)
{
	static struct reg_report regs[MAX_REGS];
	const char *policy;
	struct pol_policy *pol;
	char log[PATH_MAX], last[512], cwd[PATH_MAX];
	size_t i, n, nregs = 0;
	int rc, json, found = 0;

	rc = parse_opts(argc, argv, &policy, &json, status_usage);
	if (rc)
		return rc > 0 ? 0 : 1;
	pol = hook_policy_open(policy, NULL, stderr);
	if (!pol) {
		fprintf(stderr, "dcg: out of memory\n");
		return 1;
	}
	if (getcwd(cwd, sizeof(cwd)))
		nregs = reg_inspect_all(cwd, regs, MAX_REGS);
	if (pol_log_path(log, sizeof(log)) == 0)
		found = last_violation(log, last, sizeof(last));
	else
		log[0] = '\0';
	n = pol_diag_count(pol);
	if (json) {
		cJSON *o = cJSON_CreateObject(), *files, *hooks;
		char *out;
		cJSON_AddNumberToObject(o, "rules", (double)pol_rule_count(pol));
		files = cJSON_AddArrayToObject(o, "policy_files");
		for (i = 0; files && i < pol_file_count(pol); i++)
			cJSON_AddItemToArray(files, cJSON_CreateString(pol_file_name(pol, i)));
		cJSON_AddNumberToObject(o, "problems", (double)n);
		cJSON_AddStringToObject(o, "mode",
					pol_observe_mode(pol) == 2   ? "observe"
					: pol_observe_mode(pol) == 1 ? "observe-some"
								     : "enforce");
		hooks = cJSON_AddArrayToObject(o, "hooks");
		for (i = 0; hooks && i < nregs; i++)
			cJSON_AddItemToArray(hooks, reg_json(&regs[i]));
		cJSON_AddStringToObject(o, "audit_log", log);
		if (found)
			cJSON_AddStringToObject(o, "last_violation", last);
		else
			cJSON_AddNullToObject(o, "last_violation");
		out = cJSON_PrintUnformatted(o);
		cJSON_Delete(o);
		if (out)
			printf("%s\n", out);
		free(out);
		pol_free(pol);
		return out ? 0 : 1;
	}
	printf("dcg active: %zu rules\n", pol_rule_count(pol));
	hook_print_observe_note(stdout, pol);
	printf("policy files:\n");
	for (i = 0; i < pol_file_count(pol); i++)
		printf("  %s\n", pol_file_name(pol, i));
	if (n)
		printf("problems:    %zu in the policy files (dcg rules lint); the rest stays "
		       "active\n",
		       n);
	else
		printf("problems:    none\n");
	hook_print_trust_notes(stdout, pol, 0);
	print_regs(regs, nregs);
	if (log[0]) {
		printf("audit log:   %s\n", log);
		printf("last violation: %s\n", found ? last : "none");
	}
	pol_free(pol);
	return 0;
}

/* ---- doctor -------------------------------------------------------------------------- */

struct doctor {
	cJSON *checks; /* --json: the array of checks */
	int json, bad;
};

/* One check: ok, or a problem with its fix. */
static void check(struct doctor *d, const char *what, int ok, const char *detail, const char *fix)
{
	if (!ok)
		d->bad = 1;
	if (d->json) {
		cJSON *o = cJSON_CreateObject();
		if (!o)
			return;
		cJSON_AddStringToObject(o, "check", what);
		cJSON_AddBoolToObject(o, "ok", ok);
		if (detail && detail[0])
			cJSON_AddStringToObject(o, "detail", detail);
		if (!ok && fix && fix[0])
			cJSON_AddStringToObject(o, "fix", fix);
		cJSON_AddItemToArray(d->checks, o);
		return;
	}
	printf("%-4s %s%s%s\n", ok ? "ok" : "FAIL", what, detail && detail[0] ? ": " : "",
	       detail ? detail : "");
	if (!ok && fix && fix[0])
		printf("     fix: %s\n", fix);
}

static void doctor_hooks(struct doctor *d)
{
	static struct reg_report regs[MAX_REGS];
	char cwd[PATH_MAX], what[128], detail[PATH_MAX + 256];
	size_t n;

	if (!getcwd(cwd, sizeof(cwd))) {
		check(d, "hooks", 0, "cannot get the working directory", "");
		return;
	}
	n = reg_inspect_all(cwd, regs, MAX_REGS);
	for (size_t i = 0; i < n; i++) {
		const struct reg_report *r = &regs[i];
		snprintf(what, sizeof(what), "hook %s (%s)", r->agent,
			 r->user ? "user" : "project");
		if (!r->registered && !r->n_problems) {
			if (d->json || r->user) {
				snprintf(detail, sizeof(detail), "not registered in %s", r->path);
				check(d, what, 1, detail, "");
			}
			continue;
		}
		if (!r->n_problems) {
			snprintf(detail, sizeof(detail),
				 r->answers > 0
				     ? "registered in %s, covering the tools dcg checks; "
				       "%s answers"
				     : "registered in %s, covering the tools dcg checks; "
				       "%s is not this dcg, not run from a project file",
				 r->path, r->binary);
			check(d, what, 1, detail, "");
			continue;
		}
		for (size_t k = 0; k < r->n_problems; k++) {
			snprintf(detail, sizeof(detail), "%s: %s", r->path, r->problems[k].what);
			check(d, what, 0, detail, r->problems[k].fix);
		}
	}
}

static void doctor_policy(struct doctor *d, const char *policy)
{
	struct pol_policy *pol = hook_policy_open(policy, NULL, NULL);
	char detail[PATH_MAX + 256];
	size_t n;

	if (!pol) {
		check(d, "policy", 0, "out of memory", "");
		return;
	}
	n = pol_diag_count(pol);
	if (!n) {
		snprintf(detail, sizeof(detail), "%zu files parse, %zu rules active",
			 pol_file_count(pol), pol_rule_count(pol));
		check(d, "policy", 1, detail, "");
	}
	for (size_t i = 0; i < n && i < 10; i++) {
		const struct pol_diag *g = pol_diag_get(pol, i);
		snprintf(detail, sizeof(detail), "%s:%u:%u: %s", g->file[0] ? g->file : "<policy>",
			 g->line, g->col, g->msg);
		check(d, "policy", 0, detail,
		      "edit the file (dcg rules lint FILE); the rest of it and the defaults stay "
		      "active");
	}
	pol_free(pol);
}

/* The policy engine the guard loads from its own folder: without it, every decision
 * the guard cannot settle alone is refused. */
static void doctor_engine(struct doctor *d, const char *lib)
{
	char engine[PATH_MAX + 32], detail[PATH_MAX + 64];
	const char *slash = strrchr(lib, '/');
	int n = slash ? snprintf(engine, sizeof(engine), "%.*s/libdcg-engine.so",
				 (int)(slash - lib), lib)
		      : -1;

	if (n > 0 && (size_t)n < sizeof(engine) && access(engine, R_OK) == 0) {
		snprintf(detail, sizeof(detail), "%s found", engine);
		check(d, "engine", 1, detail, "");
		return;
	}
	check(d, "engine", 0, "libdcg-engine.so not found beside libdcg-preload.so",
	      "reinstall dcg (make install): guarded programs refuse exec and protected paths "
	      "without it");
}

/* The preload loads: `dcg run -- cat /proc/self/maps` must show it mapped. */
static void doctor_preload(struct doctor *d)
{
	char lib[PATH_MAX], exe[PATH_MAX], detail[PATH_MAX + 128], buf[65536];
	char run[] = "run", dd[] = "--", cat[] = "/bin/cat", maps[] = "/proc/self/maps";
	char *argv[] = {exe, run, dd, cat, maps, NULL};
	struct hook_buf out = HOOK_BUF_INIT;
	int p[2], status = -1;
	ssize_t n, len;
	pid_t pid;

	if (launch_find_preload(lib, sizeof(lib))) {
		check(d, "preload", 0, "libdcg-preload.so not found next to dcg nor in ../lib/dcg/",
		      "reinstall dcg (make install), or set DCG_PRELOAD to the library");
		return;
	}
	doctor_engine(d, lib);
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len <= 0 || pipe2(p, O_CLOEXEC) < 0) {
		check(d, "preload", 0, "cannot run dcg run", "");
		return;
	}
	exe[len] = '\0';
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		dup2(null, 0);
		dup2(p[1], 1);
		dup2(null, 2);
		execv(exe, argv);
		_exit(127);
	}
	close(p[1]);
	while (pid > 0 && (n = read(p[0], buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		hook_buf_add(&out, buf, (size_t)n);
	}
	close(p[0]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	if (pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 && out.s &&
	    strstr(out.s, "libdcg-preload.so")) {
		snprintf(detail, sizeof(detail), "%s loads into guarded processes", lib);
		check(d, "preload", 1, detail, "");
	} else {
		snprintf(detail, sizeof(detail), "%s does not load into a guarded process", lib);
		check(d, "preload", 0, detail,
		      "rebuild and reinstall dcg (make && make install); the library must match "
		      "this dcg");
	}
	hook_buf_release(&out);
}

static void doctor_kernel(struct doctor *d)
{
	char msg[512];

	if (sbx_kernel_check(msg, sizeof(msg)) == 0)
		check(d, "sandbox kernel", 1, "seccomp filters with user notification and ADDFD",
		      "");
	else
		check(d, "sandbox kernel", 0, msg,
		      "dcg sandbox needs Linux 5.14 or later with seccomp; dcg run and the hook "
		      "work without it");
}

static void doctor_log(struct doctor *d)
{
	char log[PATH_MAX], dir[PATH_MAX], detail[PATH_MAX + 128], *slash;
	struct stat st;
	int ok;

	if (pol_log_path(log, sizeof(log))) {
		check(d, "audit log", 0, "its path is too long", "set DCG_LOG to a shorter path");
		return;
	}
	if (stat(log, &st) == 0) {
		ok = S_ISREG(st.st_mode) && access(log, W_OK) == 0;
	} else {
		/* It is created at the first refusal: its nearest existing folder must let
		 * dcg create it. */
		snprintf(dir, sizeof(dir), "%s", log);
		do {
			slash = strrchr(dir, '/');
			if (!slash)
				break;
			*slash = '\0';
		} while (dir[0] && stat(dir, &st) != 0);
		ok = S_ISDIR(st.st_mode) && access(dir[0] ? dir : "/", W_OK | X_OK) == 0;
	}
	snprintf(detail, sizeof(detail), "%s %s", log, ok ? "is writable" : "is not writable");
	check(d, "audit log", ok, detail,
	      "make it writable, or point DCG_LOG (or XDG_STATE_HOME) at a writable place");
}

int cmd_doctor(int argc, char **argv)
{
	struct doctor d = {NULL, 0, 0};
	const char *policy;
	int rc;

	rc = parse_opts(argc, argv, &policy, &d.json, doctor_usage);
	if (rc)
		return rc > 0 ? 0 : 1;
	if (d.json && !(d.checks = cJSON_CreateArray())) {
		fprintf(stderr, "dcg: out of memory\n");
		return 1;
	}
	doctor_hooks(&d);
	doctor_policy(&d, policy);
	doctor_preload(&d);
	doctor_kernel(&d);
	doctor_log(&d);
	if (d.json) {
		cJSON *o = cJSON_CreateObject();
		char *out;
		cJSON_AddBoolToObject(o, "ok", !d.bad);
		cJSON_AddItemToObject(o, "checks", d.checks);
		out = cJSON_PrintUnformatted(o);
		cJSON_Delete(o);
		if (out)
			printf("%s\n", out);
		free(out);
	} else {
		printf("%s\n", d.bad ? "dcg doctor: problems found (fixes above)"
				     : "dcg doctor: everything is sound");
	}
	return d.bad ? 1 : 0;
}
