/* cjson_dl.c - dcg's libcjson calls, for the dcg binary only: each loads libcjson with
 * dlopen() at its first call and forwards to it.
 *
 * `dcg hook` starts once per tool call and reads the call with cli/agents/jsonread.c;
 * an allowed call writes no JSON at all. Linked as a shared library, libcjson was mapped
 * and relocated at every start, and libc's own symbols were looked up through it. Only
 * the commands that write or edit JSON (a refusal's answer, settings files, `check
 * --json`, `log`, `status`) load it now. The tests and build/sandbox/sbx-run link
 * libcjson itself; cli/module.mk links this object into dcg, then libcjson with
 * --as-needed, so that a call this file does not forward still links (and maps the
 * library at start, as before).
 *
 * The forwarders are hidden (-fvisibility=hidden, and said again below): libcjson's
 * calls to its own functions never come back here. Without the library, every call
 * fails the way libcjson fails without memory: NULL, 0 (false), or nothing; a refusal
 * then still refuses (cmd_hook exits 2 when it has no answer to print). */
#include <cjson/cJSON.h>
#include <dlfcn.h>
#include <stddef.h>

#define CJSON_SONAME "libcjson.so.1"

/* The library's function of that name, or NULL. */
static void *sym(const char *name)
{
	static void *lib;
	void *h = __atomic_load_n(&lib, __ATOMIC_ACQUIRE);

	if (!h) { /* two threads may both open it: dlopen counts, the handle is the same */
		h = dlopen(CJSON_SONAME, RTLD_NOW | RTLD_LOCAL);
		if (!h)
			return NULL;
		__atomic_store_n(&lib, h, __ATOMIC_RELEASE);
	}
	return dlsym(h, name);
}

/* One forwarder: its return type, name, parameters, the arguments passed on, and what
 * it returns without the library. Each looks its function up once. */
#define FORWARD(ret, name, params, args, none)                           \
	__attribute__((visibility("hidden"))) ret name params            \
	{                                                                \
		static ret(*fn) params;                                  \
		ret(*f) params = __atomic_load_n(&fn, __ATOMIC_ACQUIRE); \
		if (!f) {                                                \
			f = (ret(*) params)sym(#name);                   \
			__atomic_store_n(&fn, f, __ATOMIC_RELEASE);      \
		}                                                        \
		return f ? f args : none;                                \
	}
#define FORWARD_VOID(name, params, args)                                  \
	__attribute__((visibility("hidden"))) void name params            \
	{                                                                 \
		static void(*fn) params;                                  \
		void(*f) params = __atomic_load_n(&fn, __ATOMIC_ACQUIRE); \
		if (!f) {                                                 \
			f = (void(*) params)sym(#name);                   \
			__atomic_store_n(&fn, f, __ATOMIC_RELEASE);       \
		}                                                         \
		if (f)                                                    \
			f args;                                           \
	}

/* parse, print, free */
FORWARD(cJSON *, cJSON_Parse, (const char *value), (value), NULL)
FORWARD(char *, cJSON_Print, (const cJSON *item), (item), NULL)
FORWARD(char *, cJSON_PrintUnformatted, (const cJSON *item), (item), NULL)
FORWARD_VOID(cJSON_Delete, (cJSON * item), (item))

/* reading */
FORWARD(cJSON *, cJSON_GetObjectItemCaseSensitive,
	(const cJSON *const object, const char *const string), (object, string), NULL)
FORWARD(int, cJSON_GetArraySize, (const cJSON *array), (array), 0)
FORWARD(cJSON_bool, cJSON_IsArray, (const cJSON *const item), (item), 0)
FORWARD(cJSON_bool, cJSON_IsNumber, (const cJSON *const item), (item), 0)
FORWARD(cJSON_bool, cJSON_IsObject, (const cJSON *const item), (item), 0)
FORWARD(cJSON_bool, cJSON_IsString, (const cJSON *const item), (item), 0)
FORWARD(cJSON_bool, cJSON_Compare,
	(const cJSON *const a, const cJSON *const b, const cJSON_bool cs), (a, b, cs), 0)

/* building */
FORWARD(cJSON *, cJSON_CreateArray, (void), (), NULL)
FORWARD(cJSON *, cJSON_CreateObject, (void), (), NULL)
FORWARD(cJSON *, cJSON_CreateNumber, (double num), (num), NULL)
FORWARD(cJSON *, cJSON_CreateString, (const char *string), (string), NULL)
FORWARD(cJSON *, cJSON_CreateTrue, (void), (), NULL)
FORWARD(cJSON *, cJSON_Duplicate, (const cJSON *item, cJSON_bool recurse), (item, recurse), NULL)
FORWARD(cJSON_bool, cJSON_AddItemToArray, (cJSON * array, cJSON *item), (array, item), 0)
FORWARD(cJSON_bool, cJSON_AddItemToObject, (cJSON * object, const char *string, cJSON *item),
	(object, string, item), 0)
FORWARD(cJSON *, cJSON_AddArrayToObject, (cJSON *const object, const char *const name),
	(object, name), NULL)
FORWARD(cJSON *, cJSON_AddObjectToObject, (cJSON *const object, const char *const name),
	(object, name), NULL)
FORWARD(cJSON *, cJSON_AddNullToObject, (cJSON *const object, const char *const name),
	(object, name), NULL)
FORWARD(cJSON *, cJSON_AddTrueToObject, (cJSON *const object, const char *const name),
	(object, name), NULL)
FORWARD(cJSON *, cJSON_AddBoolToObject,
	(cJSON *const object, const char *const name, const cJSON_bool boolean),
	(object, name, boolean), NULL)
FORWARD(cJSON *, cJSON_AddNumberToObject,
	(cJSON *const object, const char *const name, const double number), (object, name, number),
	NULL)
FORWARD(cJSON *, cJSON_AddStringToObject,
	(cJSON *const object, const char *const name, const char *const string),
	(object, name, string), NULL)

/* editing */
FORWARD(cJSON *, cJSON_DetachItemViaPointer, (cJSON * parent, cJSON *const item), (parent, item),
	NULL)
FORWARD_VOID(cJSON_DeleteItemFromObjectCaseSensitive, (cJSON * object, const char *string),
	     (object, string))
FORWARD(cJSON_bool, cJSON_ReplaceItemInObjectCaseSensitive,
	(cJSON * object, const char *string, cJSON *newitem), (object, string, newitem), 0)
