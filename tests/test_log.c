/* test_log.c - the audit log (policy/audit.c, policy/redact.c): only secrets are
 * redacted, so the log still shows what was targeted; an allowlisted pass names its
 * entry; the file rotates once at its size limit however many processes write at the
 * same time, and no line is lost or torn. */
#include "dcg_policy.h"

#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char tmpdir[] = "/tmp/dcg-test-log.XXXXXX";
static char logpath[256];

static void setup(void)
{
	cr_assert_not_null(mkdtemp(tmpdir));
	snprintf(logpath, sizeof(logpath), "%s/audit.jsonl", tmpdir);
	setenv("DCG_LOG", logpath, 1);
	unsetenv("DCG_LOG_MAX_BYTES");
}

static void teardown(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		cr_log_warn("cannot remove %s", tmpdir);
}

TestSuite(log, .init = setup, .fini = teardown, .timeout = 120);

/* ---- redaction ------------------------------------------------------------------------- */

static const struct {
	const char *in;
	int quoted;
	const char *want;
} redactions[] = {
    /* what was targeted stays */
    {"python3 -c \"import shutil; shutil.rmtree('/srv/data')\"", 0,
     "python3 -c \"import shutil; shutil.rmtree('/srv/data')\""},
    {"git commit -m 'stop using rm -rf'", 0, "git commit -m 'stop using rm -rf'"},
    {"git reset --hard 4b825dc642cb6eb9a060e54bf8d69288fbee4904", 0,
     "git reset --hard 4b825dc642cb6eb9a060e54bf8d69288fbee4904"},
    {"rm -rf node_modules/some_really_long_package_name_with_words/", 0,
     "rm -rf node_modules/some_really_long_package_name_with_words/"},
    /* credentials go */
    {"export AWS_SECRET_ACCESS_KEY=abcdEFGH1234ijklMNOP5678; rm -rf /", 0,
     "export AWS_SECRET_ACCESS_KEY=***; rm -rf /"},
    {"aws configure set aws_access_key_id AKIAABCDEFGHIJKLMNOP", 0,
     "aws configure set aws_access_key_id AKIA***"},
    {"git clone https://bob:hunter2@github.com/x/y", 0, "git clone https://bob:***@github.com/x/y"},
    {"curl -H 'Authorization: Bearer abc.def.ghi' https://api", 0,
     "curl -H 'Authorization: Bearer ***' https://api"},
    {"GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123 gh repo delete x", 0,
     "GITHUB_TOKEN=*** gh repo delete x"},
    {"echo ghp_abcdefghijklmnopqrstuvwxyz0123", 0, "echo ghp_***"},
    {"mysql --password=s3cret db", 0, "mysql --password=*** db"},
    {"vault login --token s.AbCdEf123456 now", 0, "vault login --token *** now"},
    {"{\"api_key\": \"k-123\"}", 0, "{\"api_key\": ***}"},
    {"echo dGhpc0lzQVNlY3JldEtleTEyMzQ1Njc4OTBBQkNERUY= | base64 -d", 0, "echo *** | base64 -d"},
    {"cat key.pem <<EOF\n-----BEGIN RSA PRIVATE KEY-----\nMIIabc\n-----END RSA PRIVATE KEY-----", 0,
     "cat key.pem <<EOF\n-----BEGIN PRIVATE KEY----- *** -----END RSA PRIVATE KEY-----"},
    /* on a zero-access path, what is read or written goes too */
    {"echo 'DB_URL=postgres://prod' > .env", 1, "echo '***' > .env"},
    {"cat > .env <<EOF\nA=1\nEOF", 1, "cat > .env <<EOF\n***"},
    {"cat ~/.ssh/id_rsa", 1, "cat ~/.ssh/id_rsa"},
};

Test(log, only_secrets_are_redacted)
{
	for (size_t k = 0; k < sizeof(redactions) / sizeof(redactions[0]); k++) {
		char out[1024];

		pol_redact_secrets(redactions[k].in, strlen(redactions[k].in), redactions[k].quoted,
				   out, sizeof(out));
		cr_expect_str_eq(out, redactions[k].want, "case %zu", k);
	}
}

Test(log, redaction_never_writes_past_its_buffer)
{
	static const char in[] = "TOKEN=abcdefghijklmnopqrstuvwxyz git push https://u:p@h/x";
	char out[16];

	for (size_t size = 1; size <= sizeof(out); size++) {
		memset(out, 'X', sizeof(out));
		size_t n = pol_redact_secrets(in, strlen(in), 1, out, size);
		cr_assert_lt(n, size);
		cr_assert_eq(out[n], '\0');
		for (size_t i = size; i < sizeof(out); i++)
			cr_assert_eq(out[i], 'X', "size %zu wrote byte %zu", size, i);
	}
}

/* ---- entries --------------------------------------------------------------------------- */

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = calloc(1, (size_t)n + 1);
	cr_assert_not_null(buf);
	cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return buf;
}

Test(log, an_allowlisted_pass_names_its_entry)
{
	struct pol_result r;
	struct pol_log_entry e = {"hook", "Bash", "git reset --hard", "claude", "/w", &r, 0};
	cJSON *o;
	char *text;

	pol_result_init(&r);
	r.rule_id = "core.git.reset_hard";
	r.allowed_by_allowlist = 1;
	r.allow_reason = "scratch repo";
	r.allow_origin = "/home/u/.config/dcg/policy.yaml";
	r.allow_line = 7;
	cr_assert_eq(pol_log_append(&e), 0);
	text = read_all(logpath);
	cr_assert_not_null(text);
	o = cJSON_Parse(text);
	cr_assert_not_null(o, "%s", text);
	cr_expect_str_eq(cJSON_GetObjectItem(o, "decision")->valuestring, "allow");
	cr_expect_str_eq(cJSON_GetObjectItem(o, "allowed_by")->valuestring, "scratch repo");
	cr_expect_str_eq(cJSON_GetObjectItem(o, "allow_file")->valuestring,
			 "/home/u/.config/dcg/policy.yaml");
	cr_expect_eq(cJSON_GetObjectItem(o, "allow_line")->valueint, 7);
	cr_expect_str_eq(cJSON_GetObjectItem(o, "input")->valuestring, "git reset --hard");
	cJSON_Delete(o);
	free(text);
}

