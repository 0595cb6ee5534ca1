/* test_agents.c - the Codex, Gemini CLI, Cursor and pi adapters (cli/agents.h).
 *
 * Cases are data: tests/data/agents/<agent>/<case>.in is one tool call as the agent
 * sends it, <case>.out what dcg prints on stdout for it, byte for byte (empty: nothing
 * at all). They run through the same steps as `dcg hook --agent NAME`: parse, decide
 * with tests/data/agents/policy.yaml (home /home/agent, project /nonexistent-dcg/proj),
 * answer. DCG_REGEN=1 rewrites the .out files from what the code prints (review the
 * diff before committing). Bad input is generated here and must be refused in every
 * protocol. */
#include "../cli/agents/agents.h"
#include "../cli/commands.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DATA "tests/data/agents"

static struct pol_policy *test_policy(void)
{
	struct pol_policy *p = pol_new(0);

	cr_assert_not_null(p);
	cr_assert_eq(pol_set_home(p, "/home/agent"), 0);
	cr_assert_eq(pol_set_root(p, "/nonexistent-dcg/proj"), 0);
	cr_assert_eq(pol_load_file(p, DATA "/policy.yaml"), 0);
	cr_assert_eq(pol_diag_count(p), 0, "the test policy has problems");
	return p;
}

/* What `dcg hook --agent NAME` prints on stdout for input, as a malloc'ed string
 * ("" for nothing), with the exit status in *code. */
static char *run_agent(const struct hook_agent *ag, const struct pol_policy *p, const char *in,
		       size_t len, int *code)
{
	struct hook_call call;
	struct hook_answer ans;
	struct pol_result res;
	void *state = NULL;
	char *answer, *out;
	size_t n;

	*code = 0;
	hook_call_init(&call);
	pol_result_init(&res);
	ag->parse(in, len, &call, &state);
	if (call.kind == HOOK_CALL_OTHER) {
		if (state)
			ag->release(state);
		hook_call_release(&call);
		return strdup("");
	}
	hook_decide_call(p, &call, 0, &res);
	ans.result = &res;
	ans.call = &call;
	answer = ag->answer(&ans, code);
	pol_result_release(&res);
	if (state)
		ag->release(state);
	hook_call_release(&call);
	if (!answer)
		return strdup("");
	n = strlen(answer);
	out = malloc(n + 2);
	cr_assert_not_null(out);
	memcpy(out, answer, n);
	out[n] = '\n';
	out[n + 1] = '\0';
	free(answer);
	return out;
}

static char *slurp(const char *path, size_t *len)
{
	char *buf = NULL;
	int err = hook_read_file(path, 64 * 1024 * 1024, &buf, len);

	cr_assert_eq(err, 0, "cannot read %s: %s", path, strerror(-err));
	return buf;
}

/* Runs every case of one agent; returns how many there were. */
static int run_cases(const char *agent)
{
	const struct hook_agent *ag = hook_agent_find(agent);
	struct pol_policy *p = test_policy();
	char dir[256], in_path[512], out_path[512];
	struct dirent **names;
	int i, n, count = 0, regen = getenv("DCG_REGEN") != NULL;

	cr_assert_not_null(ag);
	cr_assert_not_null(ag->parse, "%s has no protocol", agent);
	snprintf(dir, sizeof(dir), DATA "/%s", agent);
	n = scandir(dir, &names, NULL, alphasort);
	cr_assert_gt(n, 0, "no cases in %s", dir);
	for (i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		size_t nl = strlen(name), in_len, want_len;
		char *in, *got, *want;
		int code;

		if (nl < 4 || strcmp(name + nl - 3, ".in") != 0) {
			free(names[i]);
			continue;
		}
		snprintf(in_path, sizeof(in_path), "%s/%s", dir, name);
		snprintf(out_path, sizeof(out_path), "%s/%.*s.out", dir, (int)(nl - 3), name);
		in = slurp(in_path, &in_len);
		got = run_agent(ag, p, in, in_len, &code);
		cr_expect_eq(code, 0, "%s: exit status %d", in_path, code);
		if (regen)
			hook_write_atomic(out_path, got, strlen(got), 0644);
		want = slurp(out_path, &want_len);
		cr_expect(strlen(got) == want_len && !memcmp(got, want, want_len),
			  "%s:\n  got:  %s\n  want: %s", in_path, got, want);
		free(in);
		free(got);
		free(want);
		free(names[i]);
		count++;
	}
	free(names);
	pol_free(p);
	return count;
}

