/* test_hook_alloc.c - the allocator of `dcg hook` (cli/hook_alloc.c), built here under
 * the names hook_test_malloc, _free, _calloc and _realloc (HOOK_ALLOC_TEST) over an area
 * of 64 KiB, so that the test process keeps glibc's malloc and the area fills quickly.
 * Criterion runs each test in a process of its own: each starts with a fresh area.
 * What dcg itself does with it is checked end to end by test_cli (every hook test runs
 * the dcg binary, which uses it) and by the 100 MB call that reads past the area. */
#define HOOK_ALLOC_TEST 1
#define HOOK_ALLOC_AREA ((size_t)64 * 1024)
#include "../cli/hook_alloc.c"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

TestSuite(hook_alloc, .timeout = 30);

static int inside(const void *p)
{
	return (const unsigned char *)p >= alloc_area &&
	       (const unsigned char *)p < alloc_area + HOOK_ALLOC_AREA;
}

static void fill(void *p, size_t n, int seed)
{
	for (size_t i = 0; i < n; i++)
		((unsigned char *)p)[i] = (unsigned char)(seed + i * 7);
}

static int holds(const void *p, size_t n, int seed)
{
	for (size_t i = 0; i < n; i++)
		if (((const unsigned char *)p)[i] != (unsigned char)(seed + i * 7))
			return 0;
	return 1;
}

Test(hook_alloc, before_the_switch_every_block_is_glibcs)
{
	void *p = hook_test_malloc(100), *q = hook_test_calloc(4, 8);

	cr_assert(p && q);
	cr_assert(!inside(p) && !inside(q));
	fill(p, 100, 1);
	p = hook_test_realloc(p, 5000);
	cr_assert(p && !inside(p) && holds(p, 100, 1));
	hook_test_free(p);
	hook_test_free(q);
	hook_test_free(NULL);
}

Test(hook_alloc, blocks_are_aligned_apart_and_keep_their_bytes)
{
	void *b[40];
	size_t sizes[40];

	hook_alloc_start();
	for (int i = 0; i < 40; i++) {
		sizes[i] = (size_t)(i * 37) % 700;
		b[i] = hook_test_malloc(sizes[i]);
		cr_assert(b[i] && inside(b[i]), "block %d", i);
		cr_assert_eq((uintptr_t)b[i] % 16, 0, "block %d not 16-byte aligned", i);
		fill(b[i], sizes[i], i);
	}
	cr_assert_eq(((uintptr_t)b[0] - HOOK_ALLOC_HEAD) % 4096, 0,
		     "the first block starts no page");
	for (int i = 0; i < 40; i++)
		cr_assert(holds(b[i], sizes[i], i), "block %d was overwritten", i);
	for (int i = 0; i < 40; i += 2)
		hook_test_free(b[i]);
	for (int i = 1; i < 40; i += 2)
		cr_assert(holds(b[i], sizes[i], i), "block %d changed when others were freed", i);
}

Test(hook_alloc, the_last_block_goes_back_and_a_freed_size_is_reused)
{
	hook_alloc_start();
	void *a = hook_test_malloc(48), *b = hook_test_malloc(200);

	hook_test_free(b);
	cr_assert_eq(hook_test_malloc(300), b, "the last block was not given back");
	hook_test_malloc(16); /* a is no longer next to the top */
	hook_test_free(a);
	cr_assert_eq(hook_test_malloc(40), a, "a freed block of the same size was not reused");
	cr_assert_neq(hook_test_malloc(40), a);
}

