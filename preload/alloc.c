/* alloc.c - the allocator decisions use inside the guard (pol_set_allocator).
 *
 * A decision may run between fork and exec of a multi-threaded program, where
 * malloc's locks may be held by a thread that no longer exists, or in a vfork child
 * that shares the parent's heap. So: no locks, only atomics and mmap. Large blocks
 * (the policy arena's 16 KB blocks) are mapped and unmapped one by one; small ones
 * (lazily compiled regexes live as long as the process) come from a shared bump
 * region and are never returned. */
#include "guard.h"

#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>

#define PAGE	     4096u
#define SMALL_MAX    2048u /* larger requests get their own mapping */
#define REGION_BYTES (256u * 1024)

struct header {
	size_t bytes; /* mapping size for a mapped block, 0 for a bump block */
	size_t need;  /* bump blocks: bytes taken from the region (also keeps 16-byte alignment) */
};

struct region {
	_Atomic size_t off;
	size_t size;
};

static _Atomic(struct region *) g_region;

/* Freed mappings kept for reuse: a decision's arena takes and gives back the same few
 * blocks, and an mmap/munmap pair per block per exec check showed in profiles. Each
 * slot is taken and filled with one atomic exchange, so no lock is needed. */
#define CACHE_SLOTS 8
#define CACHE_MAX   (256u * 1024) /* larger mappings go back to the kernel */
static _Atomic(struct header *) g_cache[CACHE_SLOTS];

static void *map(size_t bytes)
{
	void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return m == MAP_FAILED ? NULL : m;
}

static void *bump(size_t need)
{
	for (;;) {
		struct region *r = atomic_load(&g_region);

		if (r) {
			size_t off = atomic_fetch_add(&r->off, need);

			if (off + need <= r->size)
				return (char *)r + off;
		}
		struct region *fresh = map(REGION_BYTES);

		if (!fresh)
			return NULL;
		fresh->size = REGION_BYTES;
		atomic_init(&fresh->off, (sizeof(struct region) + 15) & ~(size_t)15);
		if (!atomic_compare_exchange_strong(&g_region, &r, fresh))
			munmap(fresh, REGION_BYTES); /* another thread won; use its region */
	}
}

void *guard_alloc(size_t size)
{
	struct header *h;
	size_t need;

	if (size > SIZE_MAX - PAGE - sizeof(*h))
		return NULL;
	need = (size + sizeof(*h) + 15) & ~(size_t)15;
	if (need <= SMALL_MAX) {
		h = bump(need);
		if (!h)
			return NULL;
		h->bytes = 0;
		h->need = need;
	} else {
		size_t bytes = (need + PAGE - 1) & ~(size_t)(PAGE - 1);

		for (int i = 0; i < CACHE_SLOTS; i++) {
			struct header *c, *old;

			/* Take the block out before reading its header: a block seen in a
			 * slot may be taken, used and unmapped by another thread meanwhile. */
			if (!atomic_load_explicit(&g_cache[i], memory_order_relaxed))
				continue;
			c = atomic_exchange(&g_cache[i], NULL);
			if (!c)
				continue;
			if (c->bytes >= bytes)
				return c + 1;
			/* Too small: back in its slot (a free block that came in meanwhile
			 * is ours alone once swapped out, so it may be unmapped). */
			old = atomic_exchange(&g_cache[i], c);
			if (old)
				munmap(old, old->bytes);
		}
		h = map(bytes);
		if (!h)
			return NULL;
		h->bytes = bytes;
		h->need = 0;
	}
	return h + 1;
}

/* Kept blocks are never freed: from the bump region up to this size. */
#define KEPT_MAX (REGION_BYTES / 4)

void *guard_alloc_kept(size_t size)
{
	struct header *h;
	size_t need;

	if (size > KEPT_MAX)
		return guard_alloc(size);
	need = (size + sizeof(*h) + 15) & ~(size_t)15;
	h = bump(need);
	if (!h)
		return NULL;
	h->bytes = 0;
	h->need = need;
	return h + 1;
}

void guard_free(void *ptr)
{
	struct header *h;

	if (!ptr)
		return;
	h = (struct header *)ptr - 1;
	if (h->bytes) {
		if (h->bytes <= CACHE_MAX) {
			for (int i = 0; i < CACHE_SLOTS; i++) {
				struct header *expected = NULL;

				if (atomic_compare_exchange_strong(&g_cache[i], &expected, h))
					return;
			}
		}
		munmap(h, h->bytes);
		return;
	}
	/* A bump block freed before anything was allocated after it (a decision's match
	 * data) is given back; anything else stays taken. */
	struct region *r = atomic_load(&g_region);

	if (r && (char *)h > (char *)r && (char *)h < (char *)r + r->size) {
		size_t end = (size_t)((char *)h - (char *)r) + h->need;

		atomic_compare_exchange_strong(&r->off, &end, end - h->need);
	}
}
