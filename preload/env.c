/* env.c - the guard is not shed: every exec gets LD_PRELOAD and the guard's DCG_*
 * variables back, whatever envp the program passes (env -i, an empty envp).
 *
 * Runs in exec wrappers, so also in vfork children that share the parent's memory:
 * no malloc, no writes to anything but the caller's buffer and fresh mappings. */
#include "guard.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

/* The variables the guard owns: set by `dcg run`, always put back with the values the
 * guard started with, so that a program cannot point its children at another policy. */
/* (The names every start reads lie in writable data: GUARD_HOT_DATA.) */
#define START_DATA GUARD_HOT_DATA
static char owned_vars[][17] START_DATA = {"DCG_SNAPSHOT", "DCG_POLICY",       "DCG_LOG",
					   "DCG_INTENT",   "DCG_INTENTS_FILE", "DCG_SESSION",
					   "DCG_SANDBOX"};
static char ld_preload_key[] START_DATA = "LD_PRELOAD=";
/* The runtimes that must stay ahead of the guard in LD_PRELOAD (they intercept libc
 * and hand each call on to the next definition, the guard's). Any other entry that was
 * ahead of the guard (libc itself, an object defining a wrapped name) goes after it. */
static char sanitizers[][12] START_DATA = {"libasan",  "libtsan",   "liblsan",
					   "libubsan", "libhwasan", "libclang_rt"};
static char dcg_prefix[] START_DATA = "DCG_";
/* The loader's and libc's own variables that make a new program write or load before
 * (or beside) the guard: guard_env_loader_vars() looks for them at every exec. */
static char loader_vars[][18] START_DATA = {
    "LD_AUDIT=",   "LD_DEBUG_OUTPUT=", "LD_PROFILE=",	   "LD_LIBRARY_PATH=",
    "GCONV_PATH=", "LOCPATH=",	       "GMON_OUT_PREFIX=", "MALLOC_TRACE="};
#define N_OWNED (sizeof(owned_vars) / sizeof(owned_vars[0]))

/* Written at the start of every process: the fields it writes come first and one
 * buffer fills from its start (the owned variables, then the LD_PRELOAD entry), so
 * that a process writes a few hundred bytes of it: with the guard's other start-up
 * data, part of the page the loader writes anyway when it relocates the object. */
static struct {
	size_t prefix_len; /* length of the part after '=' */
	const char *self;  /* inside preload_entry: the guard's own entry */
	size_t self_len;
	char *owned[N_OWNED]; /* "NAME=value" or NULL when not set at start */
	char *preload_entry;  /* in store: "LD_PRELOAD=<entries up to the guard>" */
	char store[6 * 1024];
} g_env;

static int is_sep(char c)
{
	return c == ':' || c == ' ';
}

/* Whether the LD_PRELOAD list value starts with the guard's own prefix (the
 * sanitizer runtimes kept ahead of it, then the guard): nothing ahead of the guard
 * can shadow a wrapped name. Entries after it do not matter. */
static int list_ok(const char *v)
{
	size_t n = g_env.prefix_len, i = 0;
	const char *mine = g_env.self + g_env.self_len - n;

	/* byte by byte: v may be shorter than the prefix (memcmp could read past it) */
	while (i < n && v[i] == mine[i])
		i++;
	return i == n && (v[n] == '\0' || is_sep(v[n]));
}

static const char *base_name(const char *s, size_t n, size_t *blen)
{
	size_t i = n;

	while (i > 0 && s[i - 1] != '/')
		i--;
	*blen = n - i;
	return s + i;
}

/* The string helpers of the start-up path: strlen and memcpy are the guest's own
 * (str.c, no libc call), the prefix test stays a loop that stops at the first
 * difference (an entry may be shorter than the prefix). GCC must not turn it back
 * into a call. */
#define NO_LIBCALLS __attribute__((optimize("no-tree-loop-distribute-patterns")))

