/* test_cli.c - the dcg binary as agents and people run it: whole processes, with the
 * stdout, stderr and exit status they see. Needs $(BUILD)/dcg (DCG_BUILD names the
 * build folder; default build). Every run gets a fresh HOME, no user or project
 * policy, and its own audit log. */
#include "../cli/hook.h"
#include "../cli/agents/agents.h"

#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

struct run {
	struct hook_buf out, err;
	int status; /* exit status, or 128+signal */
};

static char dcg[2048];
static char tmpdir[256];

static void setup(void)
{
	const char *b = getenv("DCG_BUILD");
	char cwd[1024];

	cr_assert(getcwd(cwd, sizeof(cwd)));
	snprintf(dcg, sizeof(dcg), "%s/%s/dcg", cwd, b && b[0] ? b : "build");
	cr_assert_eq(access(dcg, X_OK), 0, "%s is not built", dcg);
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/dcg-test-cli-XXXXXX");
	cr_assert(mkdtemp(tmpdir));
}

static void teardown(void)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", tmpdir);
}

TestSuite(cli, .init = setup, .fini = teardown);

static void child_env(void)
{
	char buf[512];

	setenv("HOME", tmpdir, 1);
	snprintf(buf, sizeof(buf), "%s/.config", tmpdir);
	setenv("XDG_CONFIG_HOME", buf, 1);
	snprintf(buf, sizeof(buf), "%s/audit.jsonl", tmpdir);
	setenv("DCG_LOG", buf, 1);
	unsetenv("DCG_POLICY");
	unsetenv("XDG_STATE_HOME");
	unsetenv("DCG_TRUST_FILE");
	/* no system file from the machine running the tests */
	snprintf(buf, sizeof(buf), "%s/no-system-policy.yaml", tmpdir);
	setenv("DCG_SYSTEM_POLICY", buf, 1);
}

/* Runs dcg with args (NULL-terminated), feeding in (len bytes) on stdin, in tmpdir
 * (or cwd when given). extra_env: "NAME=value" or NULL. */
