/* audit.c - the audit log: one JSON line per block, ask and warn, and per call an
 * allow entry let pass (with the entry).
 *
 * The line is built in a stack buffer (no malloc: the preload logs after fork too)
 * and appended with one write() on an O_APPEND descriptor, so concurrent writers never
 * interleave within a line. Past pol_log_max_bytes() the file is renamed to FILE.1 by
 * the one writer holding FILE.lock (flock, never waited for), which checks the size
 * again under the lock, so a file is rotated once however many writers saw it full;
 * a writer that opened the file before the rename finishes its line there. Input is
 * redacted for secrets only (pol_redact_secrets). JSON is only written here. */
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

int pol_log_path(char *buf, size_t size)
{
	const char *s = getenv("DCG_LOG");
	int n;

	if (s && s[0])
		n = snprintf(buf, size, "%s", s);
	else if ((s = getenv("XDG_STATE_HOME")) && s[0] == '/')
		n = snprintf(buf, size, "%s/dcg/audit.jsonl", s);
	else if ((s = getenv("HOME")) && s[0] == '/')
		n = snprintf(buf, size, "%s/.local/state/dcg/audit.jsonl", s);
	else
		n = snprintf(buf, size, "/tmp/dcg-audit-%u.jsonl", (unsigned)getuid());
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

struct jbuf {
	char *b;
	size_t n, size;
	int full; /* the line is full: every later key and value is left out */
};

/* Does len more bytes fit, keeping keep bytes for what must close (a string's quote)
 * and 2 for the line's "}\n"? Nothing written is ever taken back, so a cut line is
 * still whole JSON: no half escape, no escaped closing quote, no half key. */
static int fits(const struct jbuf *j, size_t len, size_t keep)
{
	return !j->full && j->n + len + keep + 2 <= j->size;
}

static void jraw(struct jbuf *j, const char *s, size_t len)
{
	if (!fits(j, len, 0)) {
		j->full = 1;
		return;
	}
	memcpy(j->b + j->n, s, len);
	j->n += len;
}

/* A JSON string of at most max bytes of s, cut on a character boundary. Bytes that are
 * not UTF-8 (a path is any bytes) become U+FFFD, so every line decodes. */
static void jstr(struct jbuf *j, const char *s, size_t max)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)s;
	size_t len = s ? strlen(s) : 0;

	if (!s) {
		jraw(j, "null", 4);
		return;
	}
	if (!fits(j, 2, 0)) {
		j->full = 1;
		return;
	}
	j->b[j->n++] = '"';
	if (len > max)
		len = max;
	for (size_t i = 0; i < len;) {
		unsigned char c = u[i];
		char enc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
		const char *out = enc;
		size_t olen = 6, step = 1;

		if (c == '"' || c == '\\') {
			enc[1] = (char)c;
			olen = 2;
		} else if (c >= 0x80) {
			step = pol_utf8_char(s + i, len - i);
			if (step) {
				out = s + i;
				olen = step;
			} else {
				out = "\\ufffd";
				step = 1;
			}
		} else if (c >= 0x20 && c != 0x7f) {
			out = s + i;
			olen = 1;
		}
		if (!fits(j, olen, 1)) {
			j->full = 1;
			break;
		}
		memcpy(j->b + j->n, out, olen);
		j->n += olen;
		i += step;
	}
	j->b[j->n++] = '"'; /* kept room for it */
}

/* A key, only when there is room for it and the smallest value after it (a number,
 * null or a string's quotes); else the line ends before it. */
static void jkey(struct jbuf *j, const char *k)
{
	size_t kl = strlen(k);

	if (!fits(j, kl + 4 + 24, 0)) {
		j->full = 1;
		return;
	}
	if (j->n > 1)
		j->b[j->n++] = ',';
	j->b[j->n++] = '"';
	memcpy(j->b + j->n, k, kl);
	j->n += kl;
	j->b[j->n++] = '"';
	j->b[j->n++] = ':';
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
	struct jbuf j = {line, 0, sizeof(line), 0};
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

	jraw(&j, "{", 1);
	jkey(&j, "time");
	jstr(&j, ts, 40);
	jkey(&j, "layer");
	jstr(&j, e->layer ? e->layer : "unknown", 32);
	jkey(&j, "tool");
	jstr(&j, e->tool, 64);
	if (e->agent) {
		jkey(&j, "agent");
		jstr(&j, e->agent, 32);
	}
	jkey(&j, "input");
	if (e->input) {
		char cut[1024];
		size_t n = pol_truncate_utf8(e->input, strlen(e->input), 300, cut, sizeof(cut));
		int secret_file = r && r->rule_id && r->path_kind == POL_PATH_ZERO_ACCESS &&
				  r->detection == POL_DET_PATH;
		pol_redact_secrets(cut, n, secret_file, redacted, sizeof(redacted));
		jstr(&j, redacted, sizeof(redacted));
	} else {
		jstr(&j, NULL, 0);
	}
	if (r) {
		jkey(&j, "decision");
		jstr(&j, pol_decision_name(r->decision), 16);
		jkey(&j, "rule_id");
		jstr(&j, r->rule_id, 128);
		jkey(&j, "reason");
		jstr(&j, r->reason, 300);
		jkey(&j, "detection");
		jstr(&j, pol_detection_name(r->detection), 32);
		jkey(&j, "severity");
		jstr(&j, pol_severity_name(r->severity), 16);
		if (r->detection == POL_DET_PATH) {
			jkey(&j, "path");
			jstr(&j, r->path, 512);
			jkey(&j, "op");
			jstr(&j, pol_op_name(r->op), 16);
		}
		if (r->allowed_by_allowlist) {
			jkey(&j, "allowed_by");
			jstr(&j, r->allow_reason, 300);
			jkey(&j, "allow_file");
			jstr(&j, r->allow_origin, 512);
			jkey(&j, "allow_line");
			snprintf(num, sizeof(num), "%u", r->allow_line);
			jraw(&j, num, strlen(num));
		}
	}
	jkey(&j, "pid");
	snprintf(num, sizeof(num), "%ld", (long)(e->pid > 0 ? e->pid : getpid()));
	jraw(&j, num, strlen(num));
	jkey(&j, "cwd");
	jstr(&j, e->cwd, 512);
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
