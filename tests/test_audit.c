/* test_audit.c - the audit log: where it goes, what one line holds (parsed back with
 * cJSON), redaction and cuts, hostile text, failures that never change a decision, and
 * 8 concurrent writer processes of 1,000 lines each with no line torn. */
#include "dcg_policy.h"
#include "internal.h"

#include <cJSON.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char tmpdir[] = "/tmp/dcg-test-audit.XXXXXX";
static char logfile[1024];

static void teardown(void);

/* A skipped test does not reach the suite's .fini: the removal is also left to atexit. */
static void setup(void)
{
	cr_assert_not_null(mkdtemp(tmpdir));
	atexit(teardown);
	snprintf(logfile, sizeof(logfile), "%s/audit.jsonl", tmpdir);
	cr_assert_eq(setenv("DCG_LOG", logfile, 1), 0);
}

static void teardown(void)
{
	static int done;
	char cmd[1100];

	if (done++)
		return;
	snprintf(cmd, sizeof(cmd), "chmod -R u+rwx '%s'; rm -rf '%s'", tmpdir, tmpdir);
	if (system(cmd) != 0)
		cr_log_warn("could not remove %s", tmpdir);
}

TestSuite(audit, .init = setup, .fini = teardown, .timeout = 60);

/* Reads the whole log; the caller frees. */
static char *read_log(size_t *len)
{
	FILE *f = fopen(logfile, "r");
	char *buf;
	long n;

	cr_assert_not_null(f, "%s: %s", logfile, strerror(errno));
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	cr_assert_not_null(buf);
	cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* A deny result as decide.c fills it, with policy-owned strings replaced by literals. */
static void deny_result(struct pol_result *r)
{
	static const char *const sugg[] = {"Use git stash"};

	pol_result_init(r);
	r->decision = POL_DENY;
	r->severity = POL_SEV_HIGH;
	r->detection = POL_DET_COMMAND;
	r->rule_id = "core.git.reset_hard";
	r->reason = "git reset --hard destroys uncommitted work";
	r->suggestions = sugg;
	r->n_suggestions = 1;
}

static const char *jstr(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

Test(audit, log_path_follows_dcg_log_then_xdg_state_home_then_home)
{
	char buf[PATH_MAX];

	cr_assert_eq(pol_log_path(buf, sizeof(buf)), 0);
	cr_expect_str_eq(buf, logfile);
	unsetenv("DCG_LOG");
	setenv("XDG_STATE_HOME", "/xdg/state", 1);
	cr_assert_eq(pol_log_path(buf, sizeof(buf)), 0);
	cr_expect_str_eq(buf, "/xdg/state/dcg/audit.jsonl");
	unsetenv("XDG_STATE_HOME");
	setenv("HOME", "/home/someone", 1);
	cr_assert_eq(pol_log_path(buf, sizeof(buf)), 0);
	cr_expect_str_eq(buf, "/home/someone/.local/state/dcg/audit.jsonl");
	cr_expect_eq(pol_log_path(buf, 8), -ENAMETOOLONG);
}

/* The paths above are joined by pol_cat3, which must cut and count as snprintf does. */
Test(audit, paths_are_joined_and_cut_as_snprintf_would)
{
	static const char *const parts[][3] = {
	    {"/home/someone", "/.local/state/dcg/audit.jsonl", ""},
	    {"", "", ""},
	    {"/", "", ".orchestration/active_intents.yaml"},
	    {"a", "b", "c"},
	};

	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		for (size_t size = 0; size < 64; size++) {
			char a[64], b[64];
			int n;

			memset(a, 'x', sizeof(a));
			memset(b, 'x', sizeof(b));
			n = snprintf(b, size, "%s%s%s", parts[i][0], parts[i][1], parts[i][2]);
			cr_assert_eq(pol_cat3(a, size, parts[i][0], parts[i][1], parts[i][2]),
				     (size_t)n, "row %zu, size %zu", i, size);
			cr_assert(!memcmp(a, b, sizeof(a)), "row %zu, size %zu", i, size);
		}
	}
}

Test(audit, one_line_is_valid_json_with_every_field)
{
	struct pol_result r;
	struct pol_log_entry e = {.layer = "hook",
				  .tool = "Bash",
				  .input = "git reset --hard",
				  .agent = "claude",
				  .cwd = "/srv/dcg-corpus/repo",
				  .result = &r};
	size_t len;
	char *log;
	cJSON *j;

	deny_result(&r);
	cr_assert_eq(pol_log_append(&e), 0);
	log = read_log(&len);
	cr_assert_gt(len, 0);
	cr_expect_eq(log[len - 1], '\n', "a line ends with a newline");
	cr_expect_eq(memchr(log, '\n', len), log + len - 1, "exactly one line");
	j = cJSON_Parse(log);
	cr_assert_not_null(j, "not JSON: %s", log);
	cr_expect_not_null(jstr(j, "time"));
	cr_expect_eq(strlen(jstr(j, "time")), strlen("2026-01-01T00:00:00.000Z"));
	cr_expect_str_eq(jstr(j, "layer"), "hook");
	cr_expect_str_eq(jstr(j, "tool"), "Bash");
	cr_expect_str_eq(jstr(j, "agent"), "claude");
	cr_expect_str_eq(jstr(j, "input"), "git reset --hard");
	cr_expect_str_eq(jstr(j, "decision"), "deny");
	cr_expect_str_eq(jstr(j, "rule_id"), "core.git.reset_hard");
	cr_expect_str_eq(jstr(j, "reason"), "git reset --hard destroys uncommitted work");
	cr_expect_str_eq(jstr(j, "severity"), "high");
	cr_expect_str_eq(jstr(j, "detection"), "command");
	cr_expect_str_eq(jstr(j, "cwd"), "/srv/dcg-corpus/repo");
	const cJSON *pid = cJSON_GetObjectItemCaseSensitive(j, "pid");
	cr_expect(cJSON_IsNumber(pid));
	cr_expect_eq((pid_t)pid->valuedouble, getpid());
	cJSON_Delete(j);
	free(log);
}

Test(audit, path_decisions_log_the_path_and_operation)
{
	struct pol_result r;
	struct pol_log_entry e = {
	    .layer = "preload", .tool = "unlink", .input = "/etc/passwd", .result = &r};
	size_t len;
	char *log;
	cJSON *j;

	deny_result(&r);
	r.detection = POL_DET_PATH;
	r.op = POL_OP_DELETE;
	snprintf(r.path, sizeof(r.path), "/etc/passwd");
	cr_assert_eq(pol_log_append(&e), 0);
	log = read_log(&len);
	j = cJSON_Parse(log);
	cr_assert_not_null(j, "%s", log);
	cr_expect_str_eq(jstr(j, "path"), "/etc/passwd");
	cr_expect_str_eq(jstr(j, "op"), "delete");
	cr_expect_str_eq(jstr(j, "detection"), "path");
	cr_expect(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(j, "cwd")), "no cwd: null");
	cJSON_Delete(j);
	free(log);
}