static void run_dcg(struct run *r, const char *const *args, const char *in, size_t len,
		    const char *cwd, const char *extra_env)
{
	int pin[2], pout[2], perr[2], st;
	size_t done = 0;
	pid_t pid;
	char *argv[32];
	size_t i;

	memset(r, 0, sizeof(*r));
	argv[0] = dcg;
	for (i = 0; args[i] && i < 30; i++)
		argv[i + 1] = (char *)args[i];
	argv[i + 1] = NULL;
	cr_assert(pipe(pin) == 0 && pipe(pout) == 0 && pipe(perr) == 0);
	pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		dup2(pin[0], 0);
		dup2(pout[1], 1);
		dup2(perr[1], 2);
		close(pin[1]);
		close(pout[0]);
		close(perr[0]);
		child_env();
		if (extra_env)
			putenv((char *)extra_env);
		if (chdir(cwd ? cwd : tmpdir) != 0)
			_exit(126);
		execv(dcg, argv);
		_exit(127);
	}
	close(pin[0]);
	close(pout[1]);
	close(perr[1]);
	signal(SIGPIPE, SIG_IGN);
	fcntl(pin[1], F_SETFL, O_NONBLOCK);
	if (!in || !len) {
		close(pin[1]);
		pin[1] = -1;
	}
	for (;;) {
		struct pollfd fds[3] = {
		    {pout[0], POLLIN, 0}, {perr[0], POLLIN, 0}, {pin[1], POLLOUT, 0}};
		char buf[65536];
		ssize_t n;

		if (pout[0] < 0 && perr[0] < 0)
			break;
		if (poll(fds, 3, -1) < 0)
			continue;
		if (pin[1] >= 0 && (fds[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
			n = write(pin[1], in + done, len - done);
			if (n > 0)
				done += (size_t)n;
			if (n < 0 && errno != EAGAIN) {
				close(pin[1]);
				pin[1] = -1;
			} else if (done == len) {
				close(pin[1]);
				pin[1] = -1;
			}
		}
		for (i = 0; i < 2; i++) {
			int *fd = i == 0 ? &pout[0] : &perr[0];
			if (*fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			n = read(*fd, buf, sizeof(buf));
			if (n > 0) {
				hook_buf_add(i == 0 ? &r->out : &r->err, buf, (size_t)n);
			} else {
				close(*fd);
				*fd = -1;
			}
		}
	}
	if (pin[1] >= 0)
		close(pin[1]);
	waitpid(pid, &st, 0);
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	if (!r->out.s)
		hook_buf_add(&r->out, "", 0);
	if (!r->err.s)
		hook_buf_add(&r->err, "", 0);
}

static void run_free(struct run *r)
{
	hook_buf_release(&r->out);
	hook_buf_release(&r->err);
}

static void write_file(const char *rel, const char *text)
{
	char path[512];
	int err;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
	err = hook_write_atomic(path, text, strlen(text), 0644);
	cr_assert_eq(err, 0, "%s: %s", path, strerror(-err));
}

static char *read_rel(const char *rel)
{
	char path[512], *s = NULL;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
	if (hook_read_file(path, 64 << 20, &s, &n))
		return NULL;
	return s;
}

/* The allow-once codes are random: each one becomes ABCD2345 before the comparison. */
static char *fixed_codes(const char *text)
{
	static const char *const marks[] = {"dcg allow-once ", "\"once_code\":\""};
	char *t = strdup(text);

	cr_assert_not_null(t);
	for (size_t m = 0; m < 2; m++)
		for (char *at = strstr(t, marks[m]); at; at = strstr(at + 1, marks[m])) {
			char *c = at + strlen(marks[m]);
			if (strspn(c, "0123456789ABCDEFGHJKMNPQRSTVWXYZ") >= 8)
				memcpy(c, "ABCD2345", 8);
		}
	return t;
}

static void assert_golden(const char *raw, const char *name)
{
	char path[256], *want = NULL;
	char *text = fixed_codes(raw);
	size_t n;

	snprintf(path, sizeof(path), "tests/golden/%s", name);
	if (getenv("DCG_UPDATE_GOLDEN")) {
		FILE *f = fopen(path, "w");
		cr_assert(f);
		fputs(text, f);
		fclose(f);
	}
	cr_assert_eq(hook_read_file(path, 1 << 20, &want, &n), 0, "no %s", path);
	cr_assert_str_eq(text, want, "differs from %s:\n--- got ---\n%s--- want ---\n%s", path,
			 text, want);
	free(want);
	free(text);
}

/* A deny answer: valid JSON, the Claude Code shape, the reason containing has. */
static void assert_deny_json(const char *out, const char *has)
{
	cJSON *o = cJSON_Parse(out), *h;

	cr_assert(o, "stdout is not JSON: %s", out);
	h = cJSON_GetObjectItem(o, "hookSpecificOutput");
	cr_assert_str_eq(cJSON_GetObjectItem(h, "hookEventName")->valuestring, "PreToolUse");
	cr_assert_str_eq(cJSON_GetObjectItem(h, "permissionDecision")->valuestring, "deny", "%s",
			 out);
	cr_assert(strstr(cJSON_GetObjectItem(h, "permissionDecisionReason")->valuestring, has),
		  "reason lacks '%s': %s", has, out);
	cJSON_Delete(o);
}

static const char *const hook_args[] = {"hook", NULL};
static const char *const hook_claude_args[] = {"hook", "--agent", "claude", NULL};

/* The golden tests use their own policy file, so the embedded defaults may change
 * without touching them. */
static const char golden_policy[] = "bashToolPatterns:\n"
				    "  - pattern: '\\bgolden-danger\\b'\n"
				    "    reason: golden-danger is the test's dangerous command\n";

Test(cli, hook_deny_stdout_and_stderr_are_golden)
{
	const char *in = "{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"golden-danger "
			 "--now \\\"secret words\\\"\"}}";
	char env[600];
	struct run r;

	write_file("golden.yaml", golden_policy);
	snprintf(env, sizeof(env), "DCG_POLICY=%s/golden.yaml", tmpdir);
	run_dcg(&r, hook_claude_args, in, strlen(in), NULL, env);
	cr_assert_eq(r.status, 0, "stderr: %s", r.err.s);
	assert_golden(r.out.s, "hook_bash_deny.stdout.json");
	assert_golden(r.err.s, "hook_bash_deny.stderr.txt");
	/* the engine reports the matched text without the quotes (normalized): the
	 * quoted words of the raw command are hidden all the same */
	cr_assert_null(strstr(r.err.s, "secret words"), "not redacted: %s", r.err.s);
	cr_assert_null(strchr(r.err.s, '\033'));
	run_free(&r);
}

/* Runs `dcg hook` with in on stdin (a pipe), stdout to /dev/null and stderr on a new
 * terminal, in tmpdir; extra_env "NAME=value" or NULL. Returns what the terminal got
 * (the caller releases it) and asserts the hook exited 0. */
static void run_hook_on_pty(const char *in, char *extra_env, struct hook_buf *all)
{
	char buf[4096];
	int master, st, pin[2];
	pid_t pid;
	ssize_t n;

	cr_assert_eq(pipe(pin), 0);
	pid = forkpty(&master, NULL, NULL, NULL);
	cr_assert(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		dup2(pin[0], 0);
		dup2(null, 1);
		close(pin[1]);
		child_env();
		if (extra_env)
			putenv(extra_env);
		if (chdir(tmpdir) != 0)
			_exit(126);
		execl(dcg, dcg, "hook", (char *)NULL);
		_exit(127);
	}
	close(pin[0]);
	cr_assert_eq(write(pin[1], in, strlen(in)), (ssize_t)strlen(in));
	close(pin[1]);
	while ((n = read(master, buf, sizeof(buf))) > 0)
		hook_buf_add(all, buf, (size_t)n);
	waitpid(pid, &st, 0);
	close(master);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

Test(cli, hook_stderr_on_a_terminal_has_colours_and_no_redaction)
{
	const char *in = "{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"golden-danger "
			 "--now \\\"secret words\\\"\"}}\n";
	char env[600];
	struct hook_buf all = HOOK_BUF_INIT;

	write_file("golden.yaml", golden_policy);
	snprintf(env, sizeof(env), "DCG_POLICY=%s/golden.yaml", tmpdir);
	run_hook_on_pty(in, env, &all);
	cr_assert(all.s && strstr(all.s, "\033[1;31mBLOCKED: Destructive command\033[0m"), "%s",
		  all.s);
	cr_assert(strstr(all.s, "secret words"), "a terminal shows the text as it is: %s", all.s);
	/* byte for byte, once the terminal's CR LF is back to LF */
	{
		char *w = all.s;
		for (const char *r = all.s; *r; r++)
			if (!(r[0] == '\r' && r[1] == '\n'))
				*w++ = *r;
		*w = '\0';
	}
	assert_golden(all.s, "hook_bash_deny.stderr.tty.txt");
	hook_buf_release(&all);
}

/* DESIGN.md's own example, end to end: the tool call a Claude Code agent sends, through
 * the real binary with the embedded default policy (no policy file anywhere), gives the
 * design's JSON on stdout and its message on stderr (redacted off a terminal, whole with
 * colours on one). tests/golden/design_example.* are DESIGN.md's text. */
static const char design_call[] =
    "{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"python3 - <<'EOF'\\nimport "
    "os\\npath = \\\"/tmp/data\\\"\\nos.system(\\\"rm -rf /tmp/data\\\")\\nprint(\\\"done\\\")"
    "\\nEOF\"}}\n";

static char *strip_ansi_crlf(const char *in)
{
	char *out = strdup(in), *o = out;

	cr_assert(out);
	for (const char *c = in; *c;) {
		if (c[0] == '\033' && c[1] == '[') {
			c += 2;
			while (*c && !(*c >= '@' && *c <= '~'))
				c++;
			if (*c)
				c++;
			continue;
		}
		if (c[0] == '\r' && c[1] == '\n') {
			c++;
			continue;
		}
		*o++ = *c++;
	}
	*o = '\0';
	return out;
}

/* DESIGN.md's example predates the allow-once code, the one thing a refusal says now
 * that it does not: the code's line (human) or clause (the agent's reason) is checked
 * to be there and cut, so the rest is still compared with the design's text. */
static void cut_once(char *text)
{
	static const char *const marks[] = {
	    "- For this command only, at a terminal: dcg allow-once ",
	    " or, for this command only, the user can run: dcg allow-once "};
	int found = 0;

	for (size_t m = 0; m < 2; m++) {
		char *at = strstr(text, marks[m]);
		size_t len;

		if (!at)
			continue;
		len = strlen(marks[m]) + 8 + (m == 0 && at[strlen(marks[m]) + 8] == '\n');
		memmove(at, at + len, strlen(at + len) + 1);
		found = 1;
	}
	cr_assert(found, "no allow-once code in: %s", text);
}

Test(cli, design_example_through_the_hook_is_the_design_answer)
{
	struct run r;
	cJSON *got, *want;
	char *design = NULL;
	size_t n;

	run_dcg(&r, hook_claude_args, design_call, strlen(design_call), NULL, NULL);
	cr_assert_eq(r.status, 0, "stderr: %s", r.err.s);
	cr_assert_eq(
	    hook_read_file("tests/golden/design_example.claude.json", 1 << 20, &design, &n), 0);
	cut_once(r.out.s);
	got = cJSON_Parse(r.out.s);
	want = cJSON_Parse(design);
	cr_assert(got, "stdout is not JSON: %s", r.out.s);
	cr_assert(want);
	cJSON *det = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(got, "hookSpecificOutput"), "details");
	cr_assert(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(det, "once_code")));
	cJSON_DeleteItemFromObjectCaseSensitive(det, "once_code");
	cr_assert(cJSON_Compare(got, want, 1), "the hook's answer differs from DESIGN.md's:\n%s",
		  r.out.s);
	/* off a terminal: the design's message with its quoted strings redacted */
	cut_once(r.err.s);
	assert_golden(r.err.s, "heredoc_python.human.txt");
	cJSON_Delete(got);
	cJSON_Delete(want);
	free(design);
	run_free(&r);
}

Test(cli, design_example_on_a_terminal_is_the_design_message)
{
	struct hook_buf all = HOOK_BUF_INIT;
	char *plain, *want = NULL;
	size_t wl;

	run_hook_on_pty(design_call, NULL, &all);
	cr_assert(all.s && strstr(all.s, "\033["), "no colours on a terminal: %s", all.s);
	plain = strip_ansi_crlf(all.s);
	cut_once(plain);
	cr_assert_eq(hook_read_file("tests/golden/design_example.txt", 1 << 20, &want, &wl), 0);
	cr_assert_str_eq(plain, want, "--- got ---\n%s--- DESIGN.md ---\n%s", plain, want);
	free(want);
	free(plain);
	hook_buf_release(&all);
}

Test(cli, hook_allowed_call_prints_nothing)
{
	const char *in =
	    "{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls -la\"},\"cwd\":\"/tmp\"}";
	struct run r;

	run_dcg(&r, hook_args, in, strlen(in), NULL, NULL);
	cr_assert_eq(r.status, 0);
	cr_assert_str_eq(r.out.s, "");
	run_free(&r);
}

Test(cli, hook_refuses_every_bad_input_with_json_and_exit_0)
{
	static const struct {
		const char *in;
		size_t len;
		const char *has;
	} cases[] = {
	    {"", 0, "no input"},
	    {"not json at all", 0, "not valid JSON"},
	    {"{\"tool_input\":{\"command\":\"ls\"}}", 0, "no tool_name"},
	    {"{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"a\xff\"}}", 0, "UTF-8"},
	    {"{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls\0rm\"}}", 46, "NUL"},
	    {"{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls\\u0000rm\"}}", 0, "NUL"},
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct run r;
		size_t len = cases[i].len ? cases[i].len : strlen(cases[i].in);
		run_dcg(&r, hook_args, cases[i].in, len, NULL, NULL);
		cr_assert_eq(r.status, 0, "case %zu: exit %d, %s", i, r.status, r.err.s);
		assert_deny_json(r.out.s, cases[i].has);
		cr_assert(strstr(r.err.s, "BLOCKED: Refused input"), "case %zu: %s", i, r.err.s);
		run_free(&r);
	}
}

Test(cli, hook_refuses_a_100_mb_call_without_reading_it_all)
{
	size_t len = 100u * 1024 * 1024, i;
	char *in = malloc(len);
	const char *head = "{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"";
	struct run r;

	cr_assert(in);
	memcpy(in, head, strlen(head));
	for (i = strlen(head); i < len - 3; i++)
		in[i] = "echo a; "[i % 8];
	memcpy(in + len - 3, "\"}}", 3);
	run_dcg(&r, hook_args, in, len, NULL, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err.s);
	assert_deny_json(r.out.s, "too large");
	run_free(&r);
	free(in);
}

/* 300,000 words: the call's input, its parse and the shell analysis's many small blocks
 * fill the hook's 1 MiB allocation area (cli/hook_alloc.c) and go on in glibc's heap.
 * The call is still decided, with an exit of 0: a block placed past the area's end
 * corrupted glibc's heap and ended in the fail-closed handler's exit 2. */
Test(cli, hook_decides_a_call_that_fills_its_allocation_area)
{
	const char *head = "{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"echo ";
	const char *tail = "; rm -rf ~\"}}";
	size_t words = 300000, len = strlen(head) + 2 * words + strlen(tail), at;
	char *in = malloc(len);
	struct run r;

	cr_assert(in);
	memcpy(in, head, strlen(head));
	for (at = strlen(head); at < strlen(head) + 2 * words; at += 2)
		memcpy(in + at, "a ", 2);
	memcpy(in + at, tail, strlen(tail));
	run_dcg(&r, hook_args, in, len, NULL, NULL);
	cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err.s);
	assert_deny_json(r.out.s, "shell.parse.too_complex");
	cr_assert_null(strstr(r.err.s, "internal error"), "%s", r.err.s);
	run_free(&r);
	free(in);
}

