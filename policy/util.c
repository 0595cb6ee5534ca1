/* util.c - names, the result record, the allocation hook, redaction and truncation, the
 * one UTF-8 decoder and the one atomic file write. */
#include "dcg_policy.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

/* NULL: libc's. Not initialised to malloc and free: the addresses of libc's functions in
 * a table are four more symbol lookups at every start of dcg (cli/README.md, "cost"). */
static pol_alloc_fn alloc_fn;
static pol_free_fn free_fn;

void pol_set_allocator(pol_alloc_fn alloc, pol_free_fn release)
{
	alloc_fn = alloc;
	free_fn = release;
}

void *pol_mem_alloc(size_t size)
{
	return alloc_fn ? alloc_fn(size) : malloc(size);
}

void pol_mem_free(void *ptr)
{
	if (!ptr)
		return;
	if (free_fn)
		free_fn(ptr);
	else
		free(ptr);
}

char *pol_strdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

char *pol_strndup(const char *s, size_t n)
{
	return strndup(s, n);
}

void pol_copy_str(char *dst, size_t size, const char *src)
{
	size_t n;

	if (!size)
		return;
	n = src ? strlen(src) : 0;
	if (n >= size)
		n = size - 1;
	if (n)
		memcpy(dst, src, n);
	dst[n] = '\0';
}

char *pol_last_slash(const char *s)
{
	const char *last = NULL;

	for (; *s; s++)
		if (*s == '/')
			last = s;
	return (char *)(uintptr_t)last;
}

size_t pol_cat3(char *dst, size_t size, const char *a, const char *b, const char *c)
{
	size_t n = 0, whole = 0;

	for (const char *const *s = (const char *const[]){a, b, c, NULL}; *s; s++) {
		size_t l = strlen(*s);

		whole += l;
		if (n + 1 >= size)
			continue;
		if (l > size - 1 - n)
			l = size - 1 - n;
		memmove(dst + n, *s, l);
		n += l;
	}
	if (size)
		dst[n] = '\0';
	return whole;
}

/* Names in arrays, not pointers: a static table of pointers is relocated by the loader
 * at every start of dcg (cli/README.md, "cost"). */
static const char decision_names[][6] = {"allow", "log", "warn", "ask", "deny"};
static const char severity_names[][9] = {"low", "medium", "high", "critical"};
static const char detection_names[][14] = {"none",	    "command", "heredoc",
					   "inline_script", "path",    "scope"};
static const char op_names[][12] = {"read",   "write",	"create",      "truncate",
				    "delete", "rename", "rename onto", "chmod",
				    "exec",   "list",	"link"};
static const char kind_names[][16] = {"zeroAccessPaths", "readOnlyPaths", "noDeletePaths"};

const char *pol_decision_name(enum pol_decision d)
{
	return (unsigned)d < 5 ? decision_names[d] : "deny";
}

const char *pol_severity_name(enum pol_severity s)
{
	return (unsigned)s < 4 ? severity_names[s] : "critical";
}

const char *pol_detection_name(enum pol_detection d)
{
	return (unsigned)d < 6 ? detection_names[d] : "none";
}

const char *pol_op_name(enum pol_op op)
{
	return (unsigned)op < POL_OP__COUNT ? op_names[op] : "access";
}

const char *pol_path_kind_name(enum pol_path_kind k)
{
	return (unsigned)k < 3 ? kind_names[k] : "paths";
}

int pol_severity_parse(const char *s, enum pol_severity *out)
{
	for (int i = 0; i < 4; i++) {
		if (strcasecmp(s, severity_names[i]) == 0) {
			*out = (enum pol_severity)i;
			return 0;
		}
	}
	return -EINVAL;
}

void pol_result_init(struct pol_result *r)
{
	/* The two text buffers (1.5 KB, most results never fill them) get only their
	 * terminator: a decision initialises three results, and clearing them whole was
	 * 3% of a command decision's instructions. */
	memset(r, 0, offsetof(struct pol_result, matched));
	r->matched[0] = '\0';
	r->line = 0;
	r->cmd_line = 0;
	r->path[0] = '\0';
	memset(&r->op, 0, sizeof(*r) - offsetof(struct pol_result, op));
	r->decision = POL_ALLOW;
}

void pol_result_release(struct pol_result *r)
{
	if (r->script)
		pol_mem_free(r->script);
	r->script = NULL;
	r->script_len = 0;
}

/* The one UTF-8 decoder of dcg: well-formed means no overlong form, no surrogate,
 * nothing past U+10FFFF, no cut sequence. */
