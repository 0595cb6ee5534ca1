/* test_jsonread.c - the reader of the agents' tool calls (cli/agents/jsonread.c).
 *
 * A table of texts, each read or refused with its sentence; what is read is compared
 * with libcjson's reading of the same text (the library dcg read calls with before),
 * and mutations of Claude Code's real calls are read by both: whatever this reader
 * takes, libcjson takes too and finds the same tool and command in. */
#include "../cli/agents/agents.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct text_case {
	const char *name;
	const char *text;
	const char *why; /* NULL: read; else a part of the refusal's sentence */
};

static const struct text_case cases[] = {
    {"object", "{\"a\":\"b\",\"c\":[1,-2.5e+3,true,false,null,{}],\"d\":{}}", NULL},
    {"white space around", " \t\r\n{\"a\" : \"b\" }\n ", NULL},
    {"empty containers", "{\"a\":[],\"b\":{},\"c\":\"\"}", NULL},
    {"escapes", "{\"a\":\"q\\\" b\\\\ s\\/ \\b\\f\\n\\r\\t\"}", NULL},
    {"unicode escapes", "{\"a\":\"\\u00e9\\u20AC\\ud83d\\ude00\"}", NULL},
    {"raw utf-8", "{\"a\":\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"}", NULL},
    {"numbers", "[0,-0,1.5,1e9,1E-9,-12.75e+2]", NULL},
    {"same key in two objects", "{\"a\":{\"k\":1},\"b\":{\"k\":2}}", NULL},
    {"nothing", "", "not valid JSON"},
    {"only white space", "  ", "not valid JSON"},
    {"trailing text", "{\"a\":1} x", "not valid JSON"},
    {"two values", "{} {}", "not valid JSON"},
    {"trailing comma", "{\"a\":1,}", "not valid JSON"},
    {"array trailing comma", "[1,]", "not valid JSON"},
    {"missing colon", "{\"a\" 1}", "not valid JSON"},
    {"unquoted key", "{a:1}", "not valid JSON"},
    {"single quotes", "{'a':1}", "not valid JSON"},
    {"unterminated string", "{\"a\":\"b}", "not valid JSON"},
    {"raw newline in string", "{\"a\":\"b\nc\"}", "not valid JSON"},
    {"raw tab in string", "{\"a\":\"b\tc\"}", "not valid JSON"},
    {"bad escape", "{\"a\":\"\\x41\"}", "not valid JSON"},
    {"short unicode escape", "{\"a\":\"\\u12\"}", "not valid JSON"},
    {"lone high surrogate", "{\"a\":\"\\ud83d\"}", "not valid JSON"},
    {"high surrogate then text", "{\"a\":\"\\ud83dxx\\u0041\"}", "not valid JSON"},
    {"lone low surrogate", "{\"a\":\"\\ude00\"}", "not valid JSON"},
    {"escaped nul", "{\"a\":\"x\\u0000y\"}", "escaped NUL"},
    {"escaped nul in a key", "{\"a\\u0000b\":1}", "escaped NUL"},
    {"capital u escape", "{\"a\":\"\\U0041\"}", "not valid JSON"},
    {"leading zero", "[01]", "not valid JSON"},
    {"bare minus", "[-]", "not valid JSON"},
    {"dot without digits", "[1.]", "not valid JSON"},
    {"exponent without digits", "[1e]", "not valid JSON"},
    {"plus sign", "[+1]", "not valid JSON"},
    {"nan", "[NaN]", "not valid JSON"},
    {"cut literal", "[tru]", "not valid JSON"},
    {"capital literal", "[True]", "not valid JSON"},
    {"comment", "{\"a\":1 /* c */}", "not valid JSON"},
    {"duplicate key", "{\"tool_name\":\"Bash\",\"tool_name\":\"Read\"}", "one key twice"},
    {"duplicate key, escaped", "{\"a\":1,\"\\u0061\":2}", "one key twice"},
    {"duplicate key among many",
     "{\"k01\":0,\"k02\":0,\"k03\":0,\"k04\":0,\"k05\":0,\"k06\":0,\"k07\":0,\"k08\":0,"
     "\"k09\":0,\"k10\":0,\"k11\":0,\"k12\":0,\"k13\":0,\"k14\":0,\"k15\":0,\"k16\":0,"
     "\"k17\":0,\"k03\":1}",
     "one key twice"},
};

