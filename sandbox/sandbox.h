/* sandbox.h - the seccomp supervisor that enforces the path rules at the system-call
 * boundary, for static binaries and raw syscalls too: a library whose entry is
 * sbx_run(), which `dcg sandbox` (cli/cmd_sandbox.c) calls once it has loaded the policy
 * and prepared the environment.
 *
 * Layout:
 *   filter.c  builds the BPF program (libseccomp) and installs it with a listener
 *   walk.c    resolves a tracee's path in the supervisor without being fooled by
 *             symlinks swapped in between or by /proc/self (pinned O_PATH descriptors)
 *   super.c   the notification loop: reads paths from the tracee, asks policy/,
 *             performs allowed calls itself and answers with the result
 *   run.c     sbx_run(): fork, filter, exec, and the process tree to its last process
 *
 * Every function returns 0 (or a descriptor) or a negative errno unless said otherwise.
 * Nothing here exits (sbx_run() may die of the signal CMD died of).
 */
#ifndef DCG_SANDBOX_H
#define DCG_SANDBOX_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "dcg_policy.h"

/* Runs cmd (NULL-terminated; cmd[0] looked up in $PATH) in this process's environment
 * under a filter whose notifications the supervisor answers from policy, and serves
 * them until the last process of the tree has exited. Refusal lines go to stderr;
 * $DCG_SANDBOX_STATS adds a line of counts at the end. Returns the exit status for
 * dcg: CMD's status, 128+N when CMD died of signal N (after trying to die of the same
 * signal), 1 on set-up errors (CMD never runs unprotected). Call sbx_kernel_check()
 * first to say early that the kernel lacks what is needed. */
int sbx_run(const struct pol_policy *policy, char *const cmd[]);

/* ---- filter --------------------------------------------------------------------- */

struct sbx_filter_opts {
	int notify_reads; /* 1: every open is notified (zero-access rules exist); 0: only
			   * opens with write/create/truncate flags */
};

/* A BPF program built by sbx_filter_build(); release with sbx_filter_release(). */
struct sbx_filter {
	void *insns; /* struct sock_filter[] (malloc'ed) */
	unsigned short len;
};

/* Builds the filter: path-taking calls go to the listener, escape hatches are refused,
 * syscall numbers libseccomp does not know are refused with ENOSYS. */
int sbx_filter_build(const struct sbx_filter_opts *opts, struct sbx_filter *out);
void sbx_filter_release(struct sbx_filter *f);
/* Sets PR_SET_NO_NEW_PRIVS and installs f on the calling thread; returns the listener
 * descriptor or a negative errno. No malloc (runs in the forked child). */
int sbx_filter_install(const struct sbx_filter *f);
/* Checks that this kernel has what the supervisor needs (seccomp filters, user
 * notification, ADDFD with SEND). Returns 0, or a negative errno with a message
 * naming what is missing in msg. */
int sbx_kernel_check(char *msg, size_t size);

/* ---- path walking ---------------------------------------------------------------- */

enum sbx_walk_mode {
	SBX_WALK_FOLLOW = 0, /* pin the object the path names, following a final symlink */
	SBX_WALK_NOFOLLOW,   /* pin the object, not following a final symlink */
	SBX_WALK_PARENT,     /* pin the parent directory and keep the last name */
};

/* A pinned path: descriptors the supervisor acts through, and the canonical absolute
 * path it checked. fd is an O_PATH descriptor (FOLLOW/NOFOLLOW: the object; PARENT:
 * the directory). name is the last component for PARENT mode (may end in '/' when
 * the path did), empty otherwise. abs is the canonical path of the object (PARENT:
 * of the directory, then "/" and name without the trailing slash). A PARENT path
 * whose last component is "." or ".." (sbx_pin_dots()) names an existing directory:
 * fd and abs are that directory, and name is "." or ".." as written. */
struct sbx_pin {
	int fd;
	char name[NAME_MAX + 2];
	char abs[PATH_MAX];
};

/* Who the walk is for: /proc/self and /proc/thread-self mean this process. */
struct sbx_who {
	pid_t tid;
	pid_t tgid; /* 0 until sbx_who_tgid() looked it up */
};
/* The thread group id of who->tid (from /proc/TID/status, once); tid on failure. */
pid_t sbx_who_tgid(struct sbx_who *who);

/* Resolves path relative to the directory descriptor start (for an absolute path, the
 * supervisor's root is used) as the kernel would for the tracee, but with every
 * symlink followed by hand, "self" and "thread-self" in /proc meaning the tracee, and
 * the result pinned. Returns 0 (pin->fd owned by the caller: sbx_pin_release) or a
 * negative errno the tracee's call would have got (-ENOENT, -ENOTDIR, -ELOOP...). */
int sbx_walk(struct sbx_who *who, int start, const char *path, enum sbx_walk_mode mode,
	     struct sbx_pin *pin);
/* The same, with start_abs the canonical path of start (or NULL): a path resolved
 * without meeting a symlink then gets its canonical name lexically, without asking the
 * kernel (an absolute one always does). */
int sbx_walk_from(struct sbx_who *who, int start, const char *start_abs, const char *path,
		  enum sbx_walk_mode mode, struct sbx_pin *pin);
void sbx_pin_init(struct sbx_pin *pin);
/* 1 when pin's name is "." or ".." (a PARENT walk of "x/." or "x/.."), else 0. */
int sbx_pin_dots(const struct sbx_pin *pin);
void sbx_pin_release(struct sbx_pin *pin);
/* The canonical path of a descriptor (readlink of /proc/self/fd/N) into out. */
int sbx_fd_path(int fd, char *out, size_t size);

/* ---- supervisor ------------------------------------------------------------------- */

struct sbx_super;

struct sbx_super_opts {
	const struct pol_policy *policy;
	int listener; /* the seccomp listener descriptor (taken over) */
	int quiet;    /* no stderr lines (tests) */
	int err_fd;   /* where refusal lines go (2) */
};

/* Creates a supervisor. Returns NULL with errno set on failure. */
struct sbx_super *sbx_super_new(const struct sbx_super_opts *opts);
/* Frees it and closes the listener; NULL is a no-op. */
void sbx_super_free(struct sbx_super *s);
/* Answers one pending notification (the listener was readable). Returns 0, or a
 * negative errno when the listener is gone (-ENOENT: the tracee died meanwhile, which
 * is not an error for the loop). */
int sbx_super_handle_one(struct sbx_super *s);
/* Serves the listener until no tracee is left, blocked in the listener's RECV itself
 * between notifications (so that the kernel's synchronous wake-up hands the CPU over
 * both ways). Returns 0 when the last tracee has gone, or a negative errno when the
 * listener failed. */
int sbx_super_serve(struct sbx_super *s);
/* The listener descriptor, for poll(). */
int sbx_super_fd(const struct sbx_super *s);

struct sbx_stats {
	uint64_t notified, emulated, continued, refused, failed;
};
void sbx_super_stats(const struct sbx_super *s, struct sbx_stats *out);

#endif /* DCG_SANDBOX_H */