Test(cli, hook_unknown_agent_refuses_with_exit_2)
{
	const char *const args[] = {"hook", "--agent", "nonesuch", NULL};
	const char *in = "{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls\"}}";
	struct run r;

	run_dcg(&r, args, in, strlen(in), NULL, NULL);
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err.s, "refused"));
	run_free(&r);
}

Test(cli, hook_deny_is_written_to_the_audit_log)
{
	const char *in = "{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"golden-danger\"},"
			 "\"cwd\":\"/tmp\"}";
	const char *const log_args[] = {"log", "--json", NULL};
	char env[600], *log;
	struct run r;

	write_file("golden.yaml", golden_policy);
	snprintf(env, sizeof(env), "DCG_POLICY=%s/golden.yaml", tmpdir);
	run_dcg(&r, hook_args, in, strlen(in), NULL, env);
	cr_assert_eq(r.status, 0);
	run_free(&r);
	log = read_rel("audit.jsonl");
	cr_assert(log, "no audit log");
	cr_assert(strstr(log, "\"decision\":\"deny\""), "%s", log);
	cr_assert(strstr(log, "\"layer\":\"hook\""), "%s", log);
	cr_assert(strstr(log, ".bash.1\""), "%s", log);
	free(log);
	run_dcg(&r, log_args, NULL, 0, NULL, NULL);
	cr_assert_eq(r.status, 0);
	cr_assert(strstr(r.out.s, "\"decision\":\"deny\""));
	run_free(&r);
}

