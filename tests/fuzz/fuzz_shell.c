/* fuzz_shell.c - libFuzzer target for the shell analyser (tokenizer, parser, heredoc and
 * inline-script extraction). Built by tests/fuzz/fuzz.mk with clang
 * -fsanitize=fuzzer,address,undefined; policy/shell_*.c and policy/arena.c are compiled
 * in directly, with the two library functions they need provided here.
 *
 * Besides crashes, leaks and hangs, it checks what every unit promises: texts and
 * paths inside their lengths, word offsets in order and within the text, and languages
 * and rule IDs set where they must be. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "shell.h"

void *pol_mem_alloc(size_t size)
{
	return malloc(size);
}
void pol_mem_free(void *ptr)
{
	free(ptr);
}
int pol_rule_add_builtins(struct pol_policy *p, const struct pol_builtin *b, size_t n)
{
	(void)p, (void)b, (void)n;
	return 0;
}

static size_t units;

static int on_unit(const struct pol_unit *u, void *arg)
{
	volatile unsigned char sink = 0;

	(void)arg;
	units++;
	if (u->len)
		sink ^= (unsigned char)u->text[0] ^ (unsigned char)u->text[u->len - 1];
	switch (u->kind) {
	case POL_UNIT_COMMAND:
		if (!u->argc || !u->argv || !u->word_off || !u->word_is_data || u->argv[u->argc])
			abort();
		for (size_t i = 0; i < u->argc; i++) {
			size_t wl = strlen(u->argv[i]);
			if (u->word_off[i] + wl > u->len)
				abort();
			if (i && u->word_off[i] < u->word_off[i - 1])
				abort();
			if (memcmp(u->text + u->word_off[i], u->argv[i], wl) != 0)
				abort();
			sink ^= u->word_is_data[i];
		}
		break;
	case POL_UNIT_SCRIPT:
		if (!u->language)
			abort();
		break;
	case POL_UNIT_PATH:
		if (!u->path || u->path[u->len] != '\0' || u->op >= POL_OP__COUNT)
			abort();
		break;
	case POL_UNIT_FINDING:
		if (!u->rule_id)
			abort();
		break;
	}
	(void)sink;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pol_arena a;
	struct pol_shell_opts o = {.cwd = "/srv/dcg-corpus/proj", .home = "/home/agent"};
	/* a copy without a terminating NUL, so that a read past the end is caught */
	char *buf = malloc(size ? size : 1);

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	pol_arena_init(&a, 64u * 1024 * 1024);
	int rc = pol_shell_analyze(buf, size, &o, &a, on_unit, NULL);
	if (rc > 0)
		abort(); /* the callback never asked to stop */
	pol_arena_release(&a);
	free(buf);
	return 0;
}
