/* hook_alloc.c - the allocator of one `dcg hook` process, linked into the dcg binary
 * only (cli/module.mk: not in libdcgcli.a, so no test or library gets it).
 *
 * A hook call lives a millisecond and allocates some 50 blocks, 75 to 115 KB in all,
 * most of it the policy's rule table. glibc's malloc costs it more to start than to
 * use: its first call reads a random key (getrandom), sets up the arena and the
 * thread cache and moves the break twice, on code that nothing else of the call runs.
 * So dcg defines malloc, free, calloc and realloc itself (glibc supports replacing them
 * by symbol interposition: libc, libcjson, PCRE2 and libyaml call these too) and, once
 * main has seen the `hook` command, serves them from a 1 MiB area of .bss:
 *
 * - blocks are 16-byte aligned, as glibc's, with their capacity in the 16 bytes before
 *   them;
 * - a freed block of up to 1 KiB goes on a list of its size and serves the next request
 *   of that size; the last block handed out is given back to the area;
 * - calloc clears only what an earlier block used: the rest of .bss is still zero;
 * - a request the area cannot hold (the 16 MiB limit of a call's input reads up to
 *   there), or any request before the switch, goes to glibc's own functions, and so does
 *   free, realloc and the rest for every pointer outside the area.
 *
 * Not thread-safe: only `dcg hook` switches it on, and a hook process makes no thread.
 * Every other command, and memalign, posix_memalign, aligned_alloc and
 * malloc_usable_size (not replaced; none of dcg's code or libraries calls them), use
 * glibc's allocator as before. Measured in cli/README.md ("The allocator").
 *
 * Under AddressSanitizer (SAN=1) nothing is replaced: its own malloc must see every
 * block. tests/test_hook_alloc.c builds this file with HOOK_ALLOC_TEST, which names the
 * four functions hook_test_*, and drives them directly. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

void hook_alloc_start(void);

#if defined(__SANITIZE_ADDRESS__) && !defined(HOOK_ALLOC_TEST)

void hook_alloc_start(void)
{
}

#else

#ifdef HOOK_ALLOC_TEST
#define HOOK_ALLOC_FN(name) hook_test_##name
#else
#define HOOK_ALLOC_FN(name) name
#endif
#define HOOK_ALLOC_API __attribute__((visibility("default")))

/* glibc's own allocator, under the names it exports for this use */
void *__libc_malloc(size_t size);
void __libc_free(void *ptr);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *ptr, size_t size);

HOOK_ALLOC_API void *HOOK_ALLOC_FN(malloc)(size_t size);
HOOK_ALLOC_API void HOOK_ALLOC_FN(free)(void *ptr);
HOOK_ALLOC_API void *HOOK_ALLOC_FN(calloc)(size_t n, size_t size);
HOOK_ALLOC_API void *HOOK_ALLOC_FN(realloc)(void *ptr, size_t size);

#ifndef HOOK_ALLOC_AREA
#define HOOK_ALLOC_AREA ((size_t)1 << 20)
#endif
#define HOOK_ALLOC_HEAD	 16 /* the capacity, and the alignment kept */
#define HOOK_ALLOC_LISTS 64 /* freed blocks of 16 to 1,024 bytes, by size */

/* cli/hook.order puts the words a call writes on the page of .bss the loader writes
 * anyway, and the area right after the call record. */
static int alloc_on;
static size_t alloc_top;   /* where the next block's head goes: the last block's end */
static size_t alloc_dirty; /* the highest top a give-back started from: bytes above both
			    * this and alloc_top were never handed out, still zero */
static void *alloc_lists[HOOK_ALLOC_LISTS + 1];
static unsigned char alloc_area[HOOK_ALLOC_AREA] __attribute__((aligned(64)));

void hook_alloc_start(void)
{
	/* The first block starts a page: the area follows the call record, whose tail
	 * (scratch buffers for a search tool) no other call writes. Not by aligning the
	 * area itself, which would align all of .bss and move the variables above off the
	 * page the loader writes. */
	alloc_top = alloc_dirty = (size_t)(-(uintptr_t)alloc_area & 4095);
	alloc_on = 1;
}