Test(cli, broken_policy_file_warns_and_keeps_the_defaults)
{
	const char *in =
	    "{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"git reset --hard\"}}";
	char env[600];
	struct run r;

	write_file("broken.yaml",
		   "bashToolPatterns:\n  - pattern: '(unclosed'\n    reason: x\n  - [\n");
	snprintf(env, sizeof(env), "DCG_POLICY=%s/broken.yaml", tmpdir);
	run_dcg(&r, hook_args, in, strlen(in), NULL, env);
	cr_assert_eq(r.status, 0);
	cr_assert(strstr(r.err.s, "broken.yaml:"), "no diagnostic: %s", r.err.s);
	assert_deny_json(r.out.s, "core.git.reset_hard");
	run_free(&r);

	snprintf(env, sizeof(env), "DCG_POLICY=%s/missing.yaml", tmpdir);
	run_dcg(&r, hook_args, in, strlen(in), NULL, env);
	cr_assert(strstr(r.err.s, "missing.yaml"), "no diagnostic: %s", r.err.s);
	assert_deny_json(r.out.s, "core.git.reset_hard");
	run_free(&r);
}

struct exit_case {
	const char *const args[8];
	int status;
};

Test(cli, check_exit_codes)
{
	static const struct exit_case cases[] = {
	    {{"check", "ls", "-la", NULL}, 0},
	    {{"check", "git reset --hard", NULL}, 2},
	    {{"check", "--json", "git", "reset", "--hard", NULL}, 2},
	    {{"check", "--policy", "tests/golden/ask_policy.yaml", "please-ask-me", NULL}, 3},
	    {{"check", NULL}, 1},
	    {{"check", "--bogus", "ls", NULL}, 1},
	    {{"check", "--tool", "Read", "~/.ssh/id_rsa", NULL}, 2},
	    {{"check", "--tool", "Write", "notes.txt", NULL}, 0},
	    {{"nonesuch", NULL}, 1},
	    {{"--version", NULL}, 0},
	    {{"--help", NULL}, 0},
	};
	char cwd[1024];
	size_t i;

	cr_assert(getcwd(cwd, sizeof(cwd)));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct run r;
		run_dcg(&r, cases[i].args, NULL, 0, cwd, NULL);
		cr_assert_eq(r.status, cases[i].status, "case %zu (%s %s): exit %d\n%s%s", i,
			     cases[i].args[0], cases[i].args[1] ? cases[i].args[1] : "", r.status,
			     r.out.s, r.err.s);
		run_free(&r);
	}
}