Test(audit, input_is_redacted_and_cut)
{
	struct pol_result r;
	char big[4000];
	struct pol_log_entry e = {.layer = "hook", .tool = "Bash", .result = &r};
	size_t len;
	char *log, *line;
	cJSON *j;

	deny_result(&r);
	e.input = "curl -H 'Authorization: Bearer s3cr3t' https://x";
	cr_assert_eq(pol_log_append(&e), 0);
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	e.input = big;
	cr_assert_eq(pol_log_append(&e), 0);
	log = read_log(&len);
	cr_expect_null(strstr(log, "s3cr3t"), "the secret never reaches the log");
	line = log;
	char *nl = strchr(line, '\n');
	cr_assert_not_null(nl);
	*nl = '\0';
	j = cJSON_Parse(line);
	cr_assert_not_null(j);
	/* only the secret goes: the header's name and the rest show what was done */
	cr_expect_str_eq(jstr(j, "input"), "curl -H 'Authorization: Bearer ***' https://x");
	cJSON_Delete(j);
	line = nl + 1;
	j = cJSON_Parse(line);
	cr_assert_not_null(j, "%.200s", line);
	cr_expect_leq(strlen(jstr(j, "input")), 303, "input cut to 300 characters and '...'");
	cJSON_Delete(j);
	free(log);
}

Test(audit, control_characters_quotes_and_backslashes_stay_valid_json)
{
	struct pol_result r;
	struct pol_log_entry e = {.layer = "hook\"x",
				  .tool = "Ba\\sh",
				  .input = "a\tb\nc\x01\x7f\"",
				  .cwd = "/we\"ird\n",
				  .result = &r};
	size_t len;
	char *log;
	cJSON *j;

	deny_result(&r);
	r.reason = "reason with \"quotes\" and \\ and \x1b[31m escape";
	cr_assert_eq(pol_log_append(&e), 0);
	log = read_log(&len);
	cr_expect_eq(memchr(log, '\n', len), log + len - 1, "a raw newline never splits the line");
	j = cJSON_Parse(log);
	cr_assert_not_null(j, "%s", log);
	cr_expect_str_eq(jstr(j, "layer"), "hook\"x");
	cr_expect_str_eq(jstr(j, "tool"), "Ba\\sh");
	cr_expect_str_eq(jstr(j, "cwd"), "/we\"ird\n");
	cr_expect_str_eq(jstr(j, "reason"), "reason with \"quotes\" and \\ and \x1b[31m escape");
	cJSON_Delete(j);
	free(log);
}

