/* audit.c - the audit log: one JSON line per block, ask and warn, and per call an
 * allow entry let pass (with the entry).
 *
 * The line is built in a stack buffer (no malloc: the preload logs after fork too)
 * and appended with one write() on an O_APPEND descriptor, so concurrent writers never
 * interleave within a line. Past pol_log_max_bytes() the file is renamed to FILE.1 by
 * the one writer holding FILE.lock (flock, never waited for), which checks the size
 * again under the lock, so a file is rotated once however many writers saw it full;
 * a writer that opened the file before the rename finishes its line there. Input is
 * redacted for secrets only (pol_redact_secrets). The JSON writer is json.c's. */
#include "dcg_policy.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

#define LOG_LINE_MAX 4096

static const char *log_fixed;

void pol_log_fix_path(const char *path)
{
	if (path && path[0] == '/')
		__atomic_store_n(&log_fixed, path, __ATOMIC_RELEASE);
}

int pol_log_path(char *buf, size_t size)
{
	const char *s = __atomic_load_n(&log_fixed, __ATOMIC_ACQUIRE);
	size_t n;

	if (!s)
		s = getenv("DCG_LOG");

	if (s && s[0]) {
		n = pol_cat3(buf, size, s, "", "");
	} else if ((s = getenv("XDG_STATE_HOME")) && s[0] == '/') {
		n = pol_cat3(buf, size, s, "/dcg/audit.jsonl", "");
	} else if ((s = getenv("HOME")) && s[0] == '/') {
		n = pol_cat3(buf, size, s, "/.local/state/dcg/audit.jsonl", "");
	} else {
		int k = snprintf(buf, size, "/tmp/dcg-audit-%u.jsonl", (unsigned)getuid());
		n = k < 0 ? SIZE_MAX : (size_t)k;
	}
	return n >= size ? -ENAMETOOLONG : 0;
}

static int ensure_dir(char *path)
{
	char *slash = strrchr(path, '/');
	int rc = 0;

	if (!slash || slash == path)
		return 0;
	*slash = '\0';
	if (mkdir(path, 0700) < 0 && errno == ENOENT) {
		rc = ensure_dir(path);
		if (rc == 0 && mkdir(path, 0700) < 0 && errno != EEXIST)
			rc = -errno;
	}
	*slash = '/';
	return rc;
}

/* UTC calendar fields of t, by arithmetic (days to civil date, proleptic Gregorian).
 * Not gmtime_r: glibc's takes its time-zone lock, and the preload logs in a child
 * between fork and exec, where a lock another thread held at the fork is never
 * released: the child hung (test_audit, the preload's stress test). */
static void utc_time(time_t t, struct tm *tm)
{
	long long days = (long long)t / 86400, rem = (long long)t % 86400, era, y;
	unsigned doe, yoe, doy, mp;

	if (rem < 0) {
		rem += 86400;
		days--;
	}
	memset(tm, 0, sizeof(*tm));
	tm->tm_hour = (int)(rem / 3600);
	tm->tm_min = (int)(rem % 3600 / 60);
	tm->tm_sec = (int)(rem % 60);
	days += 719468; /* from 1970-01-01 to 0000-03-01 */
	era = (days >= 0 ? days : days - 146096) / 146097;
	doe = (unsigned)(days - era * 146097);
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	y = (long long)yoe + era * 400;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	tm->tm_mday = (int)(doy - (153 * mp + 2) / 5 + 1);
	tm->tm_mon = (int)(mp < 10 ? mp + 2 : mp - 10); /* 0-based, from January */
	tm->tm_year = (int)(y + (tm->tm_mon <= 1) - 1900);
}