Test(agents, codex_answers_every_sample_byte_for_byte)
{
	cr_expect_geq(run_cases("codex"), 15);
}

Test(agents, gemini_answers_every_sample_byte_for_byte)
{
	cr_expect_geq(run_cases("gemini"), 15);
}

Test(agents, cursor_answers_every_sample_byte_for_byte)
{
	cr_expect_geq(run_cases("cursor"), 12);
}

Test(agents, pi_answers_every_sample_byte_for_byte)
{
	cr_expect_geq(run_cases("pi"), 14);
}

/* ---- bad input fails closed in every protocol ---------------------------------------- */

struct refusal {
	const char *agent;
	const char *marker; /* what a refusal always contains in this protocol */
};

static const struct refusal refusals[] = {
    {"codex", "\"permissionDecision\":\"deny\""},
    {"gemini", "\"decision\":\"deny\""},
    {"cursor", "\"permission\":\"deny\""},
    {"pi", "\"action\":\"deny\",\"block\":true"},
};

/* Returns how many protocols refused it; each test asserts that all did. */
static size_t expect_refused(const char *what, const char *in, size_t len)
{
	struct pol_policy *p = test_policy();
	size_t i, refused = 0;

	for (i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++) {
		const struct hook_agent *ag = hook_agent_find(refusals[i].agent);
		int code;
		char *got = run_agent(ag, p, in, len, &code);

		cr_expect_eq(code, 0, "%s, %s: exit %d", refusals[i].agent, what, code);
		cr_expect(strstr(got, refusals[i].marker) != NULL, "%s, %s: not refused: %s",
			  refusals[i].agent, what, got);
		cr_expect(strstr(got, "hook.invalid_input") != NULL ||
			      strstr(got, HOOK_RULE_BAD_INPUT) != NULL,
			  "%s, %s: refused without the bad-input rule: %s", refusals[i].agent, what,
			  got);
		if (code == 0 && strstr(got, refusals[i].marker) &&
		    (strstr(got, "hook.invalid_input") || strstr(got, HOOK_RULE_BAD_INPUT)))
			refused++;
		free(got);
	}
	pol_free(p);
	return refused;
}

#define N_PROTOCOLS (sizeof(refusals) / sizeof(refusals[0]))

Test(agents, empty_input_is_refused_everywhere)
{
	cr_assert_eq(expect_refused("empty input", "", 0), N_PROTOCOLS);
}

Test(agents, non_json_is_refused_everywhere)
{
	cr_assert_eq(expect_refused("not JSON", "rm -rf /", 8), N_PROTOCOLS);
	cr_assert_eq(expect_refused("truncated JSON", "{\"tool_name\": \"Bash\"", 20), N_PROTOCOLS);
}

Test(agents, json_that_is_not_an_object_is_refused_everywhere)
{
	cr_assert_eq(expect_refused("array", "[1,2]", 5), N_PROTOCOLS);
	cr_assert_eq(expect_refused("string", "\"git reset --hard\"", 18), N_PROTOCOLS);
}

Test(agents, nul_bytes_are_refused_everywhere)
{
	static const char in[] = "{\"command\":\"ls\0 -la\"}";

	cr_assert_eq(expect_refused("NUL byte", in, sizeof(in) - 1), N_PROTOCOLS);
}

Test(agents, escaped_nul_is_refused_everywhere)
{
	/* cJSON would cut the string at \u0000 and the policy would see less than runs */
	static const char *ins[] = {
	    "{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\",\"tool_input\":{"
	    "\"command\":\"ls\\u0000; git reset --hard\"}}",
	    "{\"hook_event_name\":\"BeforeTool\",\"tool_name\":\"run_shell_command\",\"tool_"
	    "input\":{\"command\":\"ls\\u0000; git reset --hard\"}}",
	    "{\"hook_event_name\":\"beforeShellExecution\",\"command\":\"ls\\u0000; git reset "
	    "--hard\"}",
	    "{\"type\":\"tool_call\",\"toolName\":\"bash\",\"input\":{\"command\":\"ls\\u0000; git "
	    "reset --hard\"}}",
	};
	size_t i;

	for (i = 0; i < 4; i++)
		cr_assert_eq(expect_refused("escaped NUL", ins[i], strlen(ins[i])), N_PROTOCOLS);
}