Test(audit, every_field_at_its_longest_still_makes_one_valid_line)
{
	static char huge[8192];
	struct pol_result r;
	struct pol_log_entry e = {
	    .layer = huge, .tool = huge, .input = huge, .agent = huge, .cwd = huge, .result = &r};
	size_t len;
	char *log;
	cJSON *j;

	/* Characters that escape to six bytes each, to push every field to its cap. */
	memset(huge, '\x01', sizeof(huge) - 1);
	deny_result(&r);
	r.reason = huge;
	r.rule_id = huge;
	r.detection = POL_DET_PATH;
	memset(r.path, '"', sizeof(r.path) - 1);
	r.path[sizeof(r.path) - 1] = '\0';
	cr_assert_eq(pol_log_append(&e), 0);
	log = read_log(&len);
	cr_expect_leq(len, 4096, "one line fits one write of at most 4 KiB");
	cr_expect_eq(log[len - 1], '\n');
	j = cJSON_Parse(log);
	cr_expect_not_null(j, "cut line is still JSON: %.300s", log);
	cJSON_Delete(j);
	free(log);
}

/* Strict UTF-8 (no overlong forms, no surrogates): a log line must decode. */
static int utf8_ok(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned c = s[i], k, cp;

		if (c < 0x80) {
			i++;
			continue;
		}
		k = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc2 ? 1 : 0;
		if (!k || c > 0xf4 || i + k >= n)
			return 0;
		cp = c & (0x3f >> k);
		for (unsigned j = 1; j <= k; j++) {
			if ((s[i + j] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (s[i + j] & 0x3f);
		}
		if ((k == 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
		    (k == 3 && (cp < 0x10000 || cp > 0x10ffff)))
			return 0;
		i += k + 1;
	}
	return 1;
}

/* Every way a field can be cut: by its own cap in the middle of a multi-byte character,
 * or by the 4 KiB line in the middle of an escape. Each line must stay JSON and UTF-8. */
Test(audit, cut_fields_never_split_an_escape_or_a_character)
{
	static char text[8192];
	struct pol_result r;
	size_t len;
	char *log;

	for (int shift = 0; shift < 24; shift++) {
		size_t o = 0;

		for (int i = 0; i < shift; i++)
			text[o++] = 'a';
		while (o + 3 < sizeof(text)) {
			static const char mix[] = {'"', '\\', '\x01', '\xc3', '\xa9', 'x'};
			/* é kept whole: c3 a9 always in a pair */
			size_t m = (o * 7) % sizeof(mix);
			if (mix[m] == '\xc3' || mix[m] == '\xa9') {
				text[o++] = '\xc3';
				text[o++] = '\xa9';
			} else {
				text[o++] = mix[m];
			}
		}
		text[o] = '\0';
		deny_result(&r);
		r.reason = text;
		r.rule_id = text + 1;
		r.detection = POL_DET_PATH;
		/* the path is the engine's own (already cut) buffer: ASCII escapes only */
		for (size_t i = 0; i + 1 < sizeof(r.path); i++)
			r.path[i] = "\"\\\x01x"[(i + (size_t)shift) % 4];
		r.path[sizeof(r.path) - 1] = '\0';
		struct pol_log_entry e = {.layer = text,
					  .tool = text,
					  .input = text,
					  .agent = text,
					  .cwd = text + 3,
					  .result = &r};
		cr_assert_eq(pol_log_append(&e), 0);
	}
	log = read_log(&len);
	size_t lines = 0;
	for (char *line = log, *end; line < log + len; line = end + 1) {
		end = memchr(line, '\n', (size_t)(log + len - line));
		cr_assert_not_null(end);
		*end = '\0';
		cr_expect(utf8_ok((const unsigned char *)line, (size_t)(end - line)),
			  "line %zu is not UTF-8", lines + 1);
		cJSON *j = cJSON_Parse(line);
		cr_expect_not_null(j, "line %zu is not JSON: ...%s", lines + 1,
				   end - line > 80 ? end - 80 : line);
		cJSON_Delete(j);
		lines++;
	}
	cr_expect_eq(lines, 24);
	free(log);
}

Test(audit, bytes_that_are_not_utf8_become_replacement_characters)
{
	struct pol_result r;
	struct pol_log_entry e = {.layer = "preload",
				  .tool = "open",
				  .input = "/tmp/\xff\xfe/\xed\xa0\x80/caf\xc3\xa9",
				  .result = &r};
	size_t len;
	char *log;
	cJSON *j;

	deny_result(&r);
	cr_assert_eq(pol_log_append(&e), 0);
	log = read_log(&len);
	cr_expect(utf8_ok((const unsigned char *)log, len), "%s", log);
	j = cJSON_Parse(log);
	cr_assert_not_null(j, "%s", log);
	cr_expect_str_eq(jstr(j, "input"), "/tmp/\xef\xbf\xbd\xef\xbf\xbd/\xef\xbf\xbd\xef\xbf\xbd"
					   "\xef\xbf\xbd/caf\xc3\xa9");
	cJSON_Delete(j);
	free(log);
}

Test(audit, missing_folders_are_created)
{
	struct pol_result r;
	struct pol_log_entry e = {.layer = "hook", .tool = "Bash", .input = "x", .result = &r};
	struct stat st;

	snprintf(logfile, sizeof(logfile), "%s/a/b/c/audit.jsonl", tmpdir);
	setenv("DCG_LOG", logfile, 1);
	deny_result(&r);
	cr_assert_eq(pol_log_append(&e), 0);
	cr_expect_eq(stat(logfile, &st), 0);
	cr_expect_eq(st.st_mode & 0777, 0600, "the log is private");
}

Test(audit, failure_to_log_returns_an_error_and_keeps_errno)
{
	struct pol_result r;
	struct pol_log_entry e = {.layer = "hook", .tool = "Bash", .input = "x", .result = &r};
	char dir[1100];

	if (geteuid() == 0)
		cr_skip_test("root writes through permissions");
	snprintf(dir, sizeof(dir), "%s/ro", tmpdir);
	cr_assert_eq(mkdir(dir, 0500), 0);
	snprintf(logfile, sizeof(logfile), "%s/ro/audit.jsonl", tmpdir);
	setenv("DCG_LOG", logfile, 1);
	deny_result(&r);
	errno = 1234;
	cr_expect_lt(pol_log_append(&e), 0);
	cr_expect_eq(errno, 1234);
	cr_expect_eq(r.decision, POL_DENY, "the decision is untouched");
}

Test(audit, unwritable_log_path_is_an_error_not_a_crash)
{
	struct pol_result r;
	struct pol_log_entry e = {.layer = "hook", .tool = "Bash", .input = "x", .result = &r};
	char f[1100];

	/* A regular file where a folder should be: no root bypass for this one. */
	snprintf(f, sizeof(f), "%s/file", tmpdir);
	FILE *fp = fopen(f, "w");
	cr_assert_not_null(fp);
	fclose(fp);
	snprintf(logfile, sizeof(logfile), "%s/file/sub/audit.jsonl", tmpdir);
	setenv("DCG_LOG", logfile, 1);
	deny_result(&r);
	errno = 4321;
	cr_expect_lt(pol_log_append(&e), 0);
	cr_expect_eq(errno, 4321, "errno is preserved");
}

Test(audit, a_symlink_at_the_log_path_is_not_followed)
{
	struct pol_result r;
	struct pol_log_entry e = {.layer = "hook", .tool = "Bash", .input = "x", .result = &r};
	char target[1100];
	struct stat st;

	snprintf(target, sizeof(target), "%s/elsewhere", tmpdir);
	cr_assert_eq(symlink(target, logfile), 0);
	deny_result(&r);
	cr_expect_lt(pol_log_append(&e), 0);
	cr_expect_neq(stat(target, &st), 0, "nothing was written through the link");
}

#define WRITERS 8
#define LINES	1000

Test(audit, concurrent_writers_never_tear_a_line)
{
	pid_t pids[WRITERS];
	size_t len, n = 0;
	unsigned counts[WRITERS] = {0};
	char *log;

	for (int w = 0; w < WRITERS; w++) {
		pids[w] = fork();
		cr_assert_geq(pids[w], 0);
		if (pids[w] == 0) {
			struct pol_result r;
			char input[600];
			int bad = 0;

			deny_result(&r);
			for (int i = 0; i < LINES; i++) {
				/* Long lines (~1 KB) make interleaving likelier if writes split. */
				int k = snprintf(input, sizeof(input), "writer %d line %d ", w, i);
				memset(input + k, 'a' + w, sizeof(input) - 1 - (size_t)k);
				input[sizeof(input) - 1] = '\0';
				struct pol_log_entry e = {.layer = "test",
							  .tool = "Bash",
							  .input = input,
							  .cwd = "/x",
							  .result = &r};
				if (pol_log_append(&e) != 0)
					bad = 1;
			}
			_exit(bad);
		}
	}
	for (int w = 0; w < WRITERS; w++) {
		int st;

		cr_assert_eq(waitpid(pids[w], &st, 0), pids[w]);
		cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "writer %d had a failed append",
			  w);
	}
	log = read_log(&len);
	for (char *line = log, *end; line < log + len; line = end + 1) {
		end = memchr(line, '\n', (size_t)(log + len - line));
		cr_assert_not_null(end, "the log ends with a newline");
		*end = '\0';
		cJSON *j = cJSON_Parse(line);
		cr_assert_not_null(j, "line %zu is torn: %.120s", n + 1, line);
		const char *in = jstr(j, "input");
		int w = -1, i = -1, off = 0;
		cr_assert_not_null(in);
		cr_assert_eq(sscanf(in, "writer %d line %d %n", &w, &i, &off), 2, "%s", in);
		cr_assert(w >= 0 && w < WRITERS && off > 0);
		/* The logger cuts the input to 300 characters and marks the cut. */
		size_t tail = strlen(in + off);
		cr_assert_gt(tail, 3);
		cr_assert_str_eq(in + off + tail - 3, "...", "line %zu: cut marked", n + 1);
		for (const char *c = in + off; c < in + off + tail - 3; c++)
			cr_assert_eq(*c, 'a' + w, "line %zu mixes writers", n + 1);
		counts[w]++;
		cJSON_Delete(j);
		n++;
	}
	cr_expect_eq(n, WRITERS * LINES);
	for (int w = 0; w < WRITERS; w++)
		cr_expect_eq(counts[w], LINES, "writer %d: %u lines", w, counts[w]);
	free(log);
}

/* ---- after fork ------------------------------------------------------------------------ */

static volatile int hammering = 1;

static void *hammer_time(void *arg)
{
	(void)arg;
	while (hammering) {
		time_t t = time(NULL);
		struct tm tm;

		gmtime_r(&t, &tm);
		localtime_r(&t, &tm);
	}
	return NULL;
}

/* The preload logs in a child between fork and exec. If the logger took a libc lock
 * (gmtime_r takes glibc's tz lock) that another thread held at the fork, the child
 * would wait forever: found as a hang in the preload's stress test. */
Test(audit, logging_in_a_child_forked_while_another_thread_formats_time_never_hangs)
{
	pthread_t th;
	int hung = 0;

	cr_assert_eq(pthread_create(&th, NULL, hammer_time, NULL), 0);
	for (int i = 0; i < 300 && !hung; i++) {
		pid_t pid = fork();
		int st;

		cr_assert_geq(pid, 0);
		if (pid == 0) {
			struct pol_result r;
			struct pol_log_entry e = {
			    .layer = "preload", .tool = "unlink", .input = "x", .result = &r};

			alarm(5);
			deny_result(&r);
			_exit(pol_log_append(&e) == 0 ? 0 : 1);
		}
		cr_assert_eq(waitpid(pid, &st, 0), pid);
		if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM)
			hung = 1;
	}
	hammering = 0;
	pthread_join(th, NULL);
	cr_expect_not(hung, "a child hung in pol_log_append");
}

