/* dl.c - dlsym and dlvsym: a lookup of a wrapped name on an explicit handle (ctypes'
 * CDLL("libc.so.6"), dlopen("libc.so.6")) would return libc's own function and walk
 * around the guard; it returns the wrapper instead. RTLD_NEXT and RTLD_DEFAULT lookups
 * are handed on as a tail call, so that libc still sees the caller's return address
 * (RTLD_NEXT is relative to the caller).
 *
 * The real dlsym cannot be found with dlsym: it is read from libc's own dynamic symbol
 * table (its GNU hash table), once. libc's link map is found next to the guest's own in
 * the loader's list (the objects loaded at start, which no dlopen reorders), without
 * the loader's locks: the first resolution may run in the child of a fork no wrapper
 * saw (daemon()) whose parent had another thread inside dlopen, and dl_iterate_phdr's
 * lock is not one libc's fork resets. dl_iterate_phdr is the fallback. */
#include "guard.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <string.h>

typedef void *(*dlsym_fn)(void *, const char *);
typedef void *(*dlvsym_fn)(void *, const char *, const char *);

static dlsym_fn real_dlsym;
static dlvsym_fn real_dlvsym;

struct lookup {
	const char *name;
	void *addr;
};

static uint32_t gnu_hash(const char *s)
{
	uint32_t h = 5381;

	for (; *s; s++)
		h = (h << 5) + h + (unsigned char)*s;
	return h;
}

/* The address of a defined symbol name in one loaded object (its load address and
 * dynamic section), through its GNU hash table; NULL when absent. */
static void *object_lookup(ElfW(Addr) base, const ElfW(Dyn) * dyn, const char *name)
{
	const ElfW(Sym) *symtab = NULL;
	const uint32_t *gh = NULL;
	const char *strtab = NULL;

	for (; dyn && dyn->d_tag != DT_NULL; dyn++) {
		/* The loader has made these absolute; an unrelocated one is an offset. */
		ElfW(Addr) a = dyn->d_un.d_ptr;

		if (a < base)
			a += base;
		if (dyn->d_tag == DT_SYMTAB)
			symtab = (const ElfW(Sym) *)a;
		else if (dyn->d_tag == DT_STRTAB)
			strtab = (const char *)a;
		else if (dyn->d_tag == DT_GNU_HASH)
			gh = (const uint32_t *)a;
	}
	if (!symtab || !strtab || !gh)
		return NULL;
	uint32_t nbuckets = gh[0], symoffset = gh[1], bloom_size = gh[2];
	const ElfW(Addr) *bloom = (const ElfW(Addr) *)(gh + 4);
	const uint32_t *buckets = (const uint32_t *)(bloom + bloom_size);
	const uint32_t *chain = buckets + nbuckets;
	uint32_t h = gnu_hash(name), idx;

	if (!nbuckets)
		return NULL;
	idx = buckets[h % nbuckets];
	if (idx < symoffset)
		return NULL;
	for (;; idx++) {
		uint32_t h2 = chain[idx - symoffset];
		const ElfW(Sym) *s = &symtab[idx];

		if ((h | 1) == (h2 | 1) && s->st_shndx != SHN_UNDEF && s->st_value &&
		    strcmp(strtab + s->st_name, name) == 0)
			return (void *)(base + s->st_value);
		if (h2 & 1)
			return NULL;
	}
}

static int is_libc(const char *path)
{
	const char *base = path ? strrchr(path, '/') : NULL;

	base = base ? base + 1 : path;
	return base && strncmp(base, "libc.so", 7) == 0;
}

static int find_in_libc(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct lookup *l = arg;
	const ElfW(Dyn) *dyn = NULL;

	(void)size;
	if (!is_libc(info->dlpi_name))
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
			dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
	l->addr = object_lookup(info->dlpi_addr, dyn, l->name);
	return 1;
}

/* libc's link map, searched both ways from the guest's own. */
static const struct link_map *libc_map(void)
{
	const struct link_map *self = guard_self_map;

	for (const struct link_map *m = self; m; m = m->l_next)
		if (is_libc(m->l_name))
			return m;
	for (const struct link_map *m = self ? self->l_prev : NULL; m; m = m->l_prev)
		if (is_libc(m->l_name))
			return m;
	return NULL;
}