/* 1 when v (this reader's) and c (libcjson's) hold the same value. */
static int same(const struct hook_json *v, const cJSON *c)
{
	const struct hook_json *it;
	const cJSON *ci;
	size_t n = 0;

	switch (v->type) {
	case HOOK_JSON_NULL:
		return cJSON_IsNull(c);
	case HOOK_JSON_FALSE:
		return cJSON_IsFalse(c);
	case HOOK_JSON_TRUE:
		return cJSON_IsTrue(c);
	case HOOK_JSON_NUMBER:
		return cJSON_IsNumber(c);
	case HOOK_JSON_STRING:
		return cJSON_IsString(c) && strlen(c->valuestring) == v->len &&
		       !memcmp(c->valuestring, v->str, v->len);
	case HOOK_JSON_ARRAY:
	case HOOK_JSON_OBJECT:
		if (v->type == HOOK_JSON_ARRAY ? !cJSON_IsArray(c) : !cJSON_IsObject(c))
			return 0;
		for (it = v->child, ci = c->child; it && ci; it = it->next, ci = ci->next, n++)
			if ((it->key && strcmp(it->key, ci->string)) || !same(it, ci))
				return 0;
		return !it && !ci && n == v->len;
	}
	return 0;
}

Test(jsonread, every_text_is_read_or_refused_with_its_sentence)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct text_case *c = &cases[i];
		const char *why = NULL;
		struct hook_json *v = hook_json_parse(c->text, strlen(c->text), &why);

		if (!c->why) {
			cJSON *cj = cJSON_Parse(c->text);

			cr_assert_not_null(v, "%s: refused (%s)", c->name, why ? why : "?");
			cr_assert_not_null(cj, "%s: libcjson refuses it", c->name);
			cr_assert(same(v, cj), "%s: read differently from libcjson", c->name);
			cJSON_Delete(cj);
		} else {
			cr_assert_null(v, "%s: read", c->name);
			cr_assert(why && strstr(why, c->why), "%s: '%s'", c->name, why ? why : "");
		}
		hook_json_free(v);
	}
}

Test(jsonread, decoded_strings_and_lookups)
{
	const char *t =
	    "{\"s\":\"\\u00e9\\ud83d\\ude00\\n\",\"a\":[\"x\",\"y\"],\"o\":{\"k\":\"v\"}}";
	const char *why;
	struct hook_json *v = hook_json_parse(t, strlen(t), &why);

	cr_assert_not_null(v);
	cr_assert_eq(v->len, 3);
	cr_assert_str_eq(hook_agents_str(v, "s"), "\xc3\xa9\xf0\x9f\x98\x80\n");
	cr_assert_eq(hook_json_get(v, "s")->len, 7);
	cr_assert_str_eq(hook_json_at(hook_json_get(v, "a"), 1)->str, "y");
	cr_assert_null(hook_json_at(hook_json_get(v, "a"), 2));
	cr_assert_null(hook_json_at(v, 0), "an object is not an array");
	cr_assert_str_eq(hook_agents_str(hook_json_get(v, "o"), "k"), "v");
	cr_assert_null(hook_agents_str(v, "a"), "not a string");
	cr_assert_null(hook_json_get(v, "missing"));
	cr_assert_null(hook_json_get(hook_json_get(v, "s"), "k"), "a string has no members");
	hook_json_free(v);
	hook_json_free(NULL);
}