Test(agents, invalid_utf8_is_refused_everywhere)
{
	static const char in[] = "{\"command\":\"ls \xff\xfe\"}";

	cr_assert_eq(expect_refused("invalid UTF-8", in, sizeof(in) - 1), N_PROTOCOLS);
	cr_assert_eq(expect_refused("overlong slash", "{\"c\":\"\xc0\xaf\"}", 10), N_PROTOCOLS);
}

/* A command over the 1 MiB limit is refused in every protocol, never analysed. */
Test(agents, oversized_command_is_refused_everywhere)
{
	static const char *around[][2] = {
	    {"{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\",\"tool_input\":{"
	     "\"command\":\"",
	     "\"}}"},
	    {"{\"hook_event_name\":\"BeforeTool\",\"tool_name\":\"run_shell_command\",\"tool_"
	     "input\":{\"command\":\"",
	     "\"}}"},
	    {"{\"hook_event_name\":\"beforeShellExecution\",\"command\":\"", "\"}"},
	    {"{\"type\":\"tool_call\",\"toolName\":\"bash\",\"input\":{\"command\":\"", "\"}}"},
	};
	size_t big = HOOK_AGENT_MAX_COMMAND + 16, i;
	char *cmd = malloc(big);
	struct pol_policy *p = test_policy();

	cr_assert_not_null(cmd);
	memset(cmd, 'a', big);
	for (i = 0; i < 4; i++) {
		const struct hook_agent *ag = hook_agent_find(refusals[i].agent);
		struct hook_buf in = HOOK_BUF_INIT;
		int code;
		char *got;

		hook_buf_adds(&in, around[i][0]);
		hook_buf_add(&in, cmd, big);
		hook_buf_adds(&in, around[i][1]);
		cr_assert(!in.oom);
		got = run_agent(ag, p, in.s, in.len, &code);
		cr_expect(strstr(got, refusals[i].marker) != NULL, "%s: not refused",
			  refusals[i].agent);
		cr_expect(strstr(got, "too long") != NULL, "%s: reason: %.200s", refusals[i].agent,
			  got);
		free(got);
		hook_buf_release(&in);
	}
	pol_free(p);
	free(cmd);
}

/* Without a policy (out of memory building it), every checked call is refused. */
Test(agents, no_policy_refuses_checked_calls)
{
	static const char in[] = "{\"type\":\"tool_call\",\"toolName\":\"bash\",\"input\":{"
				 "\"command\":\"ls\"},\"cwd\":\"/\"}";
	const struct hook_agent *ag = hook_agent_find("pi");
	int code;
	char *got = run_agent(ag, NULL, in, sizeof(in) - 1, &code);

	cr_expect(strstr(got, "\"action\":\"deny\"") && strstr(got, HOOK_RULE_INTERNAL), "%s", got);
	free(got);
}

/* ---- Codex patches ------------------------------------------------------------------------- */

Test(agents, codex_patch_lists_every_file_with_its_operation)
{
	static const char patch[] = "*** Begin Patch\n"
				    "*** Add File: a/new.txt\n"
				    "+hello\n"
				    "*** Update File: b/old.txt\r\n"
				    "*** Move to:  c/moved.txt \n"
				    "@@\n"
				    "-x\n"
				    "+*** Delete File: not/a/marker\n"
				    "*** Update File: d/edit.txt\n"
				    "@@\n"
				    " ctx\n"
				    "*** Delete File: e/gone.txt\n"
				    "*** End Patch\n";
	struct hook_patch_file f[8];
	long n = hook_codex_patch_files(patch, sizeof(patch) - 1, f, 8);

	cr_assert_eq(n, 5);
	cr_expect(f[0].len == 9 && !memcmp(f[0].path, "a/new.txt", 9) && f[0].op == POL_OP_WRITE);
	cr_expect(f[1].len == 9 && !memcmp(f[1].path, "b/old.txt", 9) &&
		  f[1].op == POL_OP_RENAME_FROM);
	cr_expect(f[2].len == 11 && !memcmp(f[2].path, "c/moved.txt", 11) &&
		  f[2].op == POL_OP_RENAME_TO);
	cr_expect(f[3].len == 10 && !memcmp(f[3].path, "d/edit.txt", 10) &&
		  f[3].op == POL_OP_WRITE);
	cr_expect(f[4].len == 10 && !memcmp(f[4].path, "e/gone.txt", 10) &&
		  f[4].op == POL_OP_DELETE);
}

