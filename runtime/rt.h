/* rt.h - the runtime core shared by the two runtime layers (the preload guard and the
 * sandbox supervisor): the table of path-taking system calls, the rule that turns open
 * flags into an operation, the refusal line, the audit line and the terminal ask.
 *
 * Both layers translate their world (a libc call, a seccomp notification) into these
 * facts and the policy's answer back, so that a call means the same thing in both.
 * Nothing here allocates, takes a lock or uses stdio: the preload calls it between
 * fork and exec. Prefix rt_.
 */
#ifndef DCG_RT_H
#define DCG_RT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>

#include "dcg_policy.h"

/* Numbers newer than some C libraries' headers (x86_64). */
#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif
#ifndef SYS_open_tree
#define SYS_open_tree 428
#endif
#ifndef SYS_move_mount
#define SYS_move_mount 429
#endif
#ifndef SYS_fsopen
#define SYS_fsopen 430
#endif
#ifndef SYS_fsconfig
#define SYS_fsconfig 431
#endif
#ifndef SYS_fsmount
#define SYS_fsmount 432
#endif
#ifndef SYS_fspick
#define SYS_fspick 433
#endif
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
#define RT_NR(name) SYS_##name

/* ---- the syscall table (syscalls.def) -------------------------------------------- */

enum rt_kind { RT_OPEN = 0, RT_OPEN2, RT_PATH, RT_FD, RT_EXEC, RT_BIND, RT_HANDLE, RT_MOUNT };

/* name is an array, not a pointer: the table then needs no relocation at each start
 * of every binary that holds it and lies in read-only data (the hook: a copy-on-write
 * page fault less). rt.c checks that every name fits. */
#define RT_SYSCALL_NAME_MAX 24
struct rt_syscall {
	char name[RT_SYSCALL_NAME_MAX];
	long nr;
	enum rt_kind kind;
	signed char fl, dfd, path, dfd2, path2; /* argument indexes, -1 none */
	enum pol_op op, op2;
	unsigned pflags, pflags2;
};

extern const struct rt_syscall rt_syscalls[];
extern const size_t rt_syscall_count;

/* The rows' positions in rt_syscalls[] (RT_ROW_openat...), for a layer's side table
 * of what the common columns cannot say, indexed by row (row - rt_syscalls). */
enum rt_row {
#define RT_SYSCALL(name, ...) RT_ROW_##name,
#include "syscalls.def"
#undef RT_SYSCALL
	RT_ROW__COUNT
};

/* The row of system call number nr, or NULL when it takes no path. O(1). */
const struct rt_syscall *rt_syscall_find(long nr);

/* One path argument of a call, as the rules judge it. */
struct rt_arg {
	int dirfd;	  /* AT_FDCWD or the descriptor the path is relative to */
	const char *path; /* NULL with by_fd: the descriptor itself is the object */
	enum pol_op op;
	unsigned pflags;
	int by_fd; /* judge the object behind dirfd (AT_EMPTY_PATH, utimensat(fd, NULL)) */
};

/* The POL_PATH_* flags of path argument which (0 or 1) of a RT_PATH or RT_HANDLE call
 * whose flags argument (at s->fl; 0 when none) is fl: the row's, with AT_SYMLINK_NOFOLLOW,
 * AT_SYMLINK_FOLLOW (linkat, name_to_handle_at) and AT_REMOVEDIR (unlinkat) applied to
 * the first. Other kinds, renameat2's RENAME_* flags and the second path: the row's. */
unsigned rt_syscall_pflags(const struct rt_syscall *s, int which, long fl);

/* Fills out[] with the path arguments of a RT_PATH, RT_FD or RT_HANDLE call made with
 * arguments a[] (pointers in this process): AT_* and RENAME_* flags applied (an
 * exchange moves the target away too). Returns how many (0 to 2). */
int rt_syscall_args(const struct rt_syscall *s, const long a[6], struct rt_arg out[2]);

/* ---- open flags ------------------------------------------------------------------ */

enum rt_exists { RT_EXISTS_UNKNOWN = 0, RT_EXISTS_FILE, RT_EXISTS_DIR, RT_EXISTS_NOT };