size_t pol_utf8_char(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned c, cp;
	size_t k;

	if (!len)
		return 0;
	c = u[0];
	if (c < 0x80)
		return 1;
	k = c >= 0xf0 && c <= 0xf4 ? 3 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xc2 && c <= 0xdf;
	if (!k || k >= len)
		return 0;
	cp = c & (0x3fu >> k);
	for (size_t i = 1; i <= k; i++) {
		if ((u[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (u[i] & 0x3fu);
	}
	if ((k == 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (k == 3 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return k + 1;
}

int pol_utf8_valid(const char *s, size_t len)
{
	const uint64_t high = 0x8080808080808080ull, ones = 0x0101010101010101ull;
	size_t i = 0, n;

	while (i < len) {
		/* ASCII runs dominate real input: eight bytes at a time, none of them
		 * NUL or above 0x7f. */
		while (i + 8 <= len) {
			uint64_t w;

			memcpy(&w, s + i, 8);
			if ((w & high) || ((w - ones) & ~w & high))
				break;
			i += 8;
		}
		if (i >= len)
			break;
		if (!s[i])
			return 0;
		n = pol_utf8_char(s + i, len - i);
		if (!n)
			return 0;
		i += n;
	}
	return 1;
}

size_t pol_truncate_utf8(const char *text, size_t len, size_t max_chars, char *out, size_t size)
{
	size_t i = 0, chars = 0, o = 0;

	if (!size)
		return 0;
	while (i < len && chars < max_chars) {
		size_t n = 1;
		unsigned char c = (unsigned char)text[i];

		if (c >= 0xf0)
			n = 4;
		else if (c >= 0xe0)
			n = 3;
		else if (c >= 0xc0)
			n = 2;
		if (i + n > len)
			n = len - i;
		if (o + n + 4 > size)
			break;
		memcpy(out + o, text + i, n);
		o += n;
		i += n;
		chars++;
	}
	if (i < len && o + 4 <= size) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o] = '\0';
	return o;
}

void pol_copy_matched(struct pol_result *r, const char *text, size_t len)
{
	pol_truncate_utf8(text, len, POL_MATCHED_CHARS, r->matched, sizeof(r->matched));
}

size_t pol_redact(const char *text, size_t len, char *out, size_t size)
{
	size_t i = 0, o = 0;

	if (!size)
		return 0;
	while (i < len && o + 1 < size) {
		char c = text[i];

		if (c == '\\' && i + 1 < len) {
			if (o + 2 >= size)
				break;
			out[o++] = c;
			out[o++] = text[i + 1];
			i += 2;
			continue;
		}
		if (c == '\'' || c == '"') {
			size_t j = i + 1;

			while (j < len && text[j] != c) {
				if (c == '"' && text[j] == '\\' && j + 1 < len)
					j++;
				j++;
			}
			if (j >= len) { /* unterminated: redact the rest */
				if (o + 5 > size - 1)
					break;
				memcpy(out + o, (const char[]){c, '*', '*', '*'}, 4);
				o += 4;
				i = len;
				break;
			}
			if (o + 5 > size - 1)
				break;
			out[o++] = c;
			if (j > i + 1) {
				memcpy(out + o, "***", 3);
				o += 3;
			}
			out[o++] = c;
			i = j + 1;
			continue;
		}
		out[o++] = c;
		i++;
	}
	out[o] = '\0';
	return o;
}

int pol_write_atomic(const char *path, const char *data, size_t len, unsigned mode)
{
	char tmp[PATH_MAX];
	struct stat st;
	size_t done = 0;
	ssize_t n;
	int fd, err;

	if (snprintf(tmp, sizeof(tmp), "%s.dcg-XXXXXX", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	if (stat(path, &st) == 0)
		mode = st.st_mode & 07777;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (done < len) {
		n = write(fd, data + done, len - done);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			goto out_unlink;
		}
		done += (size_t)n;
	}
	if (fchmod(fd, mode) < 0 || fsync(fd) < 0) {
		err = -errno;
		goto out_unlink;
	}
	if (close(fd) < 0) {
		fd = -1;
		err = -errno;
		goto out_unlink;
	}
	fd = -1;
	if (rename(tmp, path) < 0) {
		err = -errno;
		goto out_unlink;
	}
	return 0;
out_unlink:
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	return err;
}

int pol_read_file(const char *path, size_t max, int regular_only, char **out, size_t *len)
{
	struct stat st;
	char *buf = NULL, *n;
	size_t cap, used = 0;
	ssize_t got;
	int fd, err = 0;

	*out = NULL;
	*len = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		err = -errno;
		goto out_close;
	}
	if (S_ISDIR(st.st_mode)) {
		err = -EISDIR;
		goto out_close;
	}
	if (regular_only && !S_ISREG(st.st_mode)) {
		err = -EINVAL;
		goto out_close;
	}
	if (S_ISREG(st.st_mode) && (size_t)st.st_size > max) {
		err = -EFBIG;
		goto out_close;
	}
	/* The size is a hint: /proc files say 0, a file may grow while read. */
	cap = st.st_size > 0 && (size_t)st.st_size < max ? (size_t)st.st_size + 1 : 4096;
	if (cap > max)
		cap = max;
	buf = malloc(cap + 1);
	if (!buf) {
		err = -ENOMEM;
		goto out_close;
	}
	for (;;) {
		if (used == cap) {
			if (cap >= max) {
				err = -EFBIG;
				goto out_free;
			}
			cap = cap * 2 > max ? max : cap * 2;
			n = realloc(buf, cap + 1);
			if (!n) {
				err = -ENOMEM;
				goto out_free;
			}
			buf = n;
		}
		got = read(fd, buf + used, cap - used);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			goto out_free;
		}
		if (got == 0)
			break;
		used += (size_t)got;
	}
	buf[used] = '\0';
	*out = buf;
	*len = used;
	goto out_close;
out_free:
	free(buf);
out_close:
	close(fd);
	return err;
}