/* Renames a full log to FILE.1, once, whatever the number of writers (see the top). */
static void rotate_if_full(const char *path)
{
	char lock[PATH_MAX + 8], old[PATH_MAX + 8];
	struct stat st;
	size_t max = pol_log_max_bytes();
	int lfd;

	if (stat(path, &st) < 0 || (size_t)st.st_size < max)
		return;
	if ((size_t)snprintf(lock, sizeof(lock), "%s.lock", path) >= sizeof(lock) ||
	    (size_t)snprintf(old, sizeof(old), "%s.1", path) >= sizeof(old))
		return;
	lfd = open(lock, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (lfd < 0)
		return;
	if (flock(lfd, LOCK_EX | LOCK_NB) == 0) {
		if (stat(path, &st) == 0 && (size_t)st.st_size >= max)
			rename(path, old);
		flock(lfd, LOCK_UN);
	}
	close(lfd);
}

int pol_log_append(const struct pol_log_entry *e)
{
	char line[LOG_LINE_MAX], path[PATH_MAX], redacted[1024], num[32], ts[96];
	struct pol_json j = {line, 0, sizeof(line), 2, 0}; /* 2: the closing "}\n" */
	const struct pol_result *r = e->result;
	struct timespec now;
	struct tm tm;
	int fd, saved = errno;
	ssize_t w;

	if (pol_log_path(path, sizeof(path)) < 0)
		return -ENAMETOOLONG;
	clock_gettime(CLOCK_REALTIME, &now);
	utc_time(now.tv_sec, &tm);
	snprintf(ts, sizeof(ts), "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		 (long)(now.tv_nsec / 1000000) % 1000);

	pol_json_raw(&j, "{", 1);
	pol_json_key(&j, "time");
	pol_json_str(&j, ts, 40);
	pol_json_key(&j, "layer");
	pol_json_str(&j, e->layer ? e->layer : "unknown", 32);
	pol_json_key(&j, "tool");
	pol_json_str(&j, e->tool, 64);
	if (e->agent) {
		pol_json_key(&j, "agent");
		pol_json_str(&j, e->agent, 32);
	}
	pol_json_key(&j, "input");
	if (e->input) {
		char cut[1024];
		size_t n = pol_truncate_utf8(e->input, strlen(e->input), 300, cut, sizeof(cut));
		int secret_file = r && r->rule_id && r->path_kind == POL_PATH_ZERO_ACCESS &&
				  r->detection == POL_DET_PATH;
		pol_redact_secrets(cut, n, secret_file, redacted, sizeof(redacted));
		pol_json_str(&j, redacted, sizeof(redacted));
	} else {
		pol_json_str(&j, NULL, 0);
	}
	if (r) {
		pol_json_key(&j, "decision");
		pol_json_str(&j, pol_decision_name(r->decision), 16);
		pol_json_key(&j, "rule_id");
		pol_json_str(&j, r->rule_id, 128);
		pol_json_key(&j, "reason");
		pol_json_str(&j, r->reason, 300);
		pol_json_key(&j, "detection");
		pol_json_str(&j, pol_detection_name(r->detection), 32);
		pol_json_key(&j, "severity");
		pol_json_str(&j, pol_severity_name(r->severity), 16);
		if (r->detection == POL_DET_PATH) {
			pol_json_key(&j, "path");
			pol_json_str(&j, r->path, 512);
			pol_json_key(&j, "op");
			pol_json_str(&j, pol_op_name(r->op), 16);
		}
		if (r->observed) { /* observe mode: what it would have been */
			pol_json_key(&j, "would");
			pol_json_str(&j, pol_decision_name(r->observed), 16);
		}
		if (r->once_code[0]) {
			pol_json_key(&j, "once_code");
			pol_json_str(&j, r->once_code, 16);
		}
		if (r->allowed_by_once) {
			pol_json_key(&j, "allowed_by_once");
			pol_json_raw(&j, "true", 4);
		}
		if (r->allowed_by_allowlist) {
			pol_json_key(&j, "allowed_by");
			pol_json_str(&j, r->allow_reason, 300);
			pol_json_key(&j, "allow_file");
			pol_json_str(&j, r->allow_origin, 512);
			pol_json_key(&j, "allow_line");
			snprintf(num, sizeof(num), "%u", r->allow_line);
			pol_json_raw(&j, num, strlen(num));
		}
	}
	pol_json_key(&j, "pid");
	snprintf(num, sizeof(num), "%ld", (long)(e->pid > 0 ? e->pid : getpid()));
	pol_json_raw(&j, num, strlen(num));
	pol_json_key(&j, "cwd");
	pol_json_str(&j, e->cwd, 512);
	j.full = 0;
	if (j.n + 2 > j.size)
		j.n = j.size - 2;
	line[j.n++] = '}';
	line[j.n++] = '\n';

	rotate_if_full(path);
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0 && errno == ENOENT && ensure_dir(path) == 0)
		fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		int rc = -errno;
		errno = saved;
		return rc;
	}
	do
		w = write(fd, line, j.n);
	while (w < 0 && errno == EINTR);
	close(fd);
	errno = saved;
	return w == (ssize_t)j.n ? 0 : -EIO;
}