static NO_LIBCALLS int s_prefix(const char *s, const char *prefix, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != prefix[i])
			return 0;
	return 1;
}

/* The owned variable that entry (DCG_NAME=value) sets, or -1. */
static int owned_of(const char *entry)
{
	size_t n = 4;

	while (entry[n] && entry[n] != '=')
		n++;
	if (!entry[n])
		return -1;
	for (size_t k = 0; k < N_OWNED; k++)
		if (strlen(owned_vars[k]) == n && memcmp(entry, owned_vars[k], n) == 0)
			return (int)k;
	return -1;
}

static NO_LIBCALLS int is_sanitizer(const char *b, size_t bl)
{
	for (size_t k = 0; k < sizeof(sanitizers) / sizeof(sanitizers[0]); k++) {
		size_t n = strlen(sanitizers[k]);

		if (bl >= n && s_prefix(b, sanitizers[k], n))
			return 1;
	}
	return 0;
}

/* Appends one entry (n bytes at e) to the captured LD_PRELOAD value at out, a space
 * between entries. Returns 0, or -1 when room is short. */
static int prefix_add(char *out, size_t room, const char *e, size_t n)
{
	size_t at = g_env.prefix_len ? g_env.prefix_len + 1 : 0;

	if (at + n + 1 > room)
		return -1;
	if (at)
		out[at - 1] = ' ';
	memcpy(out + at, e, n);
	out[at + n] = '\0';
	g_env.prefix_len = at + n;
	return 0;
}

int guard_env_capture(char *const env[], const char *self_path)
{
	const char *key = ld_preload_key;
	const char *list = NULL;
	size_t used = 0, self_len = strlen(self_path), sb;
	const char *sbase = base_name(self_path, self_len, &sb);
	int rc = 0;

	/* Not the buffers: a process that has none of the variables never touches their
	 * pages (this runs at the start of every process). */
	g_env.prefix_len = 0;
	g_env.self = NULL;
	g_env.self_len = 0;
	for (size_t k = 0; k < N_OWNED; k++)
		g_env.owned[k] = NULL;
	for (size_t i = 0; env && env[i]; i++) {
		size_t len;
		int k;

		if (env[i][0] == 'L' && s_prefix(env[i], key, sizeof(ld_preload_key) - 1))
			list = env[i] + sizeof(ld_preload_key) - 1;
		if (env[i][0] != 'D' || !s_prefix(env[i], dcg_prefix, 4) ||
		    (k = owned_of(env[i])) < 0)
			continue;
		len = strlen(env[i]) + 1;
		if (used + len > sizeof(g_env.store) / 2) {
			rc = -ENAMETOOLONG;
			continue;
		}
		memcpy(g_env.store + used, env[i], len);
		g_env.owned[k] = g_env.store + used;
		used += len;
	}

	/* The prefix: the entries of our own LD_PRELOAD up to the guard's (matched by file
	 * name, the loader may have been given a relative or differently spelled path). */
	g_env.preload_entry = g_env.store + used;
	memcpy(g_env.preload_entry, key, sizeof(ld_preload_key) - 1);
	char *out = g_env.preload_entry + sizeof(ld_preload_key) - 1;
	size_t room = sizeof(g_env.store) - used - sizeof(ld_preload_key);
	const char *v = list;

	while (v && *v) {
		const char *e = v;
		size_t bl;
		const char *b;

		while (*e && !is_sep(*e))
			e++;
		b = base_name(v, (size_t)(e - v), &bl);
		if (e > v && bl == sb && s_prefix(b, sbase, sb)) {
			if (prefix_add(out, room, v, (size_t)(e - v)) == 0) {
				g_env.self = out + g_env.prefix_len - (size_t)(e - v);
				g_env.self_len = (size_t)(e - v);
			} else {
				g_env.prefix_len = 0;
			}
			break;
		}
		if (e > v && is_sanitizer(b, bl) && prefix_add(out, room, v, (size_t)(e - v)) < 0) {
			g_env.prefix_len = 0;
			break;
		}
		v = *e ? e + 1 : e;
	}
	if (!g_env.self)
		g_env.prefix_len = 0;
	if (!g_env.prefix_len) {
		if (self_len > room)
			return -ENAMETOOLONG;
		memcpy(out, self_path, self_len + 1);
		g_env.prefix_len = self_len;
		g_env.self = out;
		g_env.self_len = self_len;
	}
	return rc;
}

