/* util.c - names, the result record, the allocation hook, redaction and truncation. */
#include "dcg_policy.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static pol_alloc_fn alloc_fn = malloc;
static pol_free_fn free_fn = free;

void pol_set_allocator(pol_alloc_fn alloc, pol_free_fn release)
{
	alloc_fn = alloc ? alloc : malloc;
	free_fn = release ? release : free;
}

void *pol_mem_alloc(size_t size)
{
	return alloc_fn(size);
}

void pol_mem_free(void *ptr)
{
	if (ptr)
		free_fn(ptr);
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

static const char *const decision_names[] = {"allow", "log", "warn", "ask", "deny"};
static const char *const severity_names[] = {"low", "medium", "high", "critical"};
static const char *const detection_names[] = {"none",	       "command", "heredoc",
					      "inline_script", "path",	  "scope"};
static const char *const op_names[] = {"read",	 "write",  "create",	  "truncate",
				       "delete", "rename", "rename onto", "chmod",
				       "exec",	 "list",   "link"};
static const char *const kind_names[] = {"zeroAccessPaths", "readOnlyPaths", "noDeletePaths"};

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
	memset(r, 0, sizeof(*r));
	r->decision = POL_ALLOW;
}

void pol_result_release(struct pol_result *r)
{
	if (r->script)
		pol_mem_free(r->script);
	r->script = NULL;
	r->script_len = 0;
}

/* Strict UTF-8: no overlongs, no surrogates, nothing past U+10FFFF, no NUL. */
int pol_utf8_valid(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;

	while (p < end) {
		unsigned c = *p;
		size_t n;
		unsigned cp;

		if (c == 0)
			return 0;
		if (c < 0x80) {
			p++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf) {
			n = 1;
			cp = c & 0x1f;
		} else if (c >= 0xe0 && c <= 0xef) {
			n = 2;
			cp = c & 0x0f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			n = 3;
			cp = c & 0x07;
		} else {
			return 0;
		}
		if ((size_t)(end - p) <= n)
			return 0;
		for (size_t i = 1; i <= n; i++) {
			if ((p[i] & 0xc0) != 0x80)
				return 0;
			cp = (cp << 6) | (p[i] & 0x3f);
		}
		if ((n == 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
		    (n == 3 && (cp < 0x10000 || cp > 0x10ffff)))
			return 0;
		p += n + 1;
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
