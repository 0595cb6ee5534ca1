/* guard.h - the preload guard's glue between libc wrappers and policy/.
 *
 * libdcg-preload.so wraps the libc functions listed in wrap.def. Each wrapper copies
 * its path arguments, asks the guard_check_*() functions below (the path index, else
 * the policy engine, engine.h) and, when allowed, calls the real function. A refusal returns -1 with errno EACCES after
 * one stderr line and one audit-log line.
 *
 * Rules every wrapper keeps (the guard is a guest in someone else's process):
 * - guard_enter() first: it returns 0 when the guard is not ready or the thread is
 *   already inside the guard (the policy, the loader and the logger call libc too);
 *   the wrapper then calls the real function straight away.
 * - guard_leave() before the real call, so that a vfork child that execs does not
 *   leave the parent's thread marked busy.
 * - errno is saved on entry and restored before the real call.
 * - nothing here calls malloc, stdio or takes a lock: decisions allocate through
 *   the guard's mmap allocator (preload/alloc.c), messages go out with one write(2).
 */
#ifndef DCG_GUARD_H
#define DCG_GUARD_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fts.h>
#include <ftw.h>
#include <glob.h>
#include <iconv.h>
#include <nl_types.h>
#include <pthread.h>
#include <stdint.h>
#include <spawn.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/xattr.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <unistd.h>
#include <utime.h>
#include <utmp.h>
#include <utmpx.h>
#include <wordexp.h>

#include "dcg_policy.h"
#include "engine.h" /* GUARD_MAY_EXCL */
#include "rt.h"

#define GUARD_EXPORT __attribute__((visibility("default")))
/* Constant data read at every start or in every exec check, kept writable on purpose:
 * the loader writes the start of .data anyway when it relocates the guard (and a fork
 * child shares that page's table entries with its parent), while .rodata is a page
 * of its own to fault in, in every process and in every fork child. */
#define GUARD_HOT_DATA __attribute__((section(".data.guard_start")))

/* errno through its address cached per thread (initial-exec TLS, in the block the
 * thread's other TLS lies in): libc's __errno_location() lies on a page of libc's code
 * that a fork child faults in for it alone. The address of a thread's errno never
 * changes, and a fork child (or a vfork child, which runs on its parent's thread
 * pointer) has its parent's thread's: the fork wrapper fills the cache before the
 * fork. */
extern __thread int *guard_errno_at __attribute__((tls_model("initial-exec")));
int *guard_errno_location(void); /* a call, as __errno_location() is: smaller code */
#undef errno
#define errno (*guard_errno_location())

struct __catalog_obj; /* catopen()'s private body, wrap.def */

/* The real functions, resolved with dlsym(RTLD_NEXT) by guard_resolve(). */
#define GUARD_WRAP(ret, name, params) extern ret(*guard_real_##name) params;
#include "wrap.def"
#undef GUARD_WRAP

/* The real function name, resolving every symbol first when a call comes before the
 * constructor. May still be NULL when libc lacks the symbol. */
#define GUARD_REAL(name) \
	(guard_real_##name ? guard_real_##name : (guard_resolve(), guard_real_##name))

/* glibc exports pivot_root without declaring it. */
int pivot_root(const char *new_root, const char *put_old);

/* libc's exported names that no public header declares (preload/libc.tsv), wrapped
 * in door.c. */
int __open(const char *path, int flags, ...);
int __open64(const char *path, int flags, ...);
int __open_nocancel(const char *path, int flags, ...);
int __open64_nocancel(const char *path, int flags, ...);
FILE *_IO_fopen(const char *path, const char *mode);
FILE *_IO_popen(const char *cmd, const char *mode);
FILE *_IO_file_fopen(FILE *fp, const char *path, const char *mode, int is32);
FILE *_IO_file_open(FILE *fp, const char *path, int oflags, int prot, int rw, int is32);
FILE *_IO_proc_open(FILE *fp, const char *cmd, const char *mode);
int __libc_system(const char *cmd);
int __xmknod(int ver, const char *path, mode_t mode, dev_t *dev);
int __xmknodat(int ver, int dirfd, const char *path, mode_t mode, dev_t *dev);
FILE *__nss_files_fopen(const char *path);
FILE *__setmntent(const char *path, const char *mode);
int __open_catalog(const char *name, const char *nlspath, const char *env,
		   struct __catalog_obj *cat);
int acct(const char *path);
void _mcleanup(void);
int lckpwdf(void);
void *svcunix_create(int sock, unsigned sendsz, unsigned recvsz, char *path);
FILE *setmntent(const char *path, const char *mode);

/* The older symbol versions of wrapped names whose code differs from the default
 * version's (compat.def): libc's function of that version, resolved once (NULL when
 * libc has none), for the wrappers dlvsym hands out for it. */
void *guard_compat_fn(const char *name);
int guard_posix_spawn_compat(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
			     const posix_spawnattr_t *attr, char *const argv[], char *const envp[]);
int guard_posix_spawnp_compat(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
			      const posix_spawnattr_t *attr, char *const argv[],
			      char *const envp[]);
int guard_glob_compat(const char *pattern, int flags, int (*errfunc)(const char *, int), glob_t *g);
int guard_glob64_compat(const char *pattern, int flags, int (*errfunc)(const char *, int),
			glob_t *g);
int guard_nftw_compat(const char *dir, __nftw_func_t fn, int nfd, int flags);
int guard_nftw64_compat(const char *dir, __nftw_func_t fn, int nfd, int flags);

/* glibc's fortify entry points, not declared without _FORTIFY_SOURCE. */
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);

