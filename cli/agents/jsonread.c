/* jsonread.c - the reader of the agents' tool calls (agents.h, "reading a call").
 *
 * `dcg hook` starts once per tool call. Reading the call with libcjson made the dynamic
 * loader map and relocate one more library at every start, and search it for every
 * symbol libc binds; this reader keeps the hook's start to libc alone (cli/cjson_dl.c
 * loads libcjson for the commands that write JSON). It reads RFC 8259 strictly: one
 * value and nothing after it but white space; no raw control character in a string;
 * no escaped NUL; a \u escape of a UTF-16 surrogate only as a pair; no key twice in
 * one object (an agent may read either copy, so dcg would not know which one runs);
 * at most HOOK_JSON_MAX_DEPTH levels. Every failure is a sentence for the agent.
 *
 * One parse makes two allocations besides the item blocks: the strings, decoded into
 * one buffer as long as the input (an escape never grows), and the items, taken from
 * blocks of HOOK_JSON_BLOCK. The first block starts with the document, so that the
 * root item is all a caller keeps. */
#include "agents.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define HOOK_JSON_MAX_DEPTH 512
#define HOOK_JSON_BLOCK	    64

struct block {
	struct block *next;
	size_t used;
	struct hook_json items[HOOK_JSON_BLOCK];
};

/* The first block: the document, then its items (the root is items[0]). */
struct doc {
	char *strings;
	struct block first; /* last member: the root is first.items[0] */
};

struct reader {
	const char *s, *end;
	char *out; /* the next free byte of the strings buffer */
	struct doc *doc;
	struct block *cur;
	const char *why;
	unsigned depth;
};

static const char not_json[] = "the input is not valid JSON";

static int fail(struct reader *r, const char *why)
{
	if (!r->why)
		r->why = why;
	return -1;
}

static struct hook_json *item_new(struct reader *r)
{
	struct block *b = r->cur;

	if (b->used == HOOK_JSON_BLOCK) {
		b = malloc(sizeof(*b));
		if (!b)
			return NULL;
		b->next = NULL;
		b->used = 0;
		r->cur->next = b;
		r->cur = b;
	}
	struct hook_json *it = &b->items[b->used++];
	memset(it, 0, sizeof(*it));
	return it;
}

static void skip_ws(struct reader *r)
{
	while (r->s < r->end && (*r->s == ' ' || *r->s == '\t' || *r->s == '\n' || *r->s == '\r'))
		r->s++;
}

static int hex4(const char *s, unsigned *v)
{
	*v = 0;
	for (int i = 0; i < 4; i++) {
		char c = s[i];
		unsigned d;

		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return -1;
		*v = *v << 4 | d;
	}
	return 0;
}