/* ---- rotation under concurrent writers --------------------------------------------------- */

#define WRITERS 8
#define ENTRIES 200

static size_t count_lines(const char *path, size_t *bad)
{
	char *text = read_all(path), *p, *nl;
	size_t n = 0;

	if (!text)
		return 0;
	for (p = text; (nl = strchr(p, '\n')) != NULL; p = nl + 1) {
		cJSON *o;
		*nl = '\0';
		o = cJSON_Parse(p);
		if (!o || !cJSON_GetObjectItem(o, "pid"))
			(*bad)++;
		cJSON_Delete(o);
		n++;
	}
	if (*p)
		(*bad)++; /* a torn last line */
	free(text);
	return n;
}

Test(log, rotates_once_at_its_limit_with_concurrent_writers_losing_nothing)
{
	char rotated[300], big[200], num[32];
	size_t bad = 0, cur, old, line_len, limit;
	struct pol_result r;

	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	pol_result_init(&r);
	r.decision = POL_DENY;
	r.rule_id = "core.git.reset_hard";
	/* the limit: 60 % of what the writers write, so the file rotates exactly once and
	 * the new file stays under the limit */
	{
		struct pol_log_entry e = {"hook", "Bash", big, "claude", "/w", &r, 0};
		struct stat st;
		cr_assert_eq(pol_log_append(&e), 0);
		cr_assert_eq(stat(logpath, &st), 0);
		limit = (size_t)st.st_size * WRITERS * ENTRIES * 6 / 10;
		unlink(logpath);
	}
	snprintf(num, sizeof(num), "%zu", limit);
	setenv("DCG_LOG_MAX_BYTES", num, 1);
	for (int w = 0; w < WRITERS; w++) {
		pid_t pid = fork();
		cr_assert_geq(pid, 0);
		if (pid == 0) {
			struct pol_log_entry e = {"hook", "Bash", big, "claude", "/w", &r, 0};
			for (int i = 0; i < ENTRIES; i++)
				if (pol_log_append(&e) != 0)
					_exit(1);
			_exit(0);
		}
	}
	for (int w = 0; w < WRITERS; w++) {
		int st;
		cr_assert_gt(wait(&st), 0);
		cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "a writer failed");
	}
	snprintf(rotated, sizeof(rotated), "%s.1", logpath);
	cur = count_lines(logpath, &bad);
	old = count_lines(rotated, &bad);
	cr_expect_eq(bad, 0, "%zu torn or unreadable lines", bad);
	cr_expect_gt(old, 0, "the log never rotated");
	cr_expect_eq(cur + old, (size_t)WRITERS * ENTRIES, "%zu + %zu lines: some were lost", old,
		     cur);
	line_len = limit / (old ? old : 1);
	cr_expect_lt(cur * line_len, limit, "the new file is over the limit: rotated late");
}

/* Writers that find the file full at the same moment: they start together (a pipe
 * closed at once is their barrier) on a file just at its limit. Only one may rotate;
 * a second rename would put the new, small file over the rotated one. */
Test(log, writers_finding_the_file_full_together_rotate_it_once)
{
	char rotated[300], num[32];
	struct pol_result r;
	struct pol_log_entry e = {"hook", "Bash", "git reset --hard", "claude", "/w", &r, 0};

	pol_result_init(&r);
	r.decision = POL_DENY;
	r.rule_id = "core.git.reset_hard";
	snprintf(rotated, sizeof(rotated), "%s.1", logpath);
	setenv("DCG_LOG_MAX_BYTES", "20000", 1);
	for (int round = 0; round < 30; round++) {
		size_t filled = 0, bad = 0, total;
		struct stat st;
		int gate[2];

		unlink(rotated);
		unlink(logpath);
		/* just under the limit, so that the next line fills it */
		snprintf(num, sizeof(num), "%d", 1 << 30);
		setenv("DCG_LOG_MAX_BYTES", num, 1);
		do {
			cr_assert_eq(pol_log_append(&e), 0);
			filled++;
			cr_assert_eq(stat(logpath, &st), 0);
		} while (st.st_size < 20000);
		setenv("DCG_LOG_MAX_BYTES", "20000", 1);
		cr_assert_eq(pipe(gate), 0);
		for (int w = 0; w < WRITERS; w++) {
			pid_t pid = fork();
			cr_assert_geq(pid, 0);
			if (pid == 0) {
				char c;
				close(gate[1]);
				if (read(gate[0], &c, 1) != 0)
					_exit(2);
				for (int i = 0; i < 5; i++)
					if (pol_log_append(&e) != 0)
						_exit(1);
				_exit(0);
			}
		}
		close(gate[0]);
		close(gate[1]); /* go */
		for (int w = 0; w < WRITERS; w++) {
			int stt;
			cr_assert_gt(wait(&stt), 0);
			cr_expect(WIFEXITED(stt) && WEXITSTATUS(stt) == 0);
		}
		total = count_lines(rotated, &bad) + count_lines(logpath, &bad);
		cr_assert_eq(bad, 0, "round %d: torn lines", round);
		cr_assert_eq(total, filled + WRITERS * 5, "round %d: %zu of %zu lines left", round,
			     total, filled + WRITERS * 5);
	}
}