/* Resolves every real symbol once; idempotent, lock-free, safe from any thread. */
void guard_resolve(void);
/* This object's link map, from the loader at start (NULL when unknown): dl.c finds
 * libc's next to it without taking a loader lock. */
struct link_map;
extern struct link_map *guard_self_map;
/* Registers, once, the fork handler that gets a threaded process ready before a fork
 * no wrapper sees (daemon(), forkpty()): the real functions resolved and the engine
 * loaded in the parent (guard_warm()), so that the child, whose parent's other threads
 * may have held the loader's locks, never has to dlopen. Called when the process
 * starts a thread (the pthread_create wrapper) or resolves the real functions with
 * threads running; a single-threaded process never pays for it. */
void guard_atfork_once(void);

/* Returns 1 and marks the thread busy when the caller should check this call; 0 when
 * the guard is not loaded yet or the thread is already inside the guard. */
int guard_enter(void);
/* Clears the busy mark set by guard_enter(). */
void guard_leave(void);

/* Decides op on path (relative to dirfd, AT_FDCWD for the plain calls). Returns 0
 * when allowed, -1 when refused: the refusal line and the audit line are written.
 * call names the libc function for the messages ("unlink"). Between enter/leave. */
int guard_check_path(const char *call, int dirfd, const char *path, enum pol_op op, unsigned flags);
/* With GUARD_MAY_EXCL in flags (an open with O_CREAT, rt_open_may_excl()),
 * guard_check_path() may also return 1: refused as it is, but allowed as the exclusive
 * creation of a new file, and nothing said; the caller then opens with O_EXCL added,
 * and when that meets an existing file (EEXIST, the caller's flags without O_EXCL)
 * asks guard_check_existing() before it opens as the caller asked. */
#define GUARD_EXCL_PFLAGS (POL_PATH_CREATE_EXCL | POL_PATH_NOFOLLOW)
/* Decides the open with oflags of dirfd/path as one of a file that exists (rt_open_op()
 * with RT_EXISTS_FILE): 0, or -1 refused with the lines written. Between enter/leave. */
int guard_check_existing(const char *call, int dirfd, const char *path, int oflags);
/* Decides a call that a built-in runtime rule refuses whatever its path (rule_id, e.g.
 * RT_RULE_MOUNT): refused with the line and the audit line unless the allowlist names
 * the rule. input names the call's path or NULL. Returns 0 or -1. Between enter/leave. */
int guard_check_builtin(const char *call, const char *rule_id, const char *input);
/* The same for the file an open descriptor refers to (via /proc/self/fd). Anything
 * that is not a path (pipes, sockets) is allowed. */
int guard_check_fd(const char *call, int fd, enum pol_op op);
/* Decides op on the file that open descriptor fd (just opened from dirfd/path with no
 * side effect on it: a read) turned out to be: the kernel's own resolution, read back
 * from /proc/self/fd, and the path as written when it differs. Cheaper than resolving
 * path component by component before the open, and race-free. Returns 0 or -1 like
 * guard_check_path(); the caller closes fd on -1. */
int guard_verify_fd(const char *call, int dirfd, const char *path, int fd, enum pol_op op);
/* guard_verify_fd() after guard_open_fast() found the path as written settled by the
 * index (its *lexical_clean): that half of the check is not made again. */
int guard_verify_fd_lexical_clean(const char *call, int dirfd, const char *path, int fd,
				  enum pol_op op, int lexical_clean);