/* A call holds every path it names, however many (no worst-first selection). */
Test(agents, a_call_holds_every_file_of_a_patch_or_a_read_many)
{
	static const struct {
		const char *agent, *file;
		size_t paths;
	} cases[] = {
	    {"codex", DATA "/codex/patch_eight_files_last_refused.in", 8},
	};
	static const char many[] =
	    "{\"hook_event_name\":\"BeforeTool\",\"tool_name\":\"read_many_files\","
	    "\"cwd\":\"/nonexistent-dcg/proj\",\"tool_input\":{\"include\":[\"a\",\"b\","
	    "\"c\",\"d\",\"e\",\"f\",\"g\",\"id.pem\"]}}";
	const struct hook_agent *gemini = hook_agent_find("gemini");
	struct hook_call call;
	void *state = NULL;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct hook_agent *ag = hook_agent_find(cases[i].agent);
		size_t len;
		char *in = slurp(cases[i].file, &len);

		ag->parse(in, len, &call, &state);
		cr_expect_eq(call.kind, HOOK_CALL_PATH, "%s", cases[i].file);
		cr_expect_eq(call.n_paths, cases[i].paths, "%s", cases[i].file);
		ag->release(state);
		hook_call_release(&call);
		free(in);
	}
	gemini->parse(many, sizeof(many) - 1, &call, &state);
	cr_expect_eq(call.n_paths, 8);
	cr_expect_str_eq(call.paths[7], "id.pem");
	gemini->release(state);
	hook_call_release(&call);
}

/* The agents' read-only tools (an intent never confines them) live in the adapters. */
Test(agents, read_only_tools_are_the_adapters_knowledge)
{
	static const struct {
		const char *agent, *tool;
		int reads_only;
	} cases[] = {
	    {"claude", "WebFetch", 1},
	    {"claude", "TodoWrite", 1},
	    {"claude", "Task", 1},
	    {"claude", "mcp__x__y", 0},
	    {"claude", "web_fetch", 0},
	    {"gemini", "web_fetch", 1},
	    {"gemini", "google_web_search", 1},
	    {"gemini", "mcp__x__y", 0},
	    {"gemini", "Task", 0},
	    {"codex", "WebFetch", 0},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct hook_agent *ag = hook_agent_find(cases[i].agent);
		struct hook_call call;
		void *state = NULL;
		char in[256];
		int n = snprintf(in, sizeof(in),
				 "{\"hook_event_name\":\"%s\",\"tool_name\":\"%s\","
				 "\"tool_input\":{}}",
				 strcmp(cases[i].agent, "gemini") ? "PreToolUse" : "BeforeTool",
				 cases[i].tool);

		ag->parse(in, (size_t)n, &call, &state);
		cr_expect_eq(call.kind, HOOK_CALL_OTHER, "%s %s", cases[i].agent, cases[i].tool);
		cr_expect_eq(call.tool_reads_only, cases[i].reads_only, "%s %s", cases[i].agent,
			     cases[i].tool);
		ag->release(state);
		hook_call_release(&call);
	}
}

Test(agents, codex_patch_counts_past_its_buffer_and_refuses_non_patches)
{
	static const char patch[] = "*** Begin Patch\n*** Add File: a\n*** Add File: b\n"
				    "*** Add File: c\n*** End Patch\n";
	struct hook_patch_file f[1];

	cr_expect_eq(hook_codex_patch_files(patch, sizeof(patch) - 1, f, 1), 3);
	cr_expect_eq(hook_codex_patch_files("hello", 5, f, 1), -EINVAL);
	cr_expect_eq(hook_codex_patch_files("*** Begin Patch\n*** Delete File:\n", 33, f, 1),
		     -EINVAL);
}

