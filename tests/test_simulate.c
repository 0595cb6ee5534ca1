/* test_simulate.c - `dcg simulate` in process: the kinds of record are told from their
 * content and each call is judged as the hook judges it (tests/data/simulate), and
 * --against finds what a policy newly refuses and newly allows. */
#include "../cli/commands.h"
#include "../cli/hook.h"

#include <cJSON.h>
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char tmpdir[] = "/tmp/dcg-test-simulate.XXXXXX";

static void setup(void)
{
	cr_assert_not_null(mkdtemp(tmpdir));
	setenv("HOME", tmpdir, 1);
	setenv("XDG_CONFIG_HOME", tmpdir, 1);
	unsetenv("DCG_POLICY");
}

static void teardown(void)
{
	char cmd[200];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		cr_log_warn("could not remove %s", tmpdir);
	memcpy(tmpdir + strlen(tmpdir) - 6, "XXXXXX", 6);
}

TestSuite(simulate, .init = setup, .fini = teardown, .timeout = 60);

/* Runs `dcg simulate --json ARGS` in a child; returns its JSON report. */
static cJSON *simulate(const char *const *args)
{
	char out[300], *text = NULL;
	char *argv[12] = {"simulate", "--json"};
	size_t n = 2, len;
	int st;
	pid_t pid;

	for (; *args && n < 11; args++)
		argv[n++] = (char *)*args;
	argv[n] = NULL;
	snprintf(out, sizeof(out), "%s/out.json", tmpdir);
	fflush(stdout);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 1);
		int rc = cmd_simulate((int)n, argv);
		fflush(stdout);
		_exit(rc);
	}
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "simulate failed");
	cr_assert_eq(hook_read_file(out, 1 << 20, &text, &len), 0);
	cJSON *j = cJSON_Parse(text);
	cr_assert_not_null(j, "not JSON: %s", text);
	free(text);
	return j;
}

static double num(const cJSON *j, const char *k)
{
	return cJSON_GetObjectItemCaseSensitive(j, k)->valuedouble;
}

/* How many calls of the list got decision for rule. */
static double count(const cJSON *j, const char *list, const char *rule, const char *decision)
{
	const cJSON *r;
	double n = 0;

	cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(j, list))
	{
		if (!strcmp(cJSON_GetObjectItemCaseSensitive(r, "rule")->valuestring, rule) &&
		    !strcmp(cJSON_GetObjectItemCaseSensitive(r, "decision")->valuestring, decision))
			n += num(r, "count");
	}
	return n;
}

Test(simulate, a_claude_code_transcript)
{
	const char *args[] = {"tests/data/simulate/claude_session.jsonl", NULL};
	cJSON *j = simulate(args);

	cr_assert_eq(num(j, "calls"), 12);
	cr_assert_eq(num(j, "commands"), 7);
	cr_assert_eq(count(j, "by_rule", "core.git.reset_hard", "deny"), 2);
	cr_assert_eq(count(j, "by_rule", "default.zero_access.env", "deny"), 1);
	cr_assert_eq(count(j, "by_rule", "-", "allow"), 7);
	cJSON_Delete(j);
}

Test(simulate, the_audit_log_a_codex_rollout_and_a_plain_list)
{
	const char *args[] = {"tests/data/simulate/audit.jsonl",
			      "tests/data/simulate/codex_rollout.jsonl",
			      "tests/data/simulate/commands.txt", NULL};
	cJSON *j = simulate(args);

	cr_assert_eq(num(j, "files"), 3);
	cr_assert_eq(num(j, "calls"), 4 + 2 + 6);
	cr_assert_eq(count(j, "by_rule", "default.no_delete.git", "deny"), 1, "a runtime unlink");
	cr_assert_eq(count(j, "by_rule", "core.git.clean_force", "deny"), 1, "codex's git clean");
	cr_assert_eq(count(j, "by_rule", "system.kill_all", "deny"), 1, "the list's kill -1");
	cr_assert_eq(count(j, "by_rule", "core.git.reset_hard", "deny"), 2);
	cJSON_Delete(j);
}

Test(simulate, against_an_old_policy)
{
	char newp[300], oldp[300];
	const char *args[] = {
	    "--policy", newp, "--against", oldp, "tests/data/simulate/claude_session.jsonl", NULL};
	FILE *f;

	snprintf(newp, sizeof(newp), "%s/new.yaml", tmpdir);
	snprintf(oldp, sizeof(oldp), "%s/old.yaml", tmpdir);
	f = fopen(newp, "w");
	fputs("disable: [core.git.push_force]\nobserve: [core.git.reset_hard]\n"
	      "bashToolPatterns:\n  - pattern: '^git commit'\n    reason: no commits\n",
	      f);
	fclose(f);
	f = fopen(oldp, "w");
	fclose(f);
	cJSON *j = simulate(args);
	cr_assert_eq(count(j, "newly_refused", "policy.bash.1", "deny"), 1);
	cr_assert_eq(count(j, "newly_allowed", "core.git.push_force", "deny"), 1);
	cr_assert_eq(count(j, "newly_allowed", "core.git.reset_hard", "deny"), 2, "observed");
	cr_assert_eq(count(j, "by_rule", "core.git.reset_hard", "observe:deny"), 2);
	cJSON_Delete(j);
}