/* The open fast path: judges dirfd/path lexically (no resolution) and opens it with
 * openat2(RESOLVE_NO_SYMLINKS), which succeeds only when the kernel walked exactly that
 * path, so no symlink check is traded away. Returns the descriptor; -1 with errno
 * (EACCES when refused, else the open's own error); or -2 when nothing was opened
 * and the caller must take the full path (a symlink on the way, no openat2).
 * *lexical_clean is set to 1 when the index settled the path as written as allowed.
 * Both this and guard_open_resolved(): an O_CREAT open the path rules refuse passes
 * when they let it pass as the exclusive creation of a new file (GUARD_MAY_EXCL,
 * asked only then), and is made with O_EXCL added. */
int guard_open_fast(const char *call, int dirfd, const char *path, int flags, mode_t mode,
		    enum pol_op op, unsigned pflags, int *lexical_clean);
/* The open slow path for writes, creations and truncations through a symlink: the path
 * is resolved now, judged as written and as resolved, and the resolved path (which
 * holds no symlink) is opened with openat2(RESOLVE_NO_SYMLINKS): a symlink swapped in
 * after the check makes the open fail (retried, then EACCES) instead of writing
 * elsewhere. Returns the descriptor, -1 with errno, or -2 when the caller must take
 * the plain path (no openat2, /proc and /dev/fd magic links, unresolvable paths). */
int guard_open_resolved(const char *call, int dirfd, const char *path, int flags, mode_t mode,
			enum pol_op op, unsigned pflags);
/* The openat2 the open wrappers make for their caller (guard_open_fast(),
 * guard_open_resolved()), between enter and leave: a cancellation point in a threaded
 * process, as libc's open is (unless the caller turned cancellation off); else the
 * plain system call. Returns the descriptor or -1 with errno. */
struct open_how;
long guard_open_sys(int dirfd, const char *path, const struct open_how *how);
/* Turns cancellation off around the parts of the guard that
 * call libc's cancellation points (the engine, messages, files read); returns what
 * guard_cancel_release() puts back. */
int guard_cancel_hold(void);
void guard_cancel_release(int old);
/* close(fd) with cancellation off (a descriptor refused after its open). */
void guard_close_held(int fd);
/* After a refusal by a wrapper of a cancellation point, out of the guard: acts on a
 * cancellation request pending, as the real call would have. */
void guard_testcancel(void);
/* Decides an exec: the file (already searched in PATH when needed; NULL to skip the
 * file check) and argv against the command rules. Also says once when the file is a
 * static or set-uid program the guard cannot follow. Returns 0 or -1 like above. */
int guard_check_exec(const char *call, int dirfd, const char *file, char *const argv[]);
/* The whole step most wrappers take: guard_enter(), copy path into buf (size bytes),
 * guard_check_path() on the copy, guard_leave(). *use gets the path to hand the real
 * call (the copy, or path itself when it could not be copied). Returns 0 to go on,
 * -1 refused with errno EACCES. errno is unchanged otherwise. */
int guard_check_copy(const char *call, int dirfd, const char *path, enum pol_op op, unsigned flags,
		     char *buf, size_t size, const char **use);
/* Whether dirfd/path is this `dcg run` session's own ($DCG_SESSION; runtime/rt.h):
 * born after the session began and not kept (it replaced no older name); also 1 when
 * nothing is there. */
int guard_session_new(int dirfd, const char *path);
/* The same for an object that must exist: fills o, returns 1 when it is the session's
 * own, 0 when it is not or cannot be looked at. */
int guard_session_obj(int dirfd, const char *path, struct rt_obj *o);
/* Adds o to the session's kept names (it replaces a name older than the session, which
 * stays no-delete). Nothing when the session has no file for them, or under the
 * sandbox (the supervisor keeps its own). Outside enter/leave (it enters). */
void guard_session_keep(const struct rt_obj *o);
/* Whether the path index settles op on dirfd/path as allowed (no rule of the kinds op
 * concerns may cover it); 0 when it cannot say. Between enter/leave. */
int guard_index_allows(int dirfd, const char *path, enum pol_op op, unsigned flags);
/* ---- pinned calls (pin.c) -------------------------------------------------------------
 * A call that takes a path and returns no descriptor is made where it was judged: on a
 * descriptor of the folder of its last name (PARENT: delete, rename, link, new names,
 * the l* and AT_SYMLINK_NOFOLLOW forms) or of the object (the calls that follow a last
 * symlink), opened with O_PATH after the check, with no symlink on the way when it can
 * be; when the kernel's walk met one, the pinned place is judged too. A symlink
 * flipped by another thread between the check and the call changes nothing. */
