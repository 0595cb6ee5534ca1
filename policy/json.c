/* json.c - the one JSON writer of policy/ (the audit line, the intent error): text
 * into a fixed buffer, no allocation (the preload logs after fork). Nothing written is
 * ever taken back, so text cut for room is still whole JSON: no half escape, no
 * escaped closing quote, no half key. See internal.h (struct pol_json).
 */
#include <string.h>

#include "internal.h"

/* Does len more bytes fit, keeping keep bytes (a string's closing quote) and the
 * writer's reserve free? */
static int fits(const struct pol_json *j, size_t len, size_t keep)
{
	return !j->full && j->n + len + keep + j->reserve <= j->size;
}

void pol_json_raw(struct pol_json *j, const char *s, size_t len)
{
	if (!fits(j, len, 0)) {
		j->full = 1;
		return;
	}
	memcpy(j->b + j->n, s, len);
	j->n += len;
}

void pol_json_chars(struct pol_json *j, const char *s, size_t max, size_t keep)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)s;
	size_t len = strlen(s);

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
		if (!fits(j, olen, keep)) {
			j->full = 1;
			return;
		}
		memcpy(j->b + j->n, out, olen);
		j->n += olen;
		i += step;
	}
}

void pol_json_str(struct pol_json *j, const char *s, size_t max)
{
	if (!s) {
		pol_json_raw(j, "null", 4);
		return;
	}
	if (!fits(j, 2, 0)) {
		j->full = 1;
		return;
	}
	j->b[j->n++] = '"';
	pol_json_chars(j, s, max, 1);
	j->b[j->n++] = '"'; /* kept room for it */
}

void pol_json_key(struct pol_json *j, const char *k)
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