/* ---- settings files -------------------------------------------------------------------------- */

static char tmp_root[256];

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path); /* best effort: a leftover is only clutter in /tmp */
	return 0;
}

/* Each test runs in its own process: its scratch folder goes when it exits. */
static void rm_tmp_root(void)
{
	if (tmp_root[0])
		nftw(tmp_root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static char *tmpdir_path(const char *name)
{
	char *dir = tmp_root;
	char *out;
	size_t len;

	if (!dir[0]) {
		snprintf(dir, sizeof(tmp_root), "/tmp/dcg-test-agents-XXXXXX");
		cr_assert_not_null(mkdtemp(dir));
		atexit(rm_tmp_root);
	}
	len = strlen(dir) + strlen(name) + 2;
	out = malloc(len);
	cr_assert_not_null(out);
	snprintf(out, len, "%s/%s", dir, name);
	return out;
}

/* install merges into an existing file, keeps everything, is idempotent, and
 * uninstall removes only dcg's entries. Returns how many expectations failed (each is
 * also reported), so that the test asserts on it. */
static int check_install_cycle(const char *agent, const char *existing, const char *golden)
{
	int bad = 0;
	const struct hook_agent *ag = hook_agent_find(agent);
	char *path = tmpdir_path(agent), *after1, *after2, *after_rm, *want;
	char msg[512];
	size_t len, wl;

	cr_assert_not_null(ag->install);
	cr_assert_eq(hook_write_atomic(path, existing, strlen(existing), 0600), 0);
	cr_assert_eq(ag->install(path, "/opt/dcg/bin/dcg hook --agent x", msg, sizeof(msg)), 0,
		     "%s", msg);
	after1 = slurp(path, &len);
	if (getenv("DCG_REGEN"))
		hook_write_atomic(golden, after1, len, 0644);
	want = slurp(golden, &wl);
	bad += !(len == wl && !memcmp(after1, want, wl));
	cr_expect(len == wl && !memcmp(after1, want, wl), "%s install:\n%s\nwant:\n%s", agent,
		  after1, want);
	cr_assert_eq(ag->install(path, "/opt/dcg/bin/dcg hook --agent x", msg, sizeof(msg)), 0);
	bad += !(strstr(msg, "already installed") != NULL);
	cr_expect(strstr(msg, "already installed") != NULL, "%s: second install: %s", agent, msg);
	after2 = slurp(path, &len);
	bad += !!strcmp(after2, after1);
	cr_expect_str_eq(after2, after1, "%s: install is not idempotent", agent);
	cr_assert_eq(ag->uninstall(path, msg, sizeof(msg)), 0, "%s", msg);
	after_rm = slurp(path, &len);
	bad += !(strstr(after_rm, "dcg hook") == NULL);
	cr_expect(strstr(after_rm, "dcg hook") == NULL, "%s: uninstall left dcg: %s", agent,
		  after_rm);
	bad += !(strstr(after_rm, "keep-me") != NULL);
	cr_expect(strstr(after_rm, "keep-me") != NULL, "%s: uninstall lost the user's hook: %s",
		  agent, after_rm);
	bad += !(strstr(after_rm, "\"theme\"") != NULL);
	cr_expect(strstr(after_rm, "\"theme\"") != NULL, "%s: uninstall lost a setting", agent);
	free(after1);
	free(after2);
	free(after_rm);
	free(want);
	unlink(path);
	free(path);
	return bad;
}

Test(agents, codex_install_merges_and_uninstall_removes_only_dcg)
{
	cr_assert_eq(
	    check_install_cycle(
		"codex",
		"{\"theme\": \"dark\", \"hooks\": {\"PreToolUse\": [{\"matcher\": \"Bash\", "
		"\"hooks\": [{\"type\": \"command\", \"command\": \"keep-me.sh\"}]}], "
		"\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": "
		"\"keep-me-too\"}]}]}}",
		DATA "/settings/codex_hooks.json"),
	    0, "codex: install/uninstall cycle");
}

Test(agents, gemini_install_merges_and_uninstall_removes_only_dcg)
{
	cr_assert_eq(
	    check_install_cycle(
		"gemini",
		"{\"theme\": \"GitHub\", \"model\": {\"name\": \"gemini-2.5-pro\"}, "
		"\"hooks\": {\"BeforeTool\": [{\"matcher\": \"write_file\", \"hooks\": "
		"[{\"type\": \"command\", \"command\": \"keep-me.sh\", \"timeout\": 5000}]}]}}",
		DATA "/settings/gemini_settings.json"),
	    0, "gemini: install/uninstall cycle");
}

Test(agents, cursor_install_merges_and_uninstall_removes_only_dcg)
{
	cr_assert_eq(
	    check_install_cycle(
		"cursor",
		"{\"version\": 1, \"theme\": \"x\", \"hooks\": {\"beforeShellExecution\": "
		"[{\"command\": \"./keep-me.sh\"}], \"afterFileEdit\": [{\"command\": \"fmt\"}]}}",
		DATA "/settings/cursor_hooks.json"),
	    0, "cursor: install/uninstall cycle");
}

Test(agents, install_refuses_a_file_that_is_not_a_json_object)
{
	static const char *agents[] = {"codex", "gemini", "cursor"};
	size_t i;

	for (i = 0; i < 3; i++) {
		const struct hook_agent *ag = hook_agent_find(agents[i]);
		char *path = tmpdir_path("broken.json"), *after, msg[512];
		size_t len;

		cr_assert_eq(hook_write_atomic(path, "[1, 2", 5, 0644), 0);
		cr_expect_lt(ag->install(path, "dcg hook --agent x", msg, sizeof(msg)), 0, "%s",
			     agents[i]);
		after = slurp(path, &len);
		cr_expect_str_eq(after, "[1, 2", "%s changed a file it could not read", agents[i]);
		free(after);
		unlink(path);
		free(path);
	}
}

Test(agents, install_creates_missing_settings_and_folders)
{
	char *path = tmpdir_path("new/.gemini/settings.json"), *after, msg[512];
	size_t len;

	cr_assert_eq(
	    hook_agent_find("gemini")->install(path, "dcg hook --agent gemini", msg, sizeof(msg)),
	    0, "%s", msg);
	after = slurp(path, &len);
	cr_expect(strstr(after, "\"BeforeTool\"") && strstr(after, "\"timeout\":\t30000"), "%s",
		  after);
	free(after);
	free(path);
}

Test(agents, settings_paths_are_where_each_agent_looks)
{
	char out[512];

	setenv("HOME", "/home/agent", 1);
	unsetenv("CODEX_HOME");
	unsetenv("PI_CODING_AGENT_DIR");
	cr_assert_eq(hook_agent_find("codex")->settings_path(0, "/p", out, sizeof(out)), 0);
	cr_expect_str_eq(out, "/p/.codex/hooks.json");
	cr_assert_eq(hook_agent_find("codex")->settings_path(1, "/p", out, sizeof(out)), 0);
	cr_expect_str_eq(out, "/home/agent/.codex/hooks.json");
	setenv("CODEX_HOME", "/srv/codex", 1);
	cr_assert_eq(hook_agent_find("codex")->settings_path(1, "/p", out, sizeof(out)), 0);
	cr_expect_str_eq(out, "/srv/codex/hooks.json");
	cr_assert_eq(hook_agent_find("gemini")->settings_path(0, "/p", out, sizeof(out)), 0);
	cr_expect_str_eq(out, "/p/.gemini/settings.json");
	cr_assert_eq(hook_agent_find("cursor")->settings_path(1, "/p", out, sizeof(out)), 0);
	cr_expect_str_eq(out, "/home/agent/.cursor/hooks.json");
	cr_assert_eq(hook_agent_find("pi")->settings_path(0, "/p", out, sizeof(out)), 0);
	cr_expect_str_eq(out, "/p/.pi/extensions/dcg-damage-control.ts");
	cr_assert_eq(hook_agent_find("pi")->settings_path(1, "/p", out, sizeof(out)), 0);
	cr_expect_str_eq(out, "/home/agent/.pi/agent/extensions/dcg-damage-control.ts");
	setenv("PI_CODING_AGENT_DIR", "/srv/pi", 1);
	cr_assert_eq(hook_agent_find("pi")->settings_path(1, "/p", out, sizeof(out)), 0);
	cr_expect_str_eq(out, "/srv/pi/extensions/dcg-damage-control.ts");
}

/* ---- the pi extension ------------------------------------------------------------------------- */

Test(agents, pi_extension_in_the_binary_is_the_one_in_the_repo)
{
	size_t len, flen;
	const char *emb = hook_pi_extension(&len);
	char *file = slurp("agents/pi/dcg-damage-control.ts", &flen);

	cr_expect(len == flen && !memcmp(emb, file, len),
		  "the embedded extension is stale: rebuild cli/agents/pi.o");
	free(file);
}

Test(agents, pi_extension_gets_the_binary_path_as_a_string)
{
	char *ext = hook_pi_extension_for("/opt/my \"dcg\"/dcg");

	cr_assert_not_null(ext);
	cr_expect(strstr(ext, "const INSTALLED_DCG = \"/opt/my \\\"dcg\\\"/dcg\";") != NULL);
	cr_expect(strstr(ext, "@@DCG_BIN@@") == NULL);
	free(ext);
}

Test(agents, pi_install_is_idempotent_and_leaves_foreign_files_alone)
{
	const struct hook_agent *ag = hook_agent_find("pi");
	char *path = tmpdir_path("pi/.pi/extensions/dcg-damage-control.ts"), msg[512], *a, *b;
	size_t la, lb;
	struct stat st;

	cr_assert_eq(ag->install(path, NULL, msg, sizeof(msg)), 0, "%s", msg);
	a = slurp(path, &la);
	cr_expect(strstr(a, "pi.on(\"tool_call\"") != NULL);
	cr_assert_eq(ag->install(path, NULL, msg, sizeof(msg)), 0, "%s", msg);
	cr_expect(strstr(msg, "already installed") != NULL, "%s", msg);
	b = slurp(path, &lb);
	cr_expect(la == lb && !memcmp(a, b, la));
	cr_assert_eq(ag->uninstall(path, msg, sizeof(msg)), 0, "%s", msg);
	cr_expect_neq(stat(path, &st), 0, "uninstall left the extension");
	/* someone else's file of that name is neither replaced nor removed */
	cr_assert_eq(hook_write_atomic(path, "export default 1;\n", 18, 0644), 0);
	cr_expect_lt(ag->install(path, NULL, msg, sizeof(msg)), 0);
	cr_expect_eq(ag->uninstall(path, msg, sizeof(msg)), 0);
	cr_expect_eq(stat(path, &st), 0, "uninstall removed a foreign file");
	free(a);
	free(b);
	unlink(path);
	free(path);
}

/* ---- dcg install --agent all ------------------------------------------------------------------- */

static int exists(const char *dir, const char *rel)
{
	char p[1024];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	return stat(p, &st) == 0;
}

Test(agents, install_all_installs_only_where_an_agent_folder_exists)
{
	char *proj = tmpdir_path("all-proj");
	char *argv[] = {"install", "--agent", "all", "--project", "--force", NULL};

	cr_assert_eq(mkdir(proj, 0755), 0);
	cr_assert_eq(chdir(proj), 0);
	cr_assert_eq(mkdir(".codex", 0755), 0);
	cr_assert_eq(mkdir(".pi", 0755), 0);
	cr_expect_eq(cmd_install(5, argv), 0);
	cr_expect(exists(proj, ".codex/hooks.json"), "codex was skipped");
	cr_expect(exists(proj, ".pi/extensions/dcg-damage-control.ts"), "pi was skipped");
	cr_expect(!exists(proj, ".claude"), "claude was installed without a .claude folder");
	cr_expect(!exists(proj, ".gemini"), "gemini was installed without a .gemini folder");
	cr_expect(!exists(proj, ".cursor"), "cursor was installed without a .cursor folder");
	free(proj);
}