#define GUARD_PIN_NONE (-1000) /* nothing pinned: the plain call on the path */
struct guard_pin {
	int fd;		  /* AT_FDCWD, the caller's dirfd, an O_PATH descriptor of ours, or NONE */
	int own;	  /* fd is ours (guard_pin_release() closes it) */
	int moved;	  /* the walk met a symlink: the pinned place was judged too */
	int parent;	  /* fd is the folder of name */
	const char *name; /* PARENT: the last name (inside the caller's copy); else "" */
};
void guard_pin_init(struct guard_pin *p);
/* guard_check_copy() (the path as written), then the place pinned (parent: 1 the
 * folder of the last name, 0 the object, following a last symlink) and judged when
 * the walk met a symlink. Returns 0 to go on (p->fd NONE: make the plain call on
 * *use), or -1 with errno: EACCES refused, else the error the call would get (the
 * folder cannot be reached). The caller releases p after the call. */
int guard_check_pinned(const char *call, int dirfd, const char *path, enum pol_op op,
		       unsigned flags, int parent, char *buf, size_t size, const char **use,
		       struct guard_pin *p);
/* Pins the folder of dirfd/path's last name (parent 1) or the object it names,
 * following a last symlink (parent 0): 0 pinned, 1 nothing to pin (no path, a last
 * name "." or "..", the root: make the plain call), -1 with errno (the place cannot be
 * reached). Between enter/leave; the caller judges the pinned place when p->moved. */
int guard_pin_take(int dirfd, const char *path, int parent, struct guard_pin *p);
/* The pinned place as a path for the calls without an *at form: "/proc/self/fd/N"
 * (the object), "/proc/self/fd/N/NAME" (a last name in its folder), NAME alone in the
 * working directory; use when nothing is pinned. buf holds at least 64 + NAME_MAX. */
const char *guard_pin_path(const struct guard_pin *p, const char *use, char *buf, size_t size);
/* Whether a call made through guard_pin_path() failed (rc < 0) only for want of /proc
 * (ENOENT, and no /proc/self/fd): the caller then makes the plain call. errno kept. */
int guard_pin_no_proc(const struct guard_pin *p, int rc);
/* Closes what p holds (errno kept) and empties it. */
void guard_pin_release(struct guard_pin *p);

/* Whether dirfd/path names a directory (not following a last symlink). */
int guard_is_dir(int dirfd, const char *path);

/* Gets a process that is about to fork ready, so that its children do not each redo
 * the work: loads the policy and compiles the patterns every exec check needs.
 * Between enter/leave; the first call does the work, later ones return at once. */
void guard_warm(void);

/* Decides a shell command line run by system() or popen(). Returns 0 or -1. */
int guard_check_command(const char *call, const char *cmd);

/* Environment for a new program: envp with LD_PRELOAD and the guard's DCG_* variables
 * put back. Returns envp itself when nothing is missing, else a new array held in
 * buf (stack slots, or an mmap'ed array for very large environments). Never touches
 * environ or the strings of envp; never calls malloc. NULL envp counts as empty. */
#define GUARD_ENVBUF_SLOTS 256
struct guard_envbuf {
	/* the fields written at every exec first, the buffers after: a fork child writes
	 * as few stack pages as can be */
	char **map; /* mmap'ed array when slots are not enough */
	size_t map_bytes;
	char *preload_map; /* mmap'ed when the merged entry does not fit */
	size_t preload_map_bytes;
	char *slots[GUARD_ENVBUF_SLOTS];
	char preload[2048]; /* the merged LD_PRELOAD entry */
};
char *const *guard_env_build(char *const envp[], struct guard_envbuf *buf);
/* Whether envp already holds what guard_env_build() would put back (it would return
 * envp itself): the common case, decided without a buffer. */
int guard_env_complete(char *const envp[]);
/* Records, from the guard's first environment, what guard_env_build() puts back:
 * the LD_PRELOAD entries up to and including self_path's (so that a sanitizer runtime
 * preloaded ahead of the guard stays ahead), or self_path alone, and the values of
 * DCG_SNAPSHOT, DCG_POLICY, DCG_LOG, DCG_INTENT, DCG_INTENTS_FILE, DCG_SESSION and
 * DCG_SANDBOX. Called by the constructor (and by tests); returns 0 or -ENAMETOOLONG
 * (the guard then re-injects LD_PRELOAD only). */
int guard_env_capture(char *const env[], const char *self_path);
/* The value of one of those variables as captured at start (what a process that
 * cleared its environment, env -i, still carries on), or NULL. */
