/* test_registration.c - what `dcg status` and `dcg doctor` say about a hook
 * registration (cli/registration.c), for every agent: sound, binary missing, binary
 * not deciding, half-installed (an entry that no longer covers every tool), not a
 * settings file at all. The good registrations are written by the agents' own install
 * functions; the probe runs the dcg of this build (DCG_BUILD, default build). */
#include "../cli/agents/agents.h"
#include "../cli/registration.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[] = "/tmp/dcg-test-reg.XXXXXX";
static char dcg[PATH_MAX];

static void setup(void)
{
	const char *b = getenv("DCG_BUILD");
	char cwd[PATH_MAX - 64];

	cr_assert_not_null(getcwd(cwd, sizeof(cwd)));
	snprintf(dcg, sizeof(dcg), "%s/%s/dcg", cwd, b && b[0] ? b : "build");
	cr_assert_eq(access(dcg, X_OK), 0, "%s is not built", dcg);
	cr_assert_not_null(mkdtemp(tmpdir));
}

static void teardown(void)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		cr_log_warn("cannot remove %s", tmpdir);
}

TestSuite(registration, .init = setup, .fini = teardown, .timeout = 60);

static const char *const json_agents[] = {"claude", "codex", "gemini", "cursor"};

/* Installs agent's registration of binary bin into a fresh settings file; returns it. */
static void install(const char *agent, const char *bin, char *path, size_t size)
{
	const struct hook_agent *ag = hook_agent_find(agent);
	char cmd[PATH_MAX + 64], msg[PATH_MAX + 128];

	cr_assert_not_null(ag);
	snprintf(path, size, "%s/%s-settings.json", tmpdir, agent);
	unlink(path);
	cr_assert_eq(hook_command_for(bin, agent, cmd, sizeof(cmd)), 0);
	cr_assert_eq(ag->install(path, cmd, msg, sizeof(msg)), 0, "%s: %s", agent, msg);
}

static void inspect(const char *agent, const char *path, struct reg_report *r)
{
	reg_inspect(hook_agent_find(agent), 1, path, r);
}

static int has_problem(const struct reg_report *r, const char *words)
{
	for (size_t i = 0; i < r->n_problems; i++)
		if (strstr(r->problems[i].what, words))
			return 1;
	return 0;
}

static void dump(const struct reg_report *r)
{
	for (size_t i = 0; i < r->n_problems; i++)
		cr_log_info("%s: %s (fix: %s)", r->agent, r->problems[i].what, r->problems[i].fix);
}

Test(registration, a_fresh_install_of_every_agent_is_sound)
{
	static struct reg_report r;
	char path[PATH_MAX];

	for (size_t i = 0; i < sizeof(json_agents) / sizeof(json_agents[0]); i++) {
		install(json_agents[i], dcg, path, sizeof(path));
		inspect(json_agents[i], path, &r);
		dump(&r);
		cr_expect(r.exists && r.registered, "%s", json_agents[i]);
		cr_expect_eq(r.n_problems, 0, "%s: %s", json_agents[i],
			     r.n_problems ? r.problems[0].what : "");
		cr_expect_eq(r.answers, 1, "%s", json_agents[i]);
		cr_expect_str_eq(r.binary, dcg);
	}
}

Test(registration, no_file_and_a_file_without_dcg_are_not_registered)
{
	static struct reg_report r;
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/none.json", tmpdir);
	inspect("claude", path, &r);
	cr_expect(!r.exists && !r.registered && !r.n_problems);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("{\"model\": \"opus\", \"hooks\": {\"PreToolUse\": [{\"matcher\": \"Bash\", "
	      "\"hooks\": [{\"type\": \"command\", \"command\": \"my-linter\"}]}]}}\n",
	      f);
	fclose(f);
	inspect("claude", path, &r);
	cr_expect(r.exists && !r.registered && !r.n_problems);
}

