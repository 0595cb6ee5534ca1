/* redact.c - what the audit log hides: secrets only (dcg_policy.h, pol_redact_secrets).
 * The log must show what an agent targeted (the command, its paths, its quoted
 * arguments), so only text that looks like a credential is replaced by "***". Runs
 * in the preload too: no malloc, no locale, bounded work per byte. */
#include "dcg_policy.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

#define LOG_MAX_DEFAULT (10u * 1024 * 1024)

struct out {
	char *b;
	size_t n, size;
};

static void put(struct out *o, const char *s, size_t len)
{
	if (o->n + len >= o->size)
		len = o->size - 1 - o->n;
	memcpy(o->b + o->n, s, len);
	o->n += len;
}

static int is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* Characters a token, key or encoded secret is made of. */
static int is_tok(char c)
{
	return is_alnum(c) || c == '_' || c == '-' || c == '+' || c == '=' || c == '.' || c == '~';
}

static size_t tok_len(const char *t, size_t i, size_t len)
{
	size_t j = i;

	while (j < len && is_tok(t[j]))
		j++;
	return j - i;
}

/* Known credential prefixes: the prefix stays, the rest of the token goes. */
/* Arrays, not pointers: a static table of pointers is relocated by the loader at every
 * start of dcg (cli/README.md, "cost"). */
static const struct {
	char prefix[12];
	unsigned char min_rest;
} prefixes[] = {
    {"AKIA", 12},     {"ASIA", 12},	{"ghp_", 16},	     {"gho_", 16},   {"ghu_", 16},
    {"ghs_", 16},     {"ghr_", 16},	{"github_pat_", 16}, {"glpat-", 12}, {"xoxb-", 10},
    {"xoxp-", 10},    {"xoxa-", 10},	{"xoxr-", 10},	     {"xoxs-", 10},  {"sk-", 16},
    {"sk_live_", 12}, {"sk_test_", 12}, {"rk_live_", 12},    {"AIza", 24},   {"npm_", 20},
    {"pypi-", 20},    {"eyJ", 20},
};

/* Words whose value (after = or :, or as the next argument of --WORD) is secret. */
static const char secret_keys[][14] = {
    "password", "passwd",     "pwd",	     "secret",	      "token",	    "api_key",	   "apikey",
    "api-key",	"access_key", "private_key", "client_secret", "auth_token", "credentials",
};

/* 1 when the key ending at t[end] (exclusive) names a secret: its last word is one of
 * secret_keys (AWS_SECRET_ACCESS_KEY, DB_PASSWORD, --api-key, "token"). */
static int secret_key_before(const char *t, size_t end)
{
	size_t start = end;

	while (start > 0 && (is_alnum(t[start - 1]) || t[start - 1] == '_' || t[start - 1] == '-'))
		start--;
	if (start == end)
		return 0;
	for (size_t k = 0; k < sizeof(secret_keys) / sizeof(secret_keys[0]); k++) {
		size_t kl = strlen(secret_keys[k]);
		if (end - start >= kl && !strncasecmp(t + end - kl, secret_keys[k], kl) &&
		    (end - start == kl || !is_alnum(t[end - kl - 1])))
			return 1;
		/* SECRET_ACCESS_KEY, PASSWORD_HASH: the word anywhere in a key */
		for (size_t p = start; p + kl <= end; p++)
			if (!strncasecmp(t + p, secret_keys[k], kl) &&
			    (p == start || !is_alnum(t[p - 1])) &&
			    (p + kl == end || !is_alnum(t[p + kl])))
				return 1;
	}
	return 0;
}

/* The length of the value starting at t[i]: quoted, or up to a blank or an operator. */
static size_t value_len(const char *t, size_t i, size_t len)
{
	size_t j = i;

	if (i < len && (t[i] == '"' || t[i] == '\'')) {
		char q = t[i];
		for (j = i + 1; j < len && t[j] != q; j++)
			if (q == '"' && t[j] == '\\' && j + 1 < len)
				j++;
		return j < len ? j + 1 - i : len - i;
	}
	while (j < len && t[j] != ' ' && t[j] != '\t' && t[j] != '\n' && t[j] != ';' &&
	       t[j] != '&' && t[j] != '|' && t[j] != ')' && t[j] != '"' && t[j] != '\'')
		j++;
	return j - i;
}

/* A long run that looks random: 32+ characters of a key alphabet with at least three
 * each of upper case, lower case and digits, and at most two '_' or '-' (identifiers
 * and file names have more words; hex digests, such as commit IDs, have no upper
 * case and stay). */
static int looks_random(const char *t, size_t n)
{
	int up = 0, lo = 0, dig = 0, sep = 0;

	if (n < 32)
		return 0;
	for (size_t k = 0; k < n; k++) {
		char c = t[k];
		up += c >= 'A' && c <= 'Z';
		lo += c >= 'a' && c <= 'z';
		dig += c >= '0' && c <= '9';
		sep += c == '_' || c == '-';
		if (c == '.' || c == '~')
			return 0;
		if (c == '=' && k + 2 < n && t[k + 1] != '=')
			return 0; /* KEY=value, not base64 padding */
	}
	return up >= 3 && lo >= 3 && dig >= 3 && sep <= 2;
}