const char *guard_env_owned(const char *name)
{
	for (size_t k = 0; k < N_OWNED; k++)
		if (g_env.owned[k] && strcmp(owned_vars[k], name) == 0)
			return g_env.owned[k] + strlen(name) + 1;
	return NULL;
}

/* Index of the owned variable env_entry sets, or -1. */
static int owned_index(const char *entry)
{
	if (entry[0] != 'D' || !s_prefix(entry, dcg_prefix, 4))
		return -1;
	return owned_of(entry);
}

static int is_preload_entry(const char *entry)
{
	return entry[0] == 'L' && s_prefix(entry, ld_preload_key, 11);
}

/* Whether two strings are equal: lengths with the guest's strlen, then memcmp (an
 * exec check compares the guard's variables with the ones it started with, and the
 * byte loop of a strcmp was a third of its instructions). */
static int same_string(const char *a, const char *b)
{
	size_t n = strlen(b);

	return strlen(a) == n && memcmp(a, b, n) == 0;
}

/* Whether the n bytes at e name the guard (any spelling: its file name) or an entry
 * the captured prefix already holds. */
static int entry_is_ours(const char *e, size_t n)
{
	size_t bl, sb;
	const char *b = base_name(e, n, &bl), *sbase = base_name(g_env.self, g_env.self_len, &sb);
	const char *p = g_env.self + g_env.self_len - g_env.prefix_len;

	if (bl == sb && memcmp(b, sbase, sb) == 0)
		return 1;
	while (p < g_env.self) {
		const char *q = p;

		while (!is_sep(*q))
			q++;
		if ((size_t)(q - p) == n && memcmp(p, e, n) == 0)
			return 1;
		p = q + 1;
	}
	return 0;
}

/* Writes at dst " ENTRY" for each entry of theirs that is not ours (entry_is_ours()),
 * and the final NUL. */
static void merge_rest(char *dst, const char *theirs)
{
	const char *v = theirs;

	while (*v) {
		const char *e = v;

		while (*e && !is_sep(*e))
			e++;
		if (e > v && !entry_is_ours(v, (size_t)(e - v))) {
			*dst++ = ' ';
			memcpy(dst, v, (size_t)(e - v));
			dst += e - v;
		}
		v = *e ? e + 1 : e;
	}
	*dst = '\0';
}

/* The LD_PRELOAD entry for the new program: envp's own when the guard (after the
 * sanitizer runtimes it keeps ahead) comes first in it, else ours followed by envp's
 * other entries: an object put ahead of the guard (libc itself, say) goes after it.
 * NULL when it cannot be built. */
static char *merged_preload(char *const *envp, struct guard_envbuf *buf)
{
	const char *theirs = NULL;
	size_t tl, need;
	char *dst;

	for (size_t i = 0; envp && envp[i]; i++)
		if (is_preload_entry(envp[i]))
			theirs = envp[i] + 11;
	if (!theirs || !*theirs)
		return g_env.preload_entry;
	if (list_ok(theirs)) {
		for (size_t i = 0; envp[i]; i++)
			if (is_preload_entry(envp[i]) && envp[i] + 11 == theirs)
				return envp[i];
	}
	tl = strlen(theirs);
	need = 11 + g_env.prefix_len + 1 + tl + 1;
	if (need <= sizeof(buf->preload)) {
		dst = buf->preload;
	} else {
		size_t bytes = (need + 4095) & ~(size_t)4095;
		void *m =
		    mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (m == MAP_FAILED)
			return NULL;
		buf->preload_map = m;
		buf->preload_map_bytes = bytes;
		dst = m;
	}
	memcpy(dst, g_env.preload_entry, 11 + g_env.prefix_len);
	merge_rest(dst + 11 + g_env.prefix_len, theirs);
	return dst;
}