/* The operation an open with flags oflags performs on its path: CREATE (O_TMPFILE, or
 * O_CREAT when the file does not exist or that is unknown), TRUNCATE (O_TRUNC, which
 * truncates on Linux even with O_RDONLY), WRITE (O_WRONLY/O_RDWR; O_APPEND without
 * write access writes nothing), LIST (a directory opened to read, or O_DIRECTORY),
 * else READ (O_PATH always). Adds POL_PATH_NOFOLLOW to *pflags for O_NOFOLLOW and for
 * O_CREAT|O_EXCL (which never follows a last symlink). */
enum pol_op rt_open_op(int oflags, enum rt_exists exists, unsigned *pflags);
/* Whether an open with oflags that the path rules refuse may be decided again as the
 * exclusive creation of a new file (POL_OP_CREATE with POL_PATH_CREATE_EXCL and
 * POL_PATH_NOFOLLOW): O_CREAT without O_TMPFILE, O_PATH or O_DIRECTORY. A layer whose
 * second decision passes makes the open with O_EXCL added, so that it can never meet
 * an existing file; when that meets one (EEXIST, and the caller did not ask for
 * O_EXCL), the open is decided again as one of an existing file (rt_open_op() with
 * RT_EXISTS_FILE). Asked only after a refusal: an allowed open costs nothing more. */
int rt_open_may_excl(int oflags);

/* ---- sessions ------------------------------------------------------------------- */

/* DESIGN.md, "No-delete protects names": a session may delete again, in a no-delete
 * folder, only the names it created. A name is the session's own when the object at
 * it was born after the session began (on the file system's own clock, compared
 * strictly) and did not take the place of a name that was there before (an atomic
 * save over an older file: sed -i, os.replace, perl -i), which the session keeps
 * (rt_kept_*). */

/* An object as the session rules see it: where it lives, when it was born, what it
 * is. born: its birth time in nanoseconds since the epoch where the file system keeps
 * one, else its change time (set with the birth, on every file system). */
struct rt_obj {
	uint64_t dev, ino;
	long long born;
	unsigned mode; /* S_IFMT bits and permissions */
	int has_btime; /* born is the birth time (which never changes), not the change time */
};

/* Looks at dirfd/path (not following a last symlink; path "": dirfd's own object).
 * Returns 0, or a negative errno (-ENOENT: nothing there). errno is kept. */
int rt_obj_at(int dirfd, const char *path, struct rt_obj *o);

/* Whether dirfd/path (not following a last symlink; path "": dirfd's own object) was
 * created after start_ns (nanoseconds since the epoch, the session's start from
 * rt_session_now() or rt_session_begin(): strictly after, so that nothing stamped in
 * the same instant as the start passes): its birth time where the file system keeps
 * one, else its change time; also 1 when there is nothing at that name (ENOENT:
 * nothing to protect, the call will fail by itself). 0 when start_ns is 0 or the file
 * cannot be looked at. An atomic save's temporary file made during the session
 * passes; a file that existed before does not. On a file system that stamps whole
 * seconds, a file made in the session's first second counts as older (refused, never
 * let through). */
int rt_created_since(int dirfd, const char *path, long long start_ns);

/* The start of a session that begins now, in nanoseconds since the epoch, on the clock
 * the file systems stamp files with: the stamp of a file made now (an unnamed
 * O_TMPFILE in /tmp, /var/tmp, /dev/shm or the working directory; the coarse clock
 * where none can be made). It returns once the kernel's coarse clock has passed that
 * stamp (at most one tick, 1 to 10 ms): every file made before it returned carries a
 * stamp at or before the start, every file made after it one strictly later, on every
 * file system with nanosecond stamps (the kernel's multigrain timestamps included).
 * The supervisor uses it when no launcher set $DCG_SESSION. */
long long rt_session_now(void);
/* The same with a file the launcher keeps: creates file (O_EXCL, 0600; it must not
 * exist) and takes the start from its stamp. The file is then the session's list of
 * kept names (rt_kept_add()). Returns the start, or a negative errno (nothing made). */
long long rt_session_begin(const char *file);

/* A process's arguments (path: /proc/self/cmdline or /proc/PID/cmdline) into buf,
 * NUL-separated and NUL-ended (a last word cut short is ended too), for owners that
 * name a subcommand (pol_ctx.args). Returns the length, 0 when unreadable; errno kept. */
size_t rt_read_args(const char *path, char *buf, size_t size);

/* The start of process pid (0: this one) in clock ticks since boot (/proc/PID/stat's
 * starttime), which a process cannot change: a pid taken over after its process died
 * has a later one. 0 when unreadable; errno kept. */
