/* test_switch.c - the agent cannot switch its guard off: every file through which an
 * agent's hooks or dcg itself can be disabled, bypassed or re-pointed is refused to
 * every kind of write the hook sees, and stays readable.
 *
 * Each switch file exists in a temporary home and project (so that relative, tilde
 * and resolved forms all meet the embedded default policy), and every tool kind of
 * Claude Code's protocol is sent through hook_claude_parse() and hook_decide_call(),
 * as `dcg hook` does. */
#include "dcg_policy.h"
#include "../cli/hook.h"
#include "../cli/agents/agents.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[] = "/tmp/dcg-test-switch.XXXXXX";
static char home[300], proj[400];

/* The switch files: ~ for the home, else relative to the project. */
static const char *const switches[] = {
    "~/.claude/settings.json",
    "~/.claude/settings.local.json",
    ".claude/settings.json",
    ".claude/settings.local.json",
    "~/.codex/hooks.json",
    "~/.codex/config.toml",
    ".codex/hooks.json",
    ".codex/config.toml",
    "~/.gemini/settings.json",
    ".gemini/settings.json",
    "~/.cursor/hooks.json",
    ".cursor/hooks.json",
    "~/.pi/agent/extensions/dcg-damage-control.ts",
    "~/.pi/agent/extensions/other.ts",
    ".pi/extensions/dcg-damage-control.ts",
    ".pi/extensions/new-extension.ts",
    "~/.config/dcg/policy.yaml",
    "~/.local/state/dcg/trusted",
    "~/.local/state/dcg/audit.jsonl",
    ".dcg/policy.yaml",
};
#define N_SWITCHES (sizeof(switches) / sizeof(switches[0]))

static void abs_of(const char *sw, char *out, size_t size)
{
	if (sw[0] == '~')
		snprintf(out, size, "%s%s", home, sw + 1);
	else
		snprintf(out, size, "%s/%s", proj, sw);
}

static void make_file(const char *path)
{
	char dir[PATH_MAX], *s;
	FILE *f;

	snprintf(dir, sizeof(dir), "%s", path);
	for (s = dir + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		mkdir(dir, 0700);
		*s = '/';
	}
	if (strstr(path, "new-extension"))
		return; /* one that does not exist yet: creating it is refused too */
	f = fopen(path, "w");
	cr_assert_not_null(f, "%s", path);
	fputs("{}\n", f);
	fclose(f);
}

static void setup(void)
{
	char real[200], p[PATH_MAX];

	cr_assert_not_null(mkdtemp(tmpdir));
	cr_assert_not_null(realpath(tmpdir, real));
	snprintf(home, sizeof(home), "%s/home", real);
	snprintf(proj, sizeof(proj), "%s/srv/dcg-corpus/proj", home);
	for (size_t i = 0; i < N_SWITCHES; i++) {
		abs_of(switches[i], p, sizeof(p));
		make_file(p);
	}
	snprintf(p, sizeof(p), "%s/notes.txt", proj);
	make_file(p);
}

static void teardown(void)
{
	char cmd[400];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		cr_log_warn("could not remove %s", tmpdir);
}

TestSuite(switches, .init = setup, .fini = teardown, .timeout = 60);

static struct pol_policy *policy(void)
{
	struct pol_policy *p = pol_new(0);

	cr_assert_not_null(p);
	cr_assert_eq(pol_set_home(p, home), 0);
	cr_assert_eq(pol_set_root(p, proj), 0);
	cr_assert_eq(pol_load_embedded(p), 0);
	return p;
}

/* One way to touch a file: a Claude Code tool call, {P} the path as the agent
 * writes it (~/..., relative, or absolute), {C} the working directory. */
struct form {
	const char *name;
	const char *json; /* with {P} and {C} */
	int write;	  /* 1: must be refused; 0: a read, must pass */
};

#define BASH(cmd) \
	"{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"" cmd "\"},\"cwd\":\"{C}\"}"

