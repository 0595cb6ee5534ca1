/* arena.h - a bump allocator for one decision. Internal to policy/.
 *
 * Blocks come from pol_mem_alloc() (so from the host's allocator when it set one).
 * Nothing is freed one by one: pol_arena_release() frees every block. A cap bounds
 * the total, so hostile input cannot exhaust memory: past it, allocations fail.
 */
#ifndef DCG_ARENA_H
#define DCG_ARENA_H

#include <stddef.h>

struct pol_arena_block;

struct pol_arena {
	struct pol_arena_block *head;
	size_t used_total; /* bytes handed out, for the cap */
	size_t cap;	   /* 0: POL_ARENA_DEFAULT_CAP */
};

#define POL_ARENA_DEFAULT_CAP (256u * 1024 * 1024)

/* Sets up an empty arena with a cap in bytes (0 for the default). */
void pol_arena_init(struct pol_arena *a, size_t cap);
/* Frees every block; the arena can be used again afterwards. */
void pol_arena_release(struct pol_arena *a);
/* Returns size bytes aligned for any type, or NULL when out of memory or past the cap. */
void *pol_arena_alloc(struct pol_arena *a, size_t size);
/* Copies len bytes and adds a NUL; NULL on failure. */
char *pol_arena_strndup(struct pol_arena *a, const char *s, size_t len);

#endif /* DCG_ARENA_H */