unsigned long long rt_proc_start(pid_t pid);
/* Whether a question may be put on this process's terminal (rt_ask_tty()): its
 * controlling terminal must be the wrapped agent's (agent, started at agent_start, from
 * $DCG_SESSION), which the user watches. A terminal the agent's tools made themselves
 * (a pty: python's pty.fork, script, expect) is theirs to answer: no. No agent given
 * (a shell prefix): 1, the old rule. errno kept. */
int rt_ask_terminal_ok(pid_t agent, unsigned long long agent_start);
/* Whether dcg's binary, run with args (NUL-separated, as /proc/PID/cmdline, which
 * after the exec holds what the kernel copied and only dcg's own code runs there),
 * is changing the guard itself: allow, allow-once, unallow, trust, untrust, install,
 * uninstall, in any spelling main.c accepts (allow_once), after --policy FILE. Such
 * a process is not ":dcg": it may not write dcg's state (allow-once grants, trust
 * records), whose writes only the hook and the refusals make under a guard. 1 also
 * when args are unknown (len 0). */
int rt_dcg_changes_guard(const char *args, size_t len);

/* $DCG_SESSION, set by the launcher (cli/launch.c) and put again by the sandbox's
 * child for the agent it execs (sandbox/run.c), read by the preload, the supervisor
 * and the CLI with rt_session_parse() alone:
 *
 *     PID.SECONDS.NANOSECONDS.AGENTSTART:FILE
 *
 * PID, the wrapped agent (0: none, under an agent's shell prefix); SECONDS and
 * NANOSECONDS (nine digits), the session's start (rt_session_begin()); AGENTSTART,
 * the agent process's rt_proc_start() (0 with no agent): its pid is the agent only
 * while the process that holds it started then (":agent" dies with the agent);
 * ":FILE", the session's file of kept names, an absolute path, left out when none
 * could be made. The shorter forms PID.SECONDS (the start taken as the next whole
 * second, so that a file made in the session's first second never counts as its
 * own), PID.SECONDS.NANOSECONDS and either with ":FILE" are read too, with no agent
 * start. Fail closed: a value with anything else in it (a letter, an empty or
 * out-of-range field, a FILE that is relative or holds an empty, "." or ".."
 * component) is refused whole: nothing is taken from it. */
struct rt_session {
	pid_t agent;			/* 0: none */
	unsigned long long agent_start; /* 0: not given (then no process is the agent) */
	long long start_ns;		/* 0: unknown (nothing is the session's own) */
	const char *kept;		/* FILE, pointing into the value; NULL: none */
};
/* Parses value into s. Returns 0, or -EINVAL (s emptied: no agent, start 0, no FILE).
 * No allocation, no system call. */
int rt_session_parse(const char *value, struct rt_session *s);
/* Writes s in the full form into buf (":FILE" when s->kept). Returns the length, or
 * -ENAMETOOLONG (buf then holds ""). */
int rt_session_format(char *buf, size_t size, const struct rt_session *s);
/* Whether the calling process is the session's agent: its pid, and its process's
 * start given and the same (rt_proc_start()). */
int rt_session_is_agent(const struct rt_session *s);

/* ---- kept names: objects that took the place of a name older than the session ----- */

/* The record of one kept object in the session's file (fixed size, appended whole
 * with one write to an O_APPEND descriptor: concurrent writers never interleave).
 * born is the birth time, or 0 where the file system keeps none (a change time moves
 * with the rename itself: the device and inode alone then). */
struct rt_kept {
	uint64_t dev, ino;
	int64_t born;
};

/* The rule both layers apply with these: the object at a name is the session's own
 * when it was born after the start (rt_created_since()) and is not kept. A regular
 * file of the session's own that replaces a name whose object is not (an atomic save
 * over an older or kept file) is kept from then on, before the rename is made. */

/* The record of o. */
void rt_kept_of(const struct rt_obj *o, struct rt_kept *k);
/* Appends o to the session's file of kept names. Returns 0 or a negative errno. No
 * allocation, safe between fork and exec. */
int rt_kept_add(const char *file, const struct rt_obj *o);
/* Whether o is in the session's file of kept names (file NULL: no). 1 yes, 0 no; 1
 * too when the file cannot be opened or read (a session whose file is gone or was
 * never its own keeps everything: fail closed). No allocation. */
int rt_kept_has(const char *file, const struct rt_obj *o);

/* ---- messages -------------------------------------------------------------------- */

