/* engine.h - between the lean guest (libdcg-preload.so) and the policy engine
 * (libdcg-engine.so, installed beside it).
 *
 * Every process of a `dcg run` session maps the guest: the wrappers, the environment,
 * the allocator and the compact path index (policy/pathidx.h). The engine holds the
 * policy library with PCRE2 and libyaml, and the decisions that need it (exec checks,
 * command lines, paths the index cannot settle, refusals and their messages). The
 * guest loads it with dlopen(RTLD_LOCAL) from its own folder at the first such
 * decision, or before a fork (so that no child has to), and reaches it only through
 * the table below; the engine exports dcg_engine_start() alone.
 *
 * The engine's functions run between guard_enter() and guard_leave() of the guest:
 * the libc calls they make go through the guest's wrappers, which pass them on.
 */
#ifndef DCG_PRELOAD_ENGINE_H
#define DCG_PRELOAD_ENGINE_H

#include <stddef.h>
#include <sys/types.h>

#include "dcg_policy.h"

#define GUARD_ENGINE_ABI  3
#define GUARD_ENGINE_NAME "libdcg-engine.so"

/* What the guest lends the engine. */
struct guard_host {
	unsigned abi;
	void *(*alloc)(size_t size);
	void (*free)(void *ptr);
	/* one line to fd 2, when it is still the process's stderr */
	void (*say)(const char *line, size_t len);
	const char *self_path;		    /* the guest's path (dladdr), or NULL */
	long (*real_syscall)(long nr, ...); /* libc's syscall(), or NULL */
	/* The value of one of the guard's own variables (DCG_SNAPSHOT, DCG_SESSION...) as
	 * the process started with it: never what it set since (guard_env_owned()). */
	const char *(*owned_env)(const char *name);
};

/* A bit the guest adds to the flags of an open's check (check_path, check_open; never
 * a POL_PATH_* flag: the engine takes it off before the policy sees them): the open
 * has O_CREAT and may be made exclusive (rt_open_may_excl()). When the decision
 * refuses it, the engine decides it again as the exclusive creation of a new file
 * (POL_OP_CREATE, POL_PATH_CREATE_EXCL | POL_PATH_NOFOLLOW); when that passes, the
 * check says nothing and returns 1, and the guest opens with O_EXCL added. */
#define GUARD_MAY_EXCL (1u << 15)

/* The decisions, as guard.h describes them (the guard_check_* of the same names);
 * check_path and check_open return 1 for an open allowed only as the creation of a
 * new file (GUARD_MAY_EXCL). */
struct guard_engine {
	unsigned abi;
	int (*check_path)(const char *call, int dirfd, const char *path, enum pol_op op,
			  unsigned flags);
	int (*check_builtin)(const char *call, const char *rule_id, const char *input);
	int (*verify_fd)(const char *call, int dirfd, const char *path, int fd, enum pol_op op);
	/* The decision of the open fast path: lexical (dirfd/path in normal form, no
	 * symlink resolved) is judged with POL_PATH_CANONICAL, then the intent. */
	int (*check_open)(const char *call, int dirfd, const char *path, const char *lexical,
			  enum pol_op op, unsigned flags);
	/* argv against the command rules (the file was judged by the guest). */
	int (*check_argv)(const char *call, char *const argv[]);
	int (*check_command)(const char *call, const char *cmd);
	/* Loads the policy and what every exec check needs, before a fork. */
	void (*warm)(void);
};

typedef const struct guard_engine *(*guard_engine_start_fn)(const struct guard_host *host);
/* The engine's one export: its table, or NULL when host's ABI is not its own. */
const struct guard_engine *dcg_engine_start(const struct guard_host *host);

#endif /* DCG_PRELOAD_ENGINE_H */