int guard_libc_stat(struct stat *st)
{
	const struct link_map *m = libc_map();

	return m && m->l_name && m->l_name[0] == '/' ? stat(m->l_name, st) : -1;
}

static void dl_resolve(void)
{
	struct lookup a = {"dlsym", NULL}, b = {"dlvsym", NULL};
	const struct link_map *m;

	if (real_dlsym && real_dlvsym)
		return;
	if ((m = libc_map())) {
		a.addr = object_lookup(m->l_addr, m->l_ld, a.name);
		b.addr = object_lookup(m->l_addr, m->l_ld, b.name);
	}
	if (!a.addr || !b.addr) {
		dl_iterate_phdr(find_in_libc, &a);
		dl_iterate_phdr(find_in_libc, &b);
	}
	__atomic_store_n(&real_dlsym, (dlsym_fn)a.addr, __ATOMIC_RELEASE);
	__atomic_store_n(&real_dlvsym, (dlvsym_fn)b.addr, __ATOMIC_RELEASE);
}

/* r, or the wrapper when r is the real function of a wrapped name. Code rather than a
 * table of names and pointers: a table would cost every process that maps the guard
 * some 350 relocations at start (and the pages they dirty), for a lookup that only
 * programs calling dlsym on an explicit handle make. */
static void *swap(void *r, const char *name)
{
	if (!r || !name)
		return r;
	guard_resolve();
#define GUARD_WRAP(ret, fn, params)                                                     \
	if (strcmp(name, #fn) == 0)                                                     \
		return r == (void *)__atomic_load_n(&guard_real_##fn, __ATOMIC_ACQUIRE) \
			   ? (void *)fn                                                 \
			   : r;
#include "wrap.def"
#undef GUARD_WRAP
	return r;
}

/* Compat versions: libc's function of each, resolved once (compat.def). */
#define GUARD_COMPAT(name, version, wrapper) static void *compat_##name;
#include "compat.def"
#undef GUARD_COMPAT

void *guard_compat_fn(const char *name)
{
	dl_resolve();
#define GUARD_COMPAT(fn, version, wrapper)                                   \
	if (strcmp(name, #fn) == 0) {                                        \
		void *p = __atomic_load_n(&compat_##fn, __ATOMIC_ACQUIRE);   \
		if (!p && real_dlvsym) {                                     \
			p = real_dlvsym(RTLD_NEXT, #fn, version);            \
			__atomic_store_n(&compat_##fn, p, __ATOMIC_RELEASE); \
		}                                                            \
		return p;                                                    \
	}
#include "compat.def"
#undef GUARD_COMPAT
	return NULL;
}

/* r, or the wrapper of that version when r is libc's function of a compat version. */
static void *swap_version(void *r, const char *name, const char *version)
{
	if (!r || !name || !version)
		return swap(r, name);
#define GUARD_COMPAT(fn, ver, wrapper)                                                        \
	if (strcmp(name, #fn) == 0 && strcmp(version, ver) == 0 && r == guard_compat_fn(#fn)) \
		return (void *)wrapper;
#include "compat.def"
#undef GUARD_COMPAT
	return swap(r, name);
}

GUARD_EXPORT __attribute__((optimize("optimize-sibling-calls"))) void *dlsym(void *handle,
									     const char *name)
{
	dl_resolve();
	/* RTLD_DEFAULT too: a libc put ahead of the guard in LD_PRELOAD would answer. */
	if (handle != RTLD_NEXT)
		return swap(real_dlsym ? real_dlsym(handle, name) : NULL, name);
	if (!real_dlsym)
		return NULL;
	return real_dlsym(handle, name); /* a tail call: libc sees our caller */
}

GUARD_EXPORT __attribute__((optimize("optimize-sibling-calls"))) void *
dlvsym(void *handle, const char *name, const char *version)
{
	dl_resolve();
	/* RTLD_DEFAULT too: a versioned lookup never takes the guard's unversioned name. */
	if (handle != RTLD_NEXT)
		return swap_version(real_dlvsym ? real_dlvsym(handle, name, version) : NULL, name,
				    version);
	if (!real_dlvsym)
		return NULL;
	return real_dlvsym(handle, name, version);
}