static const struct form forms[] = {
    {"Write",
     "{\"tool_name\":\"Write\",\"tool_input\":{\"file_path\":\"{P}\",\"content\":"
     "\"{\\\"disableAllHooks\\\":true}\"},\"cwd\":\"{C}\"}",
     1},
    {"Edit",
     "{\"tool_name\":\"Edit\",\"tool_input\":{\"file_path\":\"{P}\",\"old_string\":"
     "\"{}\",\"new_string\":\"{\\\"disableAllHooks\\\":true}\"},\"cwd\":\"{C}\"}",
     1},
    {"MultiEdit",
     "{\"tool_name\":\"MultiEdit\",\"tool_input\":{\"file_path\":\"{P}\","
     "\"edits\":[{\"old_string\":\"{}\",\"new_string\":\"{}\"}]},\"cwd\":\"{C}\"}",
     1},
    {"redirect", BASH("echo '{\\\"disableAllHooks\\\":true}' > {P}"), 1},
    {"append", BASH("echo x >> {P}"), 1},
    {"tee", BASH("echo '{}' | tee {P}"), 1},
    {"sed -i", BASH("sed -i s/a/b/ {P}"), 1},
    {"jq and mv", BASH("jq '.disableAllHooks=true' {P} > /tmp/s.json && mv /tmp/s.json {P}"), 1},
    {"cp", BASH("cp notes.txt {P}"), 1},
    {"rm", BASH("rm {P}"), 1},
    {"mv away", BASH("mv {P} {P}.bak"), 1},
    {"truncate", BASH("truncate -s 0 {P}"), 1},
    {"ln -sf", BASH("ln -sf /dev/null {P}"), 1},
    {"python3 -c", BASH("python3 -c \\\"open('{P}', 'w').write('{}')\\\""), 1},
    {"Read", "{\"tool_name\":\"Read\",\"tool_input\":{\"file_path\":\"{P}\"},\"cwd\":\"{C}\"}", 0},
    {"cat", BASH("cat {P}"), 0},
    {"jq read", BASH("jq . {P}"), 0},
    {"grep", BASH("grep -n hook {P}"), 0},
    {"python3 read", BASH("python3 -c \\\"print(open('{P}').read())\\\""), 0},
};
#define N_FORMS (sizeof(forms) / sizeof(forms[0]))

/* tmpl with {P} replaced by path and {C} by cwd. */
static void fill(const char *tmpl, const char *path, const char *cwd, char *out, size_t size)
{
	size_t o = 0;

	for (const char *t = tmpl; *t && o + 1 < size; t++) {
		const char *v = !strncmp(t, "{P}", 3) ? path : !strncmp(t, "{C}", 3) ? cwd : NULL;

		if (!v) {
			out[o++] = *t;
			continue;
		}
		for (; *v && o + 1 < size; v++)
			out[o++] = *v;
		t += 2;
	}
	out[o] = '\0';
}

static enum pol_decision decide(const struct pol_policy *p, const char *json, const char **rule)
{
	struct hook_call call;
	struct pol_result r;
	void *st = NULL;
	enum pol_decision d;

	cr_assert_eq(hook_claude_parse(json, strlen(json), &call, &st), 0, "%s", json);
	d = hook_decide_call(p, &call, 0, &r);
	*rule = r.rule_id;
	pol_result_release(&r);
	hook_claude_release(st);
	hook_call_release(&call);
	return d;
}

Test(switches, every_switch_file_is_refused_to_every_write_and_readable)
{
	struct pol_policy *p = policy();
	char json[4096], path[PATH_MAX];
	int bad = 0, total = 0;

	for (size_t i = 0; i < N_SWITCHES; i++) {
		/* as written: ~/x, x relative to the project, and the absolute path */
		const char *ways[3] = {switches[i], NULL, path};

		abs_of(switches[i], path, sizeof(path));
		ways[1] = switches[i][0] == '~' ? NULL : switches[i];
		for (size_t w = 0; w < 3; w++) {
			if (!ways[w] || (w == 0 && switches[i][0] != '~'))
				continue;
			for (size_t f = 0; f < N_FORMS; f++) {
				const char *rule = NULL;
				enum pol_decision d;

				fill(forms[f].json, ways[w], proj, json, sizeof(json));
				d = decide(p, json, &rule);
				total++;
				if ((d == POL_DENY) != forms[f].write) {
					cr_log_error("%s of %s: %s (%s)", forms[f].name, ways[w],
						     pol_decision_name(d), rule ? rule : "-");
					bad++;
				}
			}
		}
	}
	cr_assert_eq(bad, 0, "%d of %d calls decided otherwise", bad, total);
	pol_free(p);
}

Test(switches, the_agent_cannot_run_the_commands_that_loosen_dcg)
{
	struct pol_policy *p = policy();
	static const char *const cmds[] = {
	    "dcg allow core.git.reset_hard -r ok",
	    "dcg trust",
	    "dcg untrust",
	    "dcg trust .dcg/policy.yaml",
	    "dcg uninstall --agent all",
	    "dcg install --agent claude --force",
	};
	char json[1024];

	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		const char *rule = NULL;

		fill(BASH("{P}"), cmds[i], proj, json, sizeof(json));
		cr_expect_eq(decide(p, json, &rule), POL_DENY, "%s", cmds[i]);
		cr_expect_str_eq(rule ? rule : "", "system.dcg_self_change", "%s", cmds[i]);
	}
	pol_free(p);
}

/* The control: the same forms on an ordinary project file all pass, so the table
 * above refuses because of the files, not because of the forms. */
Test(switches, an_ordinary_file_takes_every_form)
{
	struct pol_policy *p = policy();
	char json[4096];

	for (size_t f = 0; f < N_FORMS; f++) {
		const char *rule = NULL;

		fill(forms[f].json, "notes.txt", proj, json, sizeof(json));
		cr_expect_eq(decide(p, json, &rule), POL_ALLOW, "%s: %s", forms[f].name,
			     rule ? rule : "-");
	}
	pol_free(p);
}
