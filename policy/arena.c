#include "arena.h"

#include <stdint.h>
#include <string.h>

#include "dcg_policy.h"

struct pol_arena_block {
	struct pol_arena_block *next;
	size_t size;
	size_t used;
	/* data follows, aligned */
	max_align_t data[];
};

/* The first block: what an ordinary command's decision needs (`git status`: under
 * 2 KiB). Larger ones double from there. At 16 KiB, the block split from a freed
 * larger chunk (the hook's load area) wrote malloc's header of the rest on a page
 * of its own: a page fault at each hook call. */
#define BLOCK_MIN (2u * 1024)

void pol_arena_init(struct pol_arena *a, size_t cap)
{
	a->head = NULL;
	a->used_total = 0;
	a->cap = cap ? cap : POL_ARENA_DEFAULT_CAP;
}

void pol_arena_release(struct pol_arena *a)
{
	struct pol_arena_block *b = a->head;

	while (b) {
		struct pol_arena_block *next = b->next;
		pol_mem_free(b);
		b = next;
	}
	a->head = NULL;
	a->used_total = 0;
}

void *pol_arena_alloc(struct pol_arena *a, size_t size)
{
	const size_t align = sizeof(max_align_t);
	struct pol_arena_block *b = a->head;
	size_t need;

	if (size == 0)
		size = 1;
	if (size > SIZE_MAX / 2)
		return NULL;
	size = (size + align - 1) & ~(align - 1);
	if (a->used_total + size > a->cap)
		return NULL;
	if (!b || b->size - b->used < size) {
		need = size > BLOCK_MIN ? size : BLOCK_MIN;
		if (b && b->size * 2 > need && b->size < 1024u * 1024)
			need = b->size * 2;
		b = pol_mem_alloc(sizeof(*b) + need);
		if (!b)
			return NULL;
		b->size = need;
		b->used = 0;
		b->next = a->head;
		a->head = b;
	}
	void *p = (char *)b->data + b->used;
	b->used += size;
	a->used_total += size;
	return p;
}

char *pol_arena_strndup(struct pol_arena *a, const char *s, size_t len)
{
	char *d = pol_arena_alloc(a, len + 1);

	if (!d)
		return NULL;
	memcpy(d, s, len);
	d[len] = '\0';
	return d;
}