static char *put_utf8(char *o, unsigned cp)
{
	if (cp < 0x80) {
		*o++ = (char)cp;
	} else if (cp < 0x800) {
		*o++ = (char)(0xc0 | cp >> 6);
		*o++ = (char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		*o++ = (char)(0xe0 | cp >> 12);
		*o++ = (char)(0x80 | ((cp >> 6) & 0x3f));
		*o++ = (char)(0x80 | (cp & 0x3f));
	} else {
		*o++ = (char)(0xf0 | cp >> 18);
		*o++ = (char)(0x80 | ((cp >> 12) & 0x3f));
		*o++ = (char)(0x80 | ((cp >> 6) & 0x3f));
		*o++ = (char)(0x80 | (cp & 0x3f));
	}
	return o;
}

/* One \u escape (r->s at the 'u'), a surrogate pair read whole. */
static int read_u_escape(struct reader *r)
{
	unsigned cp, lo;

	if (r->end - r->s < 5 || hex4(r->s + 1, &cp))
		return fail(r, not_json);
	r->s += 5;
	if (cp >= 0xdc00 && cp <= 0xdfff)
		return fail(r, not_json); /* a low surrogate alone */
	if (cp >= 0xd800 && cp <= 0xdbff) {
		if (r->end - r->s < 6 || r->s[0] != '\\' || r->s[1] != 'u' || hex4(r->s + 2, &lo) ||
		    lo < 0xdc00 || lo > 0xdfff)
			return fail(r, not_json); /* a high surrogate alone */
		r->s += 6;
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
	}
	if (cp == 0)
		return fail(r, "the input contains an escaped NUL character (\\u0000)");
	r->out = put_utf8(r->out, cp);
	return 0;
}

/* A string (r->s at its opening quote), decoded into the strings buffer. */
static int read_string(struct reader *r, const char **str, size_t *len)
{
	char *start = r->out;

	r->s++;
	for (;;) {
		if (r->s >= r->end)
			return fail(r, not_json);
		unsigned char c = (unsigned char)*r->s;
		if (c == '"')
			break;
		if (c < 0x20)
			return fail(r, not_json); /* control characters must be escaped */
		if (c != '\\') {
			*r->out++ = (char)c;
			r->s++;
			continue;
		}
		if (r->end - r->s < 2)
			return fail(r, not_json);
		r->s++;
		switch (*r->s) {
		case '"':
		case '\\':
		case '/':
			*r->out++ = *r->s++;
			break;
		case 'b':
			*r->out++ = '\b';
			r->s++;
			break;
		case 'f':
			*r->out++ = '\f';
			r->s++;
			break;
		case 'n':
			*r->out++ = '\n';
			r->s++;
			break;
		case 'r':
			*r->out++ = '\r';
			r->s++;
			break;
		case 't':
			*r->out++ = '\t';
			r->s++;
			break;
		case 'u':
			if (read_u_escape(r))
				return -1;
			break;
		default:
			return fail(r, not_json);
		}
	}
	r->s++; /* the closing quote */
	*r->out++ = '\0';
	*str = start;
	*len = (size_t)(r->out - start - 1);
	return 0;
}

static int digits(struct reader *r)
{
	const char *from = r->s;

	while (r->s < r->end && *r->s >= '0' && *r->s <= '9')
		r->s++;
	return r->s > from ? 0 : fail(r, not_json);
}

/* -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?: checked, not converted (no caller
 * reads a number). */
static int read_number(struct reader *r)
{
	if (r->s < r->end && *r->s == '-')
		r->s++;
	if (r->s < r->end && *r->s == '0')
		r->s++;
	else if (digits(r))
		return -1;
	if (r->s < r->end && *r->s == '.') {
		r->s++;
		if (digits(r))
			return -1;
	}
	if (r->s < r->end && (*r->s == 'e' || *r->s == 'E')) {
		r->s++;
		if (r->s < r->end && (*r->s == '+' || *r->s == '-'))
			r->s++;
		if (digits(r))
			return -1;
	}
	return 0;
}

static int key_cmp(const void *a, const void *b)
{
	const struct hook_json *x = *(const struct hook_json *const *)a;
	const struct hook_json *y = *(const struct hook_json *const *)b;

	return strcmp(x->key, y->key);
}

/* 0 when no two members of obj have the same key (keys hold no NUL: an escaped one is
 * refused). A few are compared pairwise, more are sorted. */
static int keys_unique(struct reader *r, const struct hook_json *obj)
{
	const struct hook_json *a, *b, **v;
	size_t i = 0;
	int dup = 0;

	if (obj->len <= 16) {
		for (a = obj->child; a && !dup; a = a->next)
			for (b = a->next; b && !dup; b = b->next)
				dup = !strcmp(a->key, b->key);
	} else {
		v = malloc(obj->len * sizeof(*v));
		if (!v)
			return fail(r, "dcg ran out of memory reading the call");
		for (a = obj->child; a; a = a->next)
			v[i++] = a;
		qsort(v, i, sizeof(*v), key_cmp);
		for (i = 1; i < obj->len && !dup; i++)
			dup = !strcmp(v[i - 1]->key, v[i]->key);
		free(v);
	}
	return dup ? fail(r, "the input names one key twice in an object") : 0;
}

static int read_value(struct reader *r, struct hook_json *v);

/* An array or an object (r->s at its bracket); close is ']' or '}'. */
static int read_items(struct reader *r, struct hook_json *v, char close)
{
	struct hook_json **tail = &v->child;

	if (++r->depth > HOOK_JSON_MAX_DEPTH)
		return fail(r, "the input nests too deeply to check");
	r->s++;
	skip_ws(r);
	if (r->s < r->end && *r->s == close) {
		r->s++;
		r->depth--;
		return 0;
	}
	for (;;) {
		struct hook_json *it = item_new(r);

		if (!it)
			return fail(r, "dcg ran out of memory reading the call");
		*tail = it;
		tail = &it->next;
		v->len++;
		if (close == '}') {
			size_t klen;

			skip_ws(r);
			if (r->s >= r->end || *r->s != '"' || read_string(r, &it->key, &klen))
				return fail(r, not_json);
			skip_ws(r);
			if (r->s >= r->end || *r->s != ':')
				return fail(r, not_json);
			r->s++;
		}
		if (read_value(r, it))
			return -1;
		skip_ws(r);
		if (r->s < r->end && *r->s == ',') {
			r->s++;
			continue;
		}
		if (r->s < r->end && *r->s == close)
			break;
		return fail(r, not_json);
	}
	r->s++;
	r->depth--;
	return close == '}' ? keys_unique(r, v) : 0;
}

static int literal(struct reader *r, const char *word, size_t n)
{
	if ((size_t)(r->end - r->s) < n || memcmp(r->s, word, n))
		return fail(r, not_json);
	r->s += n;
	return 0;
}

static int read_value(struct reader *r, struct hook_json *v)
{
	skip_ws(r);
	if (r->s >= r->end)
		return fail(r, not_json);
	switch (*r->s) {
	case '{':
		v->type = HOOK_JSON_OBJECT;
		return read_items(r, v, '}');
	case '[':
		v->type = HOOK_JSON_ARRAY;
		return read_items(r, v, ']');
	case '"':
		v->type = HOOK_JSON_STRING;
		return read_string(r, &v->str, &v->len);
	case 't':
		v->type = HOOK_JSON_TRUE;
		return literal(r, "true", 4);
	case 'f':
		v->type = HOOK_JSON_FALSE;
		return literal(r, "false", 5);
	case 'n':
		v->type = HOOK_JSON_NULL;
		return literal(r, "null", 4);
	default:
		v->type = HOOK_JSON_NUMBER;
		return read_number(r);
	}
}

struct hook_json *hook_json_parse(const char *buf, size_t len, const char **why)
{
	struct reader r = {buf, buf + len, NULL, NULL, NULL, NULL, 0};
	struct doc *d;

	*why = NULL;
	if (len >= SIZE_MAX / 2) {
		*why = not_json;
		return NULL;
	}
	d = malloc(sizeof(*d));
	if (!d || !(d->strings = malloc(len + 1))) {
		free(d);
		*why = "dcg ran out of memory reading the call";
		return NULL;
	}
	d->first.next = NULL;
	d->first.used = 0;
	r.doc = d;
	r.cur = &d->first;
	r.out = d->strings;
	struct hook_json *root = item_new(&r); /* first.items[0]: never fails */
	if (read_value(&r, root) == 0) {
		skip_ws(&r);
		if (r.s != r.end)
			fail(&r, not_json); /* something after the value */
	}
	if (r.why) {
		*why = r.why;
		hook_json_free(root);
		return NULL;
	}
	return root;
}

void hook_json_free(struct hook_json *root)
{
	struct doc *d;
	struct block *b, *next;

	if (!root)
		return;
	d = (struct doc *)(void *)((char *)root - offsetof(struct doc, first.items));
	for (b = d->first.next; b; b = next) {
		next = b->next;
		free(b);
	}
	free(d->strings);
	free(d);
}

const struct hook_json *hook_json_get(const struct hook_json *obj, const char *key)
{
	const struct hook_json *it;

	if (!obj || obj->type != HOOK_JSON_OBJECT)
		return NULL;
	for (it = obj->child; it; it = it->next)
		if (!strcmp(it->key, key))
			return it;
	return NULL;
}

const struct hook_json *hook_json_at(const struct hook_json *arr, size_t i)
{
	const struct hook_json *it;

	if (!arr || arr->type != HOOK_JSON_ARRAY)
		return NULL;
	for (it = arr->child; it && i; it = it->next)
		i--;
	return it;
}