size_t pol_redact_secrets(const char *t, size_t len, int quoted, char *buf, size_t size)
{
	struct out o = {buf, 0, size};
	size_t i = 0;

	if (!size)
		return 0;
	while (i < len && o.n + 1 < size) {
		int at_start = i == 0 || !(is_alnum(t[i - 1]) || t[i - 1] == '_');
		size_t n;

		/* -----BEGIN ... PRIVATE KEY----- to its END line, or to the end */
		if (t[i] == '-' && len - i > 11 && !memcmp(t + i, "-----BEGIN ", 11)) {
			const char *end = memmem(t + i + 11, len - i - 11, "-----END", 8);
			const char *nl = memchr(t + i, '\n', len - i);
			if (nl && memmem(t + i, (size_t)(nl - (t + i)), "PRIVATE KEY", 11)) {
				put(&o, "-----BEGIN PRIVATE KEY----- *** ", 32);
				i = end ? (size_t)(end - t) : len;
				continue;
			}
		}
		/* known prefixes */
		if (at_start) {
			size_t k;
			for (k = 0; k < sizeof(prefixes) / sizeof(prefixes[0]); k++) {
				size_t pl = strlen(prefixes[k].prefix);
				if (len - i > pl && !memcmp(t + i, prefixes[k].prefix, pl) &&
				    (n = tok_len(t, i + pl, len)) >= prefixes[k].min_rest) {
					put(&o, t + i, pl);
					put(&o, "***", 3);
					i += pl + n;
					break;
				}
			}
			if (k < sizeof(prefixes) / sizeof(prefixes[0]))
				continue;
		}
		/* KEY=value, KEY: value, "key": "value", --key value, --key=value */
		if ((t[i] == '=' || t[i] == ':') && i > 0) {
			size_t kend = i, v = i + 1;
			if (kend > 0 && (t[kend - 1] == '"' || t[kend - 1] == '\''))
				kend--;
			if (t[i] == ':' && v < len && t[v] == '/') {
				/* scheme://user:password@host */
			} else if (secret_key_before(t, kend)) {
				while (v < len && t[v] == ' ')
					v++;
				n = value_len(t, v, len);
				if (n) {
					put(&o, t + i, v - i);
					put(&o, "***", 3);
					i = v + n;
					continue;
				}
			}
		}
		if (t[i] == ' ' && i > 2 && t[i - 1] != ' ' && i + 1 < len) {
			/* --password VALUE, Bearer TOKEN */
			size_t kend = i, kstart = i;
			while (kstart > 0 && t[kstart - 1] != ' ' && t[kstart - 1] != '\t')
				kstart--;
			if ((t[kstart] == '-' && secret_key_before(t, kend)) ||
			    (kend - kstart == 6 && !strncasecmp(t + kstart, "Bearer", 6))) {
				n = value_len(t, i + 1, len);
				if (n) {
					put(&o, " ***", 4);
					i += 1 + n;
					continue;
				}
			}
		}
		/* scheme://user:password@host: the password goes */
		if (t[i] == ':' && i > 0 && is_tok(t[i - 1])) {
			size_t b = i;
			while (b > 0 && is_tok(t[b - 1]))
				b--;
			if (b >= 3 && !memcmp(t + b - 3, "://", 3)) {
				size_t j = i + 1;
				while (j < len && t[j] != '@' && t[j] != '/' && t[j] != ' ')
					j++;
				if (j < len && t[j] == '@' && j > i + 1) {
					put(&o, ":***", 4);
					i = j;
					continue;
				}
			}
		}
		/* quoted content and heredoc bodies, for a call on a zero-access path */
		if (quoted && (t[i] == '\'' || t[i] == '"')) {
			n = value_len(t, i, len);
			put(&o, t + i, 1);
			if (n > 2)
				put(&o, "***", 3);
			if (n >= 2 && t[i + n - 1] == t[i])
				put(&o, t + i, 1);
			i += n;
			continue;
		}
		if (quoted && t[i] == '<' && i + 2 < len && t[i + 1] == '<' && t[i + 2] != '<') {
			const char *nl = memchr(t + i, '\n', len - i);
			if (nl) {
				put(&o, t + i, (size_t)(nl - (t + i)) + 1);
				put(&o, "***", 3);
				i = len;
				continue;
			}
		}
		/* long random-looking runs */
		if (at_start && is_tok(t[i]) && (n = tok_len(t, i, len)) >= 32 &&
		    looks_random(t + i, n)) {
			put(&o, "***", 3);
			i += n;
			continue;
		}
		put(&o, t + i, 1);
		i++;
	}
	buf[o.n] = '\0';
	return o.n;
}

size_t pol_log_max_bytes(void)
{
	const char *s = getenv("DCG_LOG_MAX_BYTES");
	char *end;
	unsigned long long v;

	if (!s || !*s)
		return LOG_MAX_DEFAULT;
	v = strtoull(s, &end, 10);
	return *end || v < 1024 ? LOG_MAX_DEFAULT : (size_t)v;
}