Test(cli, check_json_is_the_decision_record)
{
	const char *const args[] = {"check", "--json", "git reset --hard", NULL};
	struct run r;
	cJSON *o;

	run_dcg(&r, args, NULL, 0, NULL, NULL);
	o = cJSON_Parse(r.out.s);
	cr_assert(o, "%s", r.out.s);
	cr_assert_str_eq(cJSON_GetObjectItem(o, "decision")->valuestring, "deny");
	cr_assert_str_eq(cJSON_GetObjectItem(o, "rule_id")->valuestring, "core.git.reset_hard");
	cr_assert(cJSON_IsArray(cJSON_GetObjectItem(o, "suggestions")));
	cJSON_Delete(o);
	run_free(&r);
}

Test(cli, every_command_has_help)
{
	static const char *const cmds[] = {"hook",   "check", "explain", "allow",     "rules",
					   "status", "log",   "install", "uninstall", "packs"};
	size_t i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		const char *const args[] = {cmds[i], "--help", NULL};
		struct run r;
		run_dcg(&r, args, NULL, 0, NULL, NULL);
		cr_assert_eq(r.status, 0, "%s --help: %d", cmds[i], r.status);
		cr_assert(strstr(r.out.s, "usage: dcg"), "%s --help: %s", cmds[i], r.out.s);
		run_free(&r);
	}
}