/* The seconds of CLOCK_REALTIME, the clock the log reads: time() reads the coarse clock,
 * which may still show the previous second when the log writes the next. */
static time_t realtime_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec;
}

Test(audit, time_field_is_the_current_utc_time)
{
	struct pol_result r;
	struct pol_log_entry e = {.layer = "hook", .tool = "Bash", .input = "x", .result = &r};
	time_t before = realtime_now(), after;
	size_t len;
	char *log, want_a[32], want_b[32];
	struct tm tm;
	cJSON *j;

	deny_result(&r);
	cr_assert_eq(pol_log_append(&e), 0);
	after = realtime_now();
	log = read_log(&len);
	j = cJSON_Parse(log);
	cr_assert_not_null(j);
	gmtime_r(&before, &tm);
	strftime(want_a, sizeof(want_a), "%Y-%m-%dT%H:%M:%S", &tm);
	gmtime_r(&after, &tm);
	strftime(want_b, sizeof(want_b), "%Y-%m-%dT%H:%M:%S", &tm);
	const char *t = jstr(j, "time");
	cr_assert_not_null(t);
	cr_expect(strncmp(t, want_a, 19) == 0 || strncmp(t, want_b, 19) == 0, "%s vs %s", t,
		  want_a);
	cr_expect_eq(t[19], '.');
	cr_expect_eq(t[23], 'Z');
	cJSON_Delete(j);
	free(log);
}