Test(registration, a_missing_binary_is_broken_with_the_fix)
{
	static struct reg_report r;
	char path[PATH_MAX], gone[PATH_MAX];

	snprintf(gone, sizeof(gone), "%s/removed/dcg", tmpdir);
	for (size_t i = 0; i < sizeof(json_agents) / sizeof(json_agents[0]); i++) {
		install(json_agents[i], gone, path, sizeof(path));
		inspect(json_agents[i], path, &r);
		cr_expect(r.registered, "%s", json_agents[i]);
		cr_expect(has_problem(&r, "is missing"), "%s", json_agents[i]);
		cr_expect_not_null(strstr(r.problems[0].fix, "dcg install --agent"));
		cr_expect_not_null(strstr(r.problems[0].fix, json_agents[i]));
		cr_expect_not_null(strstr(r.problems[0].fix, "--user"));
	}
}

Test(registration, a_binary_that_does_not_decide_is_broken)
{
	static struct reg_report r;
	char path[PATH_MAX], fake[PATH_MAX];
	FILE *f;

	snprintf(fake, sizeof(fake), "%s/fake/dcg", tmpdir);
	snprintf(path, sizeof(path), "%s/fake", tmpdir);
	cr_assert_eq(mkdir(path, 0755), 0);
	f = fopen(fake, "w");
	cr_assert_not_null(f);
	fputs("#!/bin/sh\nexit 0\n", f); /* allows everything */
	fclose(f);
	cr_assert_eq(chmod(fake, 0755), 0);
	install("claude", fake, path, sizeof(path));
	inspect("claude", path, &r);
	cr_expect(has_problem(&r, "does not decide"), "%s", r.n_problems ? r.problems[0].what : "");
}

/* Half-installed: one of dcg's events or tools taken out of the entry. */
static void cut_coverage(const char *path)
{
	char *text = NULL;
	size_t len;
	cJSON *root, *hooks, *first, *entry;
	FILE *f;

	cr_assert_eq(hook_read_file(path, 1 << 20, &text, &len), 0);
	root = cJSON_Parse(text);
	free(text);
	hooks = cJSON_GetObjectItemCaseSensitive(root, "hooks");
	cr_assert_not_null(hooks);
	first = hooks->child;
	if (cJSON_GetArraySize(hooks) > 1) {
		cJSON_DeleteItemFromObjectCaseSensitive(hooks, first->string);
	} else {
		entry = cJSON_GetArrayItem(first, 0);
		cr_assert(cJSON_GetObjectItemCaseSensitive(entry, "matcher"), "%s", path);
		cJSON_ReplaceItemInObjectCaseSensitive(entry, "matcher",
						       cJSON_CreateString("OnlyThisTool"));
	}
	text = cJSON_Print(root);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
	free(text);
	cJSON_Delete(root);
}

Test(registration, an_entry_not_covering_every_tool_is_broken)
{
	static struct reg_report r;
	char path[PATH_MAX];

	for (size_t i = 0; i < sizeof(json_agents) / sizeof(json_agents[0]); i++) {
		install(json_agents[i], dcg, path, sizeof(path));
		cut_coverage(path);
		inspect(json_agents[i], path, &r);
		cr_expect(r.registered, "%s", json_agents[i]);
		cr_expect(has_problem(&r, "not covering every tool"), "%s: %s", json_agents[i],
			  r.n_problems ? r.problems[0].what : "no problem");
	}
}

Test(registration, a_settings_file_that_is_not_json_is_broken)
{
	static struct reg_report r;
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/bad.json", tmpdir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fprintf(f, "{\"hooks\": {\"PreToolUse\": [{\"command\": \"%s hook\"", dcg);
	fclose(f);
	inspect("claude", path, &r);
	cr_expect(r.registered);
	cr_expect(has_problem(&r, "not a JSON object"));
}

Test(registration, a_hand_written_command_is_not_what_install_writes)
{
	static struct reg_report r;
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/hand.json", tmpdir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fprintf(f,
		"{\"hooks\": {\"PreToolUse\": [{\"matcher\": \"%s\", \"hooks\": [{\"type\": "
		"\"command\", \"command\": \"%s hook\"}]}]}}\n",
		HOOK_CLAUDE_MATCHER, dcg);
	fclose(f);
	inspect("claude", path, &r);
	cr_expect(r.registered);
	cr_expect(has_problem(&r, "not the one dcg install writes"));
	/* dcg install writes a command that refuses the call when dcg cannot run; this
	 * one, as older dcg versions wrote it, lets the call through */
	cr_expect(has_problem(&r, "does not fail closed"), "%s",
		  r.n_problems ? r.problems[0].what : "no problem");
}