Test(cli, allow_appends_to_an_existing_project_file)
{
	const char *before = "# project rules: keep this comment\n"
			     "readOnlyPaths: [package-lock.json]  # and this one\n";
	const char *const args[] = {"allow",	    "core.git.reset_hard", "-r",
				    "scratch repo", "--project",	   NULL};
	const char *const again[] = {"check", "git reset --hard", NULL};
	const char *const trust[] = {"trust", NULL};
	char dir[512], *after;
	struct run r;

	snprintf(dir, sizeof(dir), "%s/.dcg", tmpdir);
	cr_assert_eq(mkdir(dir, 0755), 0);
	write_file(".dcg/policy.yaml", before);
	/* the user trusts the project file; the edit keeps it trusted */
	run_dcg(&r, trust, NULL, 0, NULL, NULL);
	cr_assert_eq(r.status, 0, "%s%s", r.out.s, r.err.s);
	run_free(&r);
	run_dcg(&r, args, NULL, 0, NULL, NULL);
	cr_assert_eq(r.status, 0, "%s%s", r.out.s, r.err.s);
	run_free(&r);
	after = read_rel(".dcg/policy.yaml");
	cr_assert_eq(strncmp(after, before, strlen(before)), 0, "lost text:\n%s", after);
	cr_assert_str_eq(after + strlen(before),
			 "allow:\n  - rule: core.git.reset_hard\n    reason: \"scratch repo\"\n");
	free(after);
	/* and the rule no longer refuses here */
	run_dcg(&r, again, NULL, 0, NULL, NULL);
	cr_assert_eq(r.status, 0, "%s%s", r.out.s, r.err.s);
	run_free(&r);
}

