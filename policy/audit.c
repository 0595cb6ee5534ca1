/* audit.c - the audit log: one JSON line per block, ask and warn.
 *
 * The line is built in a stack buffer (no malloc: the preload logs after fork too)
 * and appended with one write() on an O_APPEND descriptor, so concurrent writers never
 * interleave within a line. JSON is only written here, never parsed. */
#include "dcg_policy.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	int full;
};

static void jraw(struct jbuf *j, const char *s, size_t len)
{
	if (j->n + len + 3 > j->size) { /* keep room for "}\n" */
		j->full = 1;
		return;
	}
	memcpy(j->b + j->n, s, len);
	j->n += len;
}

static void jstr(struct jbuf *j, const char *s, size_t max)
{
	static const char hex[] = "0123456789abcdef";
	size_t len = s ? strlen(s) : 0;

	if (!s) {
		jraw(j, "null", 4);
		return;
	}
	jraw(j, "\"", 1);
	if (len > max)
		len = max;
	for (size_t i = 0; i < len && !j->full; i++) {
		unsigned char c = (unsigned char)s[i];
		char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};

		if (c == '"' || c == '\\') {
			char e[2] = {'\\', (char)c};
			jraw(j, e, 2);
		} else if (c < 0x20 || c == 0x7f) {
			jraw(j, esc, 6);
		} else {
			jraw(j, (const char *)&s[i], 1);
		}
	}
	/* Close the string even when cut: a line is always valid JSON. */
	if (j->full) {
		j->full = 0;
		j->n = j->n + 8 < j->size ? j->n : j->size - 8;
	}
	jraw(j, "\"", 1);
}

static void jkey(struct jbuf *j, const char *k)
{
	if (j->n > 1)
		jraw(j, ",\"", 2);
	else
		jraw(j, "\"", 1);
	jraw(j, k, strlen(k));
	jraw(j, "\":", 2);
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
	gmtime_r(&now.tv_sec, &tm);
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
		pol_redact(cut, n, redacted, sizeof(redacted));
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
	}
	jkey(&j, "pid");
	snprintf(num, sizeof(num), "%ld", (long)getpid());
	jraw(&j, num, strlen(num));
	jkey(&j, "cwd");
	jstr(&j, e->cwd, 512);
	j.full = 0;
	if (j.n + 2 > j.size)
		j.n = j.size - 2;
	line[j.n++] = '}';
	line[j.n++] = '\n';

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
