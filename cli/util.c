/* util.c - string builder, UTF-8 checks and whole-file I/O for the hook side. */
#include "hook.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- string builder ---------------------------------------------------------------- */

static int buf_grow(struct hook_buf *b, size_t extra)
{
	size_t want, cap;
	char *n;

	if (b->oom)
		return -1;
	if (extra > SIZE_MAX / 2 - b->len)
		goto out_oom;
	want = b->len + extra + 1;
	if (want <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 256;
	while (cap < want)
		cap *= 2;
	n = realloc(b->s, cap);
	if (!n)
		goto out_oom;
	b->s = n;
	b->cap = cap;
	return 0;
out_oom:
	b->oom = 1;
	return -1;
}

void hook_buf_add(struct hook_buf *b, const char *s, size_t len)
{
	if (buf_grow(b, len))
		return;
	if (len)
		memcpy(b->s + b->len, s, len);
	b->len += len;
	b->s[b->len] = '\0';
}

void hook_buf_adds(struct hook_buf *b, const char *s)
{
	hook_buf_add(b, s, strlen(s));
}

void hook_buf_addf(struct hook_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (buf_grow(b, 64))
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->oom = 1;
		return;
	}
	if ((size_t)n >= b->cap - b->len) {
		if (buf_grow(b, (size_t)n))
			return;
		va_start(ap, fmt);
		vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
	}
	b->len += (size_t)n;
}

char *hook_buf_detach(struct hook_buf *b)
{
	char *s = b->oom ? NULL : b->s;

	if (!s && !b->oom) {
		s = malloc(1);
		if (s)
			s[0] = '\0';
	}
	if (b->oom)
		free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
	b->oom = 0;
	return s;
}

void hook_buf_release(struct hook_buf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
	b->oom = 0;
}

/* ---- UTF-8 ------------------------------------------------------------------------- */

size_t hook_utf8_sanitize(const char *s, size_t len, char *out, size_t size)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, o = 0, n;

	if (!size)
		return 0;
	while (i < len) {
		n = pol_utf8_char(s + i, len - i);
		if (!n) {
			if (o + 1 >= size)
				break;
			out[o++] = '?';
			i++;
			continue;
		}
		if (o + n >= size)
			break;
		memcpy(out + o, p + i, n);
		o += n;
		i += n;
	}
	out[o] = '\0';
	return o;
}

/* ---- files -------------------------------------------------------------------------- */

int hook_read_file(const char *path, size_t max, char **out, size_t *len)
{
	return pol_read_file(path, max, 0, out, len);
}

/* mkdir -p for the folder holding path. */
static int make_parents(const char *path)
{
	char tmp[PATH_MAX];
	size_t len = strlen(path), i;

	if (len >= sizeof(tmp))
		return -ENAMETOOLONG;
	memcpy(tmp, path, len + 1);
	for (i = 1; i < len; i++) {
		if (tmp[i] != '/')
			continue;
		tmp[i] = '\0';
		if (mkdir(tmp, 0755) < 0 && errno != EEXIST) {
			int e = -errno;
			tmp[i] = '/';
			return e;
		}
		tmp[i] = '/';
	}
	return 0;
}

int hook_write_atomic(const char *path, const char *data, size_t len, unsigned mode)
{
	int err = make_parents(path);

	return err ? err : pol_write_atomic(path, data, len, mode);
}