Test(cli, allow_refuses_an_unknown_rule_with_suggestions)
{
	const char *const args[] = {"allow", "core.git.reset_hadr", "-r", "x", "--user", NULL};
	struct run r;
	char *user;

	run_dcg(&r, args, NULL, 0, NULL, NULL);
	cr_assert_eq(r.status, 1);
	cr_assert(strstr(r.err.s, "core.git.reset_hard"), "no suggestion: %s", r.err.s);
	run_free(&r);
	user = read_rel(".config/dcg/policy.yaml");
	cr_assert_null(user, "a file was written");
}

Test(cli, install_merges_into_existing_settings_and_uninstall_restores_them)
{
	const char *settings = "{\"model\": \"opus\", \"hooks\": {\"PreToolUse\": ["
			       "{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", "
			       "\"command\": \"mine\"}]}]}}\n";
	const char *const inst[] = {"install", "--agent", "claude", "--project", "--force", NULL};
	const char *const uninst[] = {"uninstall", "--agent", "claude", NULL};
	char dir[512], *once, *twice, *gone;
	cJSON *a, *b;
	struct run r;

	snprintf(dir, sizeof(dir), "%s/.claude", tmpdir);
	cr_assert_eq(mkdir(dir, 0755), 0);
	write_file(".claude/settings.json", settings);
	run_dcg(&r, inst, NULL, 0, NULL, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err.s);
	run_free(&r);
	once = read_rel(".claude/settings.json");
	cr_assert(strstr(once, "hook --agent claude"));
	cr_assert(strstr(once, HOOK_CLAUDE_MATCHER));
	cr_assert(strstr(once, "\"mine\""));
	run_dcg(&r, inst, NULL, 0, NULL, NULL);
	cr_assert_eq(r.status, 0);
	cr_assert(strstr(r.out.s, "already"), "%s", r.out.s);
	run_free(&r);
	twice = read_rel(".claude/settings.json");
	cr_assert_str_eq(once, twice);
	run_dcg(&r, uninst, NULL, 0, NULL, NULL);
	cr_assert_eq(r.status, 0);
	run_free(&r);
	gone = read_rel(".claude/settings.json");
	a = cJSON_Parse(settings);
	b = cJSON_Parse(gone);
	cr_assert(cJSON_Compare(a, b, 1), "%s", gone);
	cJSON_Delete(a);
	cJSON_Delete(b);
	free(once);
	free(twice);
	free(gone);
}

Test(cli, status_names_rule_count_and_last_violation)
{
	const char *in =
	    "{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"git reset --hard\"}}";
	const char *const args[] = {"status", NULL};
	struct run r;

	run_dcg(&r, hook_args, in, strlen(in), NULL, NULL);
	run_free(&r);
	run_dcg(&r, args, NULL, 0, NULL, NULL);
	cr_assert_eq(r.status, 0);
	cr_assert(strncmp(r.out.s, "dcg active: ", 12) == 0, "%s", r.out.s);
	cr_assert(strstr(r.out.s, "<embedded>"), "%s", r.out.s);
	cr_assert(strstr(r.out.s, "last violation: ") && strstr(r.out.s, "core.git.reset_hard"),
		  "%s", r.out.s);
	run_free(&r);
}

/* Does the `dcg packs` line of pack say state in its ENABLED column? */
static int pack_state(const char *out, const char *pack, const char *state)
{
	char name[64], st[16];
	for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (sscanf(l, "%63s %15s", name, st) == 2 && !strcmp(name, pack))
			return !strcmp(st, state);
	return 0;
}

/* dcg packs: every pack, on or off, with its rule count and what it guards; a pack
 * named in a policy file's packs: is on. */
Test(cli, packs_lists_every_pack_on_or_off)
{
	const char *const args[] = {"packs", NULL};
	char path[512], yaml[] = "packs: [kubernetes]\n";
	const char *const with[] = {"packs", "--policy", path, NULL};
	struct run r;
	FILE *f;

	run_dcg(&r, args, NULL, 0, NULL, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err.s);
	cr_assert(strstr(r.out.s, "PACK"), "%s", r.out.s);
	cr_assert(strstr(r.out.s, "\ncore.git ") && strstr(r.out.s, "\nkubernetes "), "%s",
		  r.out.s);
	/* its deletions are on by default, its drain and scale rules opt-in */
	cr_assert(pack_state(r.out.s, "kubernetes", "partly"), "%s", r.out.s);
	cr_assert(pack_state(r.out.s, "remote", "no"), "%s", r.out.s);
	cr_assert(pack_state(r.out.s, "core.filesystem", "yes"), "%s", r.out.s);
	cr_assert(strstr(r.out.s, "workloads, volumes and nodes"), "%s", r.out.s);
	run_free(&r);
	snprintf(path, sizeof(path), "%s/packs.yaml", tmpdir);
	f = fopen(path, "w");
	cr_assert(f);
	fputs(yaml, f);
	fclose(f);
	run_dcg(&r, with, NULL, 0, NULL, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err.s);
	cr_assert(pack_state(r.out.s, "kubernetes", "yes"), "%s", r.out.s);
	run_free(&r);
}