Test(registration, pi_extension_sound_then_edited)
{
	static struct reg_report r;
	char path[PATH_MAX], *ext = hook_pi_extension_for(dcg);
	FILE *f;

	cr_assert_not_null(ext);
	snprintf(path, sizeof(path), "%s/dcg-damage-control.ts", tmpdir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(ext, f);
	fclose(f);
	inspect("pi", path, &r);
	dump(&r);
	cr_expect(r.registered);
	cr_expect_eq(r.n_problems, 0);
	cr_expect_str_eq(r.binary, dcg);
	f = fopen(path, "a");
	cr_assert_not_null(f);
	fputs("\n// edited\n", f);
	fclose(f);
	inspect("pi", path, &r);
	cr_expect(has_problem(&r, "not the one this dcg installs"));
	free(ext);
}

Test(registration, the_project_in_home_is_inspected_once)
{
	static struct reg_report regs[16];
	char home[PATH_MAX - 64], dir[PATH_MAX], cmd[PATH_MAX + 64], msg[PATH_MAX + 128];
	size_t n;

	snprintf(home, sizeof(home), "%s/home", tmpdir);
	snprintf(dir, sizeof(dir), "%s/.claude", home);
	cr_assert_eq(mkdir(home, 0755), 0);
	cr_assert_eq(mkdir(dir, 0755), 0);
	setenv("HOME", home, 1);
	snprintf(dir, sizeof(dir), "%s/.claude/settings.json", home);
	cr_assert_eq(hook_command_for(dcg, "claude", cmd, sizeof(cmd)), 0);
	cr_assert_eq(hook_agent_find("claude")->install(dir, cmd, msg, sizeof(msg)), 0);
	n = reg_inspect_all(home, regs, 16);
	/* the four whose user and project files have the same name there: once each */
	for (size_t a = 0; a < sizeof(json_agents) / sizeof(json_agents[0]); a++) {
		size_t seen = 0;
		for (size_t i = 0; i < n; i++)
			seen += !strcmp(regs[i].agent, json_agents[a]);
		cr_expect_eq(seen, 1, "%s inspected %zu times", json_agents[a], seen);
	}
	cr_expect(regs[0].registered && !strcmp(regs[0].agent, "claude"));
}

/* Every file an agent's hook is registered in (each agent's user and project settings,
 * as dcg install writes them) is one of the guard's own files: the policy a session runs
 * with refuses writing, truncating, deleting or renaming it to anybody but the agent
 * itself (owner :agent). An agent added to the table is checked here. */
Test(registration, every_agents_hook_registration_is_read_only)
{
	const char *home = "/nonexistent-dcg-test/home", *proj = "/nonexistent-dcg-test/proj";
	struct pol_env env = {
	    .home = home, .cwd = proj, .no_user = 1, .no_system = 1, .no_project = 1};
	static const enum pol_op ops[] = {POL_OP_WRITE, POL_OP_TRUNCATE, POL_OP_DELETE,
					  POL_OP_RENAME_FROM};
	char *old_home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	struct pol_policy *p = pol_new(0);
	size_t checked = 0;

	cr_assert_not_null(p);
	cr_assert_eq(setenv("HOME", home, 1), 0);
	pol_load_layers(p, &env);
	for (size_t i = 0; i < hook_agent_count(); i++) {
		const struct hook_agent *ag = hook_agent_get(i);

		for (int user = 0; ag->settings_path && user < 2; user++) {
			char path[PATH_MAX];
			struct pol_result r;

			if (ag->settings_path(user, proj, path, sizeof(path)) != 0)
				continue;
			for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++) {
				pol_check_path(p, path, ops[o], 0, NULL, &r);
				cr_expect_eq(r.decision, POL_DENY, "%s (%s): %s", path, ag->name,
					     pol_op_name(ops[o]));
				pol_result_release(&r);
			}
			checked++;
		}
	}
	cr_expect_geq(checked, 8, "each agent's user and project settings");
	if (old_home)
		setenv("HOME", old_home, 1);
	free(old_home);
	pol_free(p);
}