int guard_env_complete(char *const envp[])
{
	unsigned have = 0, want = 0;
	int preload_ok = 0;

	if (!g_env.self)
		return 1;
	for (size_t k = 0; k < N_OWNED; k++)
		if (g_env.owned[k])
			want |= 1u << k;
	for (size_t n = 0; envp && envp[n]; n++) {
		int k;

		if (is_preload_entry(envp[n])) {
			if (!list_ok(envp[n] + 11))
				return 0;
			preload_ok = 1;
		} else if ((k = owned_index(envp[n])) >= 0) {
			if (!g_env.owned[k] || !same_string(envp[n], g_env.owned[k]))
				return 0;
			have |= 1u << k;
		}
	}
	return preload_ok && have == want;
}

char *const *guard_env_build(char *const envp[], struct guard_envbuf *buf)
{
	int have[N_OWNED] = {0};
	int preload_ok = 0, dirty = 0;
	size_t n = 0, want, out = 0;
	char **v;
	char *preload;

	buf->map = NULL;
	buf->map_bytes = 0;
	buf->preload_map = NULL;
	buf->preload_map_bytes = 0;
	if (!g_env.self)
		return envp;

	/* Fast path: the usual envp already holds everything, unchanged. */
	for (n = 0; envp && envp[n]; n++) {
		int k;

		if (is_preload_entry(envp[n])) {
			if (list_ok(envp[n] + 11))
				preload_ok = 1;
			else
				dirty = 1;
		} else if ((k = owned_index(envp[n])) >= 0) {
			if (g_env.owned[k] && same_string(envp[n], g_env.owned[k]))
				have[k] = 1;
			else
				dirty = 1;
		}
	}
	if (!preload_ok)
		dirty = 1;
	for (size_t k = 0; k < N_OWNED; k++)
		if (g_env.owned[k] && !have[k])
			dirty = 1;
	if (!dirty)
		return envp;

	preload = merged_preload(envp, buf);
	want = n + N_OWNED + 2;
	if (want <= GUARD_ENVBUF_SLOTS) {
		v = buf->slots;
	} else {
		size_t bytes = (want * sizeof(char *) + 4095) & ~(size_t)4095;
		void *m =
		    mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (m == MAP_FAILED)
			return envp; /* cannot do better; the exec goes on unguarded */
		buf->map = m;
		buf->map_bytes = bytes;
		v = m;
	}
	if (preload)
		v[out++] = preload;
	for (size_t k = 0; k < N_OWNED; k++)
		if (g_env.owned[k])
			v[out++] = g_env.owned[k];
	for (size_t i = 0; i < n; i++) {
		int k = owned_index(envp[i]);

		if (is_preload_entry(envp[i]))
			continue;
		if (k >= 0) /* the guard's own values only, never the caller's */
			continue;
		v[out++] = envp[i];
	}
	v[out] = NULL;
	return v;
}

int guard_env_loader_vars(char *const envp[])
{
	for (size_t i = 0; envp && envp[i]; i++) {
		char c = envp[i][0];

		if (c != 'L' && c != 'G' && c != 'M')
			continue;
		for (size_t k = 0; k < sizeof(loader_vars) / sizeof(loader_vars[0]); k++)
			if (loader_vars[k][0] == c &&
			    s_prefix(envp[i], loader_vars[k], strlen(loader_vars[k])))
				return 1;
	}
	return 0;
}

void guard_envbuf_release(struct guard_envbuf *buf)
{
	if (buf->map)
		munmap(buf->map, buf->map_bytes);
	if (buf->preload_map)
		munmap(buf->preload_map, buf->preload_map_bytes);
	buf->map = NULL;
	buf->preload_map = NULL;
}