/* dcg rules lint FILE decides the examples of the file's rules (one off by default
 * too) and fails on one that does not hold; dcg packs --verbose shows every rule with
 * its examples, the embedded packs' and the user's. */
Test(cli, rules_lint_decides_examples_and_packs_verbose_shows_them)
{
	const char *const lint[] = {"rules", "lint", "mine.yaml", NULL};
	const char *const verbose[] = {"packs", "--verbose", "--policy", "mine.yaml", NULL};
	struct run r;

	write_file("mine.yaml", "rules:\n  - id: mine.drop\n    pattern: '^mytool\\s+drop\\b'\n"
				"    reason: drops it\n    enabled: false\n    examples:\n"
				"      stop: ['mytool drop t']\n      pass: ['mytool list']\n");
	run_dcg(&r, lint, NULL, 0, NULL, NULL);
	cr_assert_eq(r.status, 0, "%s", r.out.s);
	cr_assert(strstr(r.out.s, "0 of 2 examples wrong"), "%s", r.out.s);
	run_free(&r);
	run_dcg(&r, verbose, NULL, 0, NULL, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err.s);
	cr_assert(strstr(r.out.s, "mine.drop") && strstr(r.out.s, "stop: mytool drop t") &&
		      strstr(r.out.s, "pass: mytool list"),
		  "%s", r.out.s);
	cr_assert(strstr(r.out.s, "cloud.terraform_destroy") &&
		      strstr(r.out.s, "stop: terraform destroy"),
		  "%s", r.out.s);
	run_free(&r);
	write_file("mine.yaml", "rules:\n  - id: mine.drop\n    pattern: '^mytool\\s+drop\\b'\n"
				"    reason: drops it\n    examples:\n"
				"      stop: ['mytool list']\n      pass: ['mytool drop t']\n");
	run_dcg(&r, lint, NULL, 0, NULL, NULL);
	cr_assert_eq(r.status, 1, "%s", r.out.s);
	cr_assert(strstr(r.out.s, "mine.yaml:6: mine.drop: stop example: mytool list") &&
		      strstr(r.out.s, "mine.yaml:7: mine.drop: pass example: mytool drop t") &&
		      strstr(r.out.s, "2 of 2 examples wrong"),
		  "%s", r.out.s);
	run_free(&r);
}

Test(cli, rules_list_and_lint)
{
	const char *const list[] = {"rules", "list", NULL};
	const char *const lint_bad[] = {"rules", "lint", "bad.yaml", NULL};
	const char *const lint_good[] = {"rules", "lint", "good.yaml", NULL};
	struct run r;

	run_dcg(&r, list, NULL, 0, NULL, NULL);
	cr_assert_eq(r.status, 0);
	cr_assert(strstr(r.out.s, "core.git.reset_hard"));
	cr_assert(strstr(r.out.s, "<embedded>"));
	run_free(&r);
	write_file("bad.yaml", "bashToolPatterns:\n  - pattern: '(unclosed'\n    reason: x\n");
	run_dcg(&r, lint_bad, NULL, 0, NULL, NULL);
	cr_assert_eq(r.status, 1, "%s", r.out.s);
	cr_assert(strstr(r.out.s, "bad.yaml:2:"), "%s", r.out.s);
	run_free(&r);
	write_file("good.yaml", golden_policy);
	run_dcg(&r, lint_good, NULL, 0, NULL, NULL);
	cr_assert_eq(r.status, 0, "%s", r.out.s);
	cr_assert(strstr(r.out.s, "1 rules, 0 problems"), "%s", r.out.s);
	run_free(&r);
}