static inline int in_area(const void *p)
{
	return (uintptr_t)p >= (uintptr_t)alloc_area &&
	       (uintptr_t)p < (uintptr_t)alloc_area + HOOK_ALLOC_AREA;
}

static inline size_t *capacity(void *p)
{
	return (size_t *)((unsigned char *)p - sizeof(size_t));
}

/* A block of at least size bytes, or NULL when the area cannot hold it; *clean when
 * its bytes were never handed out (zero). */
static void *take(size_t size, int *clean)
{
	size_t cap, at;
	void *p;

	if (size > HOOK_ALLOC_AREA)
		return NULL;
	cap = size ? (size + 15) & ~(size_t)15 : 16;
	if (cap / 16 <= HOOK_ALLOC_LISTS && (p = alloc_lists[cap / 16])) {
		alloc_lists[cap / 16] = *(void **)p;
		*clean = 0;
		return p;
	}
	if (alloc_top > HOOK_ALLOC_AREA - HOOK_ALLOC_HEAD ||
	    cap > HOOK_ALLOC_AREA - HOOK_ALLOC_HEAD - alloc_top)
		return NULL;
	at = alloc_top + HOOK_ALLOC_HEAD;
	alloc_top = at + cap;
	*capacity(alloc_area + at) = cap;
	*clean = at >= alloc_dirty;
	return alloc_area + at;
}

HOOK_ALLOC_API void *HOOK_ALLOC_FN(malloc)(size_t size)
{
	void *p;
	int clean;

	if (alloc_on && (p = take(size, &clean)))
		return p;
	return __libc_malloc(size);
}

HOOK_ALLOC_API void HOOK_ALLOC_FN(free)(void *ptr)
{
	size_t at, cap;

	if (!ptr) /* not even a lazy binding of __libc_free for it */
		return;
	if (!in_area(ptr)) {
		__libc_free(ptr);
		return;
	}
	at = (size_t)((unsigned char *)ptr - alloc_area);
	cap = *capacity(ptr);
	if (at + cap == alloc_top) {
		if (alloc_top > alloc_dirty)
			alloc_dirty = alloc_top;
		alloc_top = at - HOOK_ALLOC_HEAD;
	} else if (cap / 16 <= HOOK_ALLOC_LISTS) {
		*(void **)ptr = alloc_lists[cap / 16];
		alloc_lists[cap / 16] = ptr;
	}
}

HOOK_ALLOC_API void *HOOK_ALLOC_FN(calloc)(size_t n, size_t size)
{
	size_t total;
	void *p;
	int clean;

	if (!alloc_on || __builtin_mul_overflow(n, size, &total) || !(p = take(total, &clean)))
		return __libc_calloc(n, size);
	if (!clean)
		memset(p, 0, *capacity(p));
	return p;
}

HOOK_ALLOC_API void *HOOK_ALLOC_FN(realloc)(void *ptr, size_t size)
{
	size_t at, cap, want;
	void *q;

	if (!ptr)
		return HOOK_ALLOC_FN(malloc)(size);
	if (!in_area(ptr))
		return __libc_realloc(ptr, size);
	if (!size) { /* as glibc: freed, NULL */
		HOOK_ALLOC_FN(free)(ptr);
		return NULL;
	}
	cap = *capacity(ptr);
	if (size <= cap)
		return ptr;
	at = (size_t)((unsigned char *)ptr - alloc_area);
	if (at + cap == alloc_top && size <= HOOK_ALLOC_AREA - at &&
	    (want = (size + 15) & ~(size_t)15) <= HOOK_ALLOC_AREA - at) {
		alloc_top = at + want; /* the last block grows in place */
		*capacity(ptr) = want;
		return ptr;
	}
	q = HOOK_ALLOC_FN(malloc)(size);
	if (!q)
		return NULL; /* ptr stays valid, as realloc's contract says */
	memcpy(q, ptr, cap);
	HOOK_ALLOC_FN(free)(ptr);
	return q;
}

#endif
