/* dl.c - dlsym and dlvsym: a lookup of a wrapped name on an explicit handle (ctypes'
 * CDLL("libc.so.6"), dlopen("libc.so.6")) would return libc's own function and walk
 * around the guard; it returns the wrapper instead. RTLD_NEXT and RTLD_DEFAULT lookups
 * are handed on as a tail call, so that libc still sees the caller's return address
 * (RTLD_NEXT is relative to the caller).
 *
 * The real dlsym cannot be found with dlsym: it is read from libc's own dynamic symbol
 * table (dl_iterate_phdr and its GNU hash table), once. */
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

/* The address of a defined symbol name in one loaded object, through its GNU hash
 * table; NULL when absent. */
static void *object_lookup(const struct dl_phdr_info *info, const char *name)
{
	const ElfW(Sym) *symtab = NULL;
	const uint32_t *gh = NULL;
	const char *strtab = NULL;
	const ElfW(Dyn) *dyn = NULL;

	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
			dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
	for (; dyn && dyn->d_tag != DT_NULL; dyn++) {
		/* The loader has made these absolute; an unrelocated one is an offset. */
		ElfW(Addr) a = dyn->d_un.d_ptr;

		if (a < info->dlpi_addr)
			a += info->dlpi_addr;
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
			return (void *)(info->dlpi_addr + s->st_value);
		if (h2 & 1)
			return NULL;
	}
}

static int find_in_libc(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct lookup *l = arg;
	const char *base = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;

	(void)size;
	base = base ? base + 1 : info->dlpi_name;
	if (!base || strncmp(base, "libc.so", 7) != 0)
		return 0;
	l->addr = object_lookup(info, l->name);
	return 1;
}

static void dl_resolve(void)
{
	struct lookup a = {"dlsym", NULL}, b = {"dlvsym", NULL};

	if (real_dlsym && real_dlvsym)
		return;
	dl_iterate_phdr(find_in_libc, &a);
	dl_iterate_phdr(find_in_libc, &b);
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

GUARD_EXPORT __attribute__((optimize("optimize-sibling-calls"))) void *dlsym(void *handle,
									     const char *name)
{
	dl_resolve();
	if (handle != RTLD_NEXT && handle != RTLD_DEFAULT)
		return swap(real_dlsym ? real_dlsym(handle, name) : NULL, name);
	if (!real_dlsym)
		return NULL;
	return real_dlsym(handle, name); /* a tail call: libc sees our caller */
}

GUARD_EXPORT __attribute__((optimize("optimize-sibling-calls"))) void *
dlvsym(void *handle, const char *name, const char *version)
{
	dl_resolve();
	if (handle != RTLD_NEXT && handle != RTLD_DEFAULT)
		return swap(real_dlvsym ? real_dlvsym(handle, name, version) : NULL, name);
	if (!real_dlvsym)
		return NULL;
	return real_dlvsym(handle, name, version);
}