Test(hook_alloc, calloc_clears_what_an_earlier_block_used)
{
	hook_alloc_start();
	unsigned char *a = hook_test_malloc(256), *keep = hook_test_malloc(64);
	unsigned char *c, *big;

	memset(a, 0xAA, 256);
	memset(keep, 0xBB, 64);
	hook_test_free(a); /* on the list of 256-byte blocks */
	c = hook_test_calloc(16, 16);
	cr_assert_eq(c, a);
	for (int i = 0; i < 256; i++)
		cr_assert_eq(c[i], 0, "byte %d of a reused block not cleared", i);

	big = hook_test_malloc(4000); /* the top, then given back: dirty */
	memset(big, 0xCC, 4000);
	hook_test_free(big);
	c = hook_test_calloc(1, 3000);
	cr_assert_eq(c, big);
	for (int i = 0; i < 3000; i++)
		cr_assert_eq(c[i], 0, "byte %d of a given-back area not cleared", i);
	c = hook_test_calloc(1, 2000); /* partly over the old block, partly fresh */
	for (int i = 0; i < 2000; i++)
		cr_assert_eq(c[i], 0, "byte %d across the mark not cleared", i);
	for (int i = 0; i < 64; i++)
		cr_assert_eq(keep[i], 0xBB);
}

Test(hook_alloc, calloc_overflow_is_refused)
{
	hook_alloc_start();
	errno = 0;
	cr_assert_null(hook_test_calloc(SIZE_MAX / 2, 4));
	cr_assert_eq(errno, ENOMEM);
}

Test(hook_alloc, realloc_grows_in_place_moves_and_shrinks)
{
	hook_alloc_start();
	unsigned char *p = hook_test_realloc(NULL, 100), *q, *r;

	cr_assert(p && inside(p));
	fill(p, 100, 3);
	q = hook_test_realloc(p, 3000); /* the last block: grows where it is */
	cr_assert_eq(q, p);
	cr_assert(holds(q, 100, 3));
	fill(q, 3000, 4);
	r = hook_test_malloc(10); /* q is no longer the last block */
	q = hook_test_realloc(q, 6000);
	cr_assert(q && q != p && inside(q));
	cr_assert(holds(q, 3000, 4), "bytes lost when the block moved");
	cr_assert_eq(hook_test_realloc(q, 20), q, "a smaller size moved the block");
	cr_assert(holds(q, 20, 4));
	cr_assert_null(hook_test_realloc(r, 0), "realloc to 0 frees and returns NULL");
}

Test(hook_alloc, what_the_area_cannot_hold_goes_to_glibc)
{
	hook_alloc_start();
	unsigned char *small = hook_test_malloc(1000), *p, *q;
	void *blocks[200];
	int n = 0;

	cr_assert(inside(small));
	p = hook_test_malloc(HOOK_ALLOC_AREA); /* larger than what is left */
	cr_assert(p && !inside(p));
	fill(p, HOOK_ALLOC_AREA, 5);
	hook_test_free(p);

	/* Fill the area with 1,000-byte blocks until one comes from glibc. */
	while (n < 200 && (blocks[n] = hook_test_malloc(1000)) && inside(blocks[n])) {
		fill(blocks[n], 1000, n + 1);
		n++;
	}
	cr_assert(n > 10 && n < 200, "%d blocks", n);
	cr_assert(blocks[n] && !inside(blocks[n]));
	hook_test_free(blocks[n]);
	/* Then exactly to its last byte, and one byte more: glibc's, never past the end. */
	size_t left = HOOK_ALLOC_AREA - alloc_top;
	if (left > HOOK_ALLOC_HEAD) {
		void *last = hook_test_malloc(left - HOOK_ALLOC_HEAD);

		cr_assert(inside(last), "%zu bytes left, not given", left);
		cr_assert_eq(alloc_top, HOOK_ALLOC_AREA);
	}
	for (int i = 0; i < 3; i++) {
		void *more = hook_test_malloc(1 + (size_t)i * 500);

		cr_assert(more && !inside(more), "a request after the area filled landed in it");
		hook_test_free(more);
	}
	for (int i = 0; i < n; i++)
		cr_assert(holds(blocks[i], 1000, i + 1), "block %d overwritten", i);

	/* A block of the area grown past what the area can hold moves to glibc intact. */
	fill(small, 1000, 6);
	q = hook_test_realloc(small, 3 * HOOK_ALLOC_AREA);
	cr_assert(q && !inside(q));
	cr_assert(holds(q, 1000, 6));
	q = hook_test_realloc(q, 4 * HOOK_ALLOC_AREA);
	cr_assert(q && holds(q, 1000, 6));
	hook_test_free(q);
}