/* A line built in a caller's buffer: appends are cut at the end, always terminated. */
struct rt_msg {
	char *buf;
	size_t len, size;
};
void rt_msg_init(struct rt_msg *m, char *buf, size_t size);
void rt_msg_add(struct rt_msg *m, const char *s);
void rt_msg_addn(struct rt_msg *m, const char *s, size_t n);
void rt_msg_addu(struct rt_msg *m, unsigned long v);
/* Appends argv's words (NULL-ended), joined by single spaces, as far as m holds. */
void rt_msg_add_argv(struct rt_msg *m, char *const argv[]);

/* What a line names: for a path decision the whole path the rule matched (r->path),
 * never a name relative to a dirfd nor the command that touched it; else input. */
const char *rt_shown(const char *input, const struct pol_result *r);

/* Appends "dcg: WHAT CALL of PATH: KIND PATTERN [RULE]" (path rules; an entry with a
 * reason of its own, as the runsLater entries have, adds ": REASON; instead:
 * SUGGESTION" before the rule), "...: REASON
 * [RULE]" (scopes, commands, built-in rules) to m, without a newline. what is
 * "blocked", "asks: allow", ... When a call that starts a program (exec*, system,
 * popen, posix_spawn*) is refused for a path its words name, the line is "dcg: WHAT
 * CALL of COMMAND: it would OP PATH: KIND PATTERN [RULE]", the command with secrets
 * redacted and cut after RT_SHOWN_COMMAND bytes. */
#define RT_SHOWN_COMMAND 120
void rt_describe(struct rt_msg *m, const char *what, const char *call, const char *input,
		 const struct pol_result *r);

/* Appends the audit line of a runtime decision (layer "preload" or "sandbox"); pid 0
 * is the caller. Returns pol_log_append()'s result; a failure changes nothing. */
int rt_audit(const char *layer, const char *call, const char *input, const struct pol_result *r,
	     pid_t pid, const char *cwd);

/* ---- the ask ----------------------------------------------------------------------- */

#define RT_ASK_TIMEOUT_MS 30000

/* Refusal lines one process prints before it says, once, that the rest go to the audit
 * log only: `rm -rf` of a protected tree meets one refusal per file (40,000 for a
 * repository's .git/), which would bury the agent's output and the user's terminal. */
#define RT_TOLD_MAX 20
/* That last line. */
#define RT_TOLD_MORE "dcg: further refusals of this process go to the audit log only (dcg log)"
/* The refusal lines a process has been told (RT_TOLD_MAX): their count and the last
 * line's hash. Zeroed: nothing told yet. */
struct rt_told {
	unsigned count;
	uint64_t last;
};
/* The place of line among the lines told through t: below RT_TOLD_MAX say it, at
 * RT_TOLD_MAX say RT_TOLD_MORE instead, above it say nothing (the audit log keeps every
 * refusal). A line the same as the one just told is above: a PATH search (execvp, bash's,
 * Python's os.execvp) tries a refused program in each folder, merged /usr has two. Safe
 * between threads (the preload's). */
unsigned rt_told_next(struct rt_told *t, const char *line, size_t len);

/* Asks question on /dev/tty and waits RT_ASK_TIMEOUT_MS for an answer. Returns 1 for
 * y/Y, 0 for anything else, a timeout or no terminal (and then says "denied"). */
int rt_ask_tty(const char *question);

/* ---- built-in runtime rules ------------------------------------------------------------ */

/* Refusals decided by the runtime layers themselves, registered by pol_new() so that
 * they are listed, logged and can be allowed like any rule. */
#define RT_RULE_MOUNT	     "runtime.mount"
#define RT_RULE_RAW_WRITE    "sandbox.raw_write"
#define RT_RULE_MKNOD_DEVICE "sandbox.mknod_device"
#define RT_RULE_CORE_DUMP    "runtime.core_dump"
#define RT_RULE_LOADER	     "runtime.loader"
#define RT_RULE_TTY_INJECT   "runtime.tty_inject"

/* Fills r for built-in rule id (its reason, severity and decision, the allowlist for
 * path applied) and returns the decision: POL_DENY, or POL_ALLOW when an allow entry
 * names it. A policy without the rule denies. */
enum pol_decision rt_builtin(const struct pol_policy *p, const char *id, const char *path,
			     const struct pol_ctx *ctx, struct pol_result *r);

#endif /* DCG_RT_H */