const char *guard_env_owned(const char *name);
/* Whether envp sets one of the variables that make the loader or libc write a file or
 * load code for the new program (LD_AUDIT, LD_DEBUG_OUTPUT, LD_PROFILE, LD_LIBRARY_PATH,
 * GCONV_PATH, LOCPATH, GMON_OUT_PREFIX, MALLOC_TRACE): then guard_env_vet() judges
 * them. Cheap (a first-letter test an entry): it runs at every exec. */
int guard_env_loader_vars(char *const envp[]);
/* Judges those variables like paths (preload/loader.c): a file the loader would write
 * as a write of it, a folder it would load code from as an exec there (locale files:
 * a read), LD_AUDIT and a libc.so.6 in LD_LIBRARY_PATH other than the running one by
 * the built-in rule runtime.loader. Returns 0, or -1 refused (the lines written).
 * Between enter/leave. */
int guard_env_vet(const char *call, char *const envp[]);
/* Judges each folder of a search list (':' or ';' between them) as op, the refusal
 * line naming var. 0 or -1. Between enter/leave. */
int guard_check_search_list(const char *var, const char *list, enum pol_op op);
/* The running libc's file identity (from the loader's map), for guard_env_vet().
 * Returns 0 or -1. */
int guard_libc_stat(struct stat *st);

/* Unmaps what guard_env_build() mapped (after a failed exec). */
void guard_envbuf_release(struct guard_envbuf *buf);

/* Searches file in $PATH like execvp (first regular executable entry) and writes the
 * path into out. A file with a '/' is copied as it is. Returns 0 or -ENOENT. */
int guard_path_search(const char *file, const char *path_env, char *out, size_t size);

/* Copies a caller's path into buf (size bytes). Returns buf, or NULL when path is
 * NULL or too long (the caller then passes the original to the real call, which
 * reports the error itself). */
const char *guard_copy_path(const char *path, char *buf, size_t size);
/* strnlen(): the guest's string functions are its own (str.c). */
size_t guard_strnlen(const char *s, size_t max);

/* Maps open(2) flags to the operation the path rules judge before the open (the
 * runtime core's rt_open_op() with the file's existence unknown), and adds
 * POL_PATH_NOFOLLOW to *flags for O_NOFOLLOW and O_CREAT|O_EXCL. */
enum pol_op guard_open_op(int oflags, unsigned *flags);
/* The same for an fopen() mode string ("r", "w+", "ax", ...). */
enum pol_op guard_fopen_op(const char *mode, unsigned *flags);
/* The longest fopen() mode string the guard makes exclusive, NUL included. */
#define GUARD_FOPEN_MODE_MAX 32
/* The exclusive form of an fopen() mode that creates ("w" -> "wx", "a+e" -> "ax+e"; one
 * already exclusive as it is) into out (size bytes; out NULL: only whether there is
 * one). 1 done, 0 when there is none ("r", too long, no room among the option letters
 * glibc reads). */
int guard_fopen_excl_mode(const char *mode, char *out, size_t size);

/* Allocator for decisions (pol_set_allocator): mmap-based, lock-free, usable between
 * fork and exec and in vfork children. Small blocks come from a shared bump region
 * and are never returned; large ones are mapped and unmapped one by one. */
void *guard_alloc(size_t size);
void guard_free(void *ptr);
/* A block kept for the life of the process (never passed to guard_free): from the
 * bump region when it fits, so that it adds no mapping of its own (each mapping is
 * a VMA every fork copies and every exec tears down). */
void *guard_alloc_kept(size_t size);

/* Messages are built with the runtime core's struct rt_msg (rt.h). */

/* What a program is, for the "not covered" note on exec. */
enum guard_exe_kind { GUARD_EXE_DYNAMIC = 0, GUARD_EXE_STATIC, GUARD_EXE_SETUID, GUARD_EXE_OTHER };
/* Looks at an executable file's mode and ELF headers (no PT_INTERP: static). Returns
 * GUARD_EXE_OTHER for scripts, unreadable files and anything that is not ELF. */
enum guard_exe_kind guard_exe_kind(const char *path);
/* The same for an open descriptor (O_RDONLY; an O_PATH one gives GUARD_EXE_OTHER). */
enum guard_exe_kind guard_exe_kind_fd(int fd);
/* The same with its system calls made through sys (a syscall() taking four long
 * arguments; NULL: the libc functions), for fork children, where each libc function
 * called first is a page fault. */
enum guard_exe_kind guard_exe_kind_sys(int fd, long (*sys)(long nr, ...));

#endif /* DCG_GUARD_H */