/* Nesting: deep enough for any tool call, refused past the limit (never a crash). */
Test(jsonread, nesting_has_a_limit)
{
	size_t depth[] = {100, 512, 513, 100000};

	for (size_t k = 0; k < 4; k++) {
		size_t n = depth[k];
		char *t = malloc(2 * n + 1);
		const char *why;

		for (size_t i = 0; i < n; i++) {
			t[i] = '[';
			t[2 * n - 1 - i] = ']';
		}
		t[2 * n] = '\0';
		struct hook_json *v = hook_json_parse(t, 2 * n, &why);
		if (n <= 512)
			cr_assert_not_null(v, "%zu levels: %s", n, why);
		else
			cr_assert(!v && strstr(why, "too deeply"), "%zu levels", n);
		hook_json_free(v);
		free(t);
	}
}

/* Many items (more than one block of them) in arrays and objects. */
Test(jsonread, long_arrays_and_objects)
{
	size_t n = 5000, off = 0, cap = n * 16 + 16;
	char *t = malloc(cap);
	const char *why;

	off += (size_t)snprintf(t + off, cap - off, "{");
	for (size_t i = 0; i < n; i++)
		off += (size_t)snprintf(t + off, cap - off, "%s\"k%zu\":[%zu]", i ? "," : "", i, i);
	off += (size_t)snprintf(t + off, cap - off, "}");
	struct hook_json *v = hook_json_parse(t, off, &why);
	cr_assert_not_null(v, "%s", why);
	cr_assert_eq(v->len, n);
	cr_assert_not_null(hook_json_at(hook_json_get(v, "k4999"), 0));
	hook_json_free(v);
	free(t);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	cr_assert_not_null(f, "%s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* Byte flips and cuts of Claude Code's real calls: what this reader takes, libcjson
 * takes, with the same tool_name, command and file_path in it. */
Test(jsonread, mutated_calls_are_never_read_differently_from_libcjson)
{
	static const char *const samples[] = {"pretooluse_Bash.json", "pretooluse_Read.json",
					      "pretooluse_Write.json", "pretooluse_Edit.json"};
	static const char *const keys[] = {"tool_name", "cwd", "hook_event_name"};
	unsigned long long seed = 0x2545f4914f6cdd1dull;
	size_t read = 0;

	for (size_t s = 0; s < 4; s++) {
		char path[256], *orig;
		size_t len;

		snprintf(path, sizeof(path), "tests/golden/claude/%s", samples[s]);
		orig = slurp(path, &len);
		for (size_t k = 0; k < 2000; k++) {
			char *buf = malloc(len + 1);
			size_t n = len;
			const char *why;

			memcpy(buf, orig, len + 1);
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			if (k % 4 == 0)
				n = (seed >> 40) % len;
			else
				buf[(seed >> 33) % len] = "{}[]\",:\\ uea0-1"[(seed >> 17) % 15];
			buf[n] = '\0';
			struct hook_json *v = hook_json_parse(buf, n, &why);
			if (v) {
				cJSON *cj = cJSON_ParseWithLength(buf, n);
				const cJSON *cin;
				const struct hook_json *in;

				read++;
				cr_assert_not_null(cj, "%s mutation %zu: only this reader takes it",
						   samples[s], k);
				cr_assert(same(v, cj), "%s mutation %zu: read differently",
					  samples[s], k);
				for (size_t i = 0; i < 3; i++) {
					const cJSON *c =
					    cJSON_GetObjectItemCaseSensitive(cj, keys[i]);
					const char *mine = hook_agents_str(v, keys[i]);
					cr_assert_eq(!mine, !cJSON_IsString(c));
					cr_assert(!mine || !strcmp(mine, c->valuestring));
				}
				in = hook_json_get(v, "tool_input");
				cin = cJSON_GetObjectItemCaseSensitive(cj, "tool_input");
				cr_assert(!in || same(in, cin));
				cJSON_Delete(cj);
			}
			hook_json_free(v);
			free(buf);
		}
		free(orig);
	}
	cr_assert_gt(read, 100, "the mutations left too few calls readable to compare");
}
