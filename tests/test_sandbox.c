/* test_sandbox.c - the sandbox's parts driven directly: the path walk (pinning,
 * symlinks, /proc/self as the tracee), the filter (what it refuses), and the
 * supervisor answering a real filtered child in this process. */
#include "../sandbox/sandbox.h"
#include "rt.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <poll.h>
#include <unistd.h>

static char tmp[PATH_MAX]; /* canonical */
static int tmpfd = -1;

static void mk_tree(void)
{
	char t[] = "/tmp/dcg-test-sbx-XXXXXX";
	cr_assert(mkdtemp(t));
	cr_assert(realpath(t, tmp));
	tmpfd = open(tmp, O_PATH | O_DIRECTORY | O_CLOEXEC);
	cr_assert(tmpfd >= 0);
	cr_assert_eq(mkdirat(tmpfd, "dir", 0755), 0);
	cr_assert_eq(mkdirat(tmpfd, "dir/sub", 0755), 0);
	int fd = openat(tmpfd, "dir/file", O_WRONLY | O_CREAT, 0644);
	cr_assert(fd >= 0);
	close(fd);
	cr_assert_eq(symlinkat("dir", tmpfd, "dirlink"), 0);
	cr_assert_eq(symlinkat("dir/file", tmpfd, "filelink"), 0);
	cr_assert_eq(symlinkat("/proc/self/cwd", tmpfd, "selfcwd"), 0);
	cr_assert_eq(symlinkat("/proc/self/stat", tmpfd, "selfstat"), 0);
	cr_assert_eq(symlinkat("loop2", tmpfd, "loop1"), 0);
	cr_assert_eq(symlinkat("loop1", tmpfd, "loop2"), 0);
}

static void rm_tree(void)
{
	char cmd[PATH_MAX + 16];
	if (tmpfd >= 0)
		close(tmpfd);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		cr_log_warn("could not remove %s", tmp);
}

TestSuite(sandbox_walk, .init = mk_tree, .fini = rm_tree);

/* One walk case: path (relative to the tree), mode, expected result: the canonical
 * path relative to the tree ("" for the tree itself), the kept name, or an errno. */
struct walk_case {
	const char *path;
	enum sbx_walk_mode mode;
	const char *abs; /* relative to tmp; NULL when an error is expected */
	const char *name;
	int err;
};

static const struct walk_case walk_cases[] = {
    {"dir/file", SBX_WALK_FOLLOW, "/dir/file", "", 0},
    {"filelink", SBX_WALK_FOLLOW, "/dir/file", "", 0},
    {"filelink", SBX_WALK_NOFOLLOW, "/filelink", "", 0},
    {"dirlink/file", SBX_WALK_FOLLOW, "/dir/file", "", 0},
    {"dirlink/sub/../file", SBX_WALK_FOLLOW, "/dir/file", "", 0},
    {"./dir/./sub/..//file", SBX_WALK_NOFOLLOW, "/dir/file", "", 0},
    {"dir/sub/../../dir/file", SBX_WALK_FOLLOW, "/dir/file", "", 0},
    {"dir/sub/../new", SBX_WALK_PARENT, "/dir/new", "new", 0},
    {"new", SBX_WALK_PARENT, "/new", "new", 0},
    {"dir/sub/", SBX_WALK_FOLLOW, "/dir/sub", "", 0},
    {"dirlink/file", SBX_WALK_PARENT, "/dir/file", "file", 0},
    {"filelink", SBX_WALK_PARENT, "/filelink", "filelink", 0},
    {"dirlink/new", SBX_WALK_PARENT, "/dir/new", "new", 0},
    {"dir/sub/", SBX_WALK_PARENT, "/dir/sub", "sub/", 0},
    {"dirlink", SBX_WALK_PARENT, "/dirlink", "dirlink", 0},
    {"missing/x", SBX_WALK_PARENT, NULL, NULL, ENOENT},
    {"dir/file/x", SBX_WALK_FOLLOW, NULL, NULL, ENOTDIR},
    {"dir/file/x", SBX_WALK_PARENT, NULL, NULL, ENOTDIR},
    {"loop1", SBX_WALK_FOLLOW, NULL, NULL, ELOOP},
    {"loop1", SBX_WALK_NOFOLLOW, "/loop1", "", 0},
    {"dir/.", SBX_WALK_PARENT, "/dir", ".", 0},
    {".", SBX_WALK_PARENT, "", ".", 0},
    {"dir/sub/..", SBX_WALK_PARENT, "/dir", "..", 0},
    {"dir/sub/../", SBX_WALK_PARENT, "/dir", "..", 0},
    {"dirlink/sub/..", SBX_WALK_PARENT, "/dir", "..", 0},
    {"missing/..", SBX_WALK_PARENT, NULL, NULL, ENOENT},
    {"dir/file/..", SBX_WALK_PARENT, NULL, NULL, ENOTDIR},
    {"", SBX_WALK_FOLLOW, NULL, NULL, ENOENT},
};

/* Every case twice: the canonical name asked of the kernel (sbx_walk), and made
 * lexically when the start's name is known and no symlink was met (sbx_walk_from). */
Test(sandbox_walk, pins_canonical_paths_through_symlinks_as_the_kernel_would)
{
	for (size_t i = 0; i < 2 * (sizeof walk_cases / sizeof walk_cases[0]); i++) {
		const struct walk_case *k = &walk_cases[i / 2];
		struct sbx_who who = {getpid(), getpid()};
		struct sbx_pin pin;
		char want[PATH_MAX + 64];
		int rc = i % 2 ? sbx_walk_from(&who, tmpfd, tmp, k->path, k->mode, &pin)
			       : sbx_walk(&who, tmpfd, k->path, k->mode, &pin);
		if (k->err) {
			cr_expect_eq(rc, -k->err, "%s (mode %d): %d, expected -%d", k->path,
				     k->mode, rc, k->err);
			cr_expect_eq(pin.fd, -1);
			continue;
		}
		cr_expect_eq(rc, 0, "%s (mode %d): %s", k->path, k->mode, strerror(-rc));
		if (rc != 0)
			continue;
		snprintf(want, sizeof want, "%s%s", tmp, k->abs);
		cr_expect_str_eq(pin.abs, want, "%s (mode %d)", k->path, k->mode);
		cr_expect_str_eq(pin.name, k->name, "%s (mode %d)", k->path, k->mode);
		cr_expect(pin.fd >= 0);
		sbx_pin_release(&pin);
	}
}

Test(sandbox_walk, absolute_paths_start_at_the_root)
{
	struct sbx_who who = {getpid(), getpid()};
	struct sbx_pin pin;
	char p[PATH_MAX + 64];

	snprintf(p, sizeof p, "%s/dirlink/file", tmp);
	cr_assert_eq(sbx_walk(&who, -1, p, SBX_WALK_FOLLOW, &pin), 0);
	snprintf(p, sizeof p, "%s/dir/file", tmp);
	cr_expect_str_eq(pin.abs, p);
	sbx_pin_release(&pin);
	cr_expect_eq(sbx_walk(&who, -1, "/", SBX_WALK_PARENT, &pin), -EBUSY);
}

/* A child process whose cwd is tmp/dir and whose fd 0 is the read end of a pipe. */
static pid_t spawn_parked_child(int *pipe_w)
{
	int p[2], ready[2];
	char c;
	cr_assert_eq(pipe(p), 0);
	cr_assert_eq(pipe(ready), 0);
	pid_t pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		char d[PATH_MAX + 64];
		snprintf(d, sizeof d, "%s/dir", tmp);
		if (chdir(d) != 0 || dup2(p[0], 0) < 0)
			_exit(1);
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(p[0]);
	close(ready[1]);
	cr_assert_eq(read(ready[0], &c, 1), 1);
	close(ready[0]);
	*pipe_w = p[1];
	return pid;
}

Test(sandbox_walk, proc_self_means_the_tracee_not_the_supervisor)
{
	int pw, rc;
	pid_t child = spawn_parked_child(&pw);
	struct sbx_who who = {child, 0};
	struct sbx_pin pin;
	char want[PATH_MAX + 64], link[64], got[PATH_MAX];

	/* /proc/self/cwd and a symlink to it both name the child's cwd. */
	snprintf(want, sizeof want, "%s/dir", tmp);
	rc = sbx_walk(&who, tmpfd, "/proc/self/cwd", SBX_WALK_FOLLOW, &pin);
	cr_expect_eq(rc, 0, "%s", strerror(-rc));
	if (rc == 0)
		cr_expect_str_eq(pin.abs, want);
	sbx_pin_release(&pin);
	rc = sbx_walk(&who, tmpfd, "selfcwd/file", SBX_WALK_FOLLOW, &pin);
	cr_expect_eq(rc, 0, "%s", strerror(-rc));
	snprintf(want, sizeof want, "%s/dir/file", tmp);
	if (rc == 0)
		cr_expect_str_eq(pin.abs, want);
	sbx_pin_release(&pin);

	/* /dev/stdin is the child's pipe, not our stdin. */
	rc = sbx_walk(&who, tmpfd, "/dev/stdin", SBX_WALK_FOLLOW, &pin);
	cr_expect_eq(rc, 0, "%s", strerror(-rc));
	snprintf(link, sizeof link, "/proc/%d/fd/0", (int)child);
	ssize_t n = readlink(link, got, sizeof got - 1);
	cr_assert(n > 0);
	got[n] = '\0';
	if (rc == 0)
		cr_expect_str_eq(pin.abs, got);
	sbx_pin_release(&pin);
	cr_expect_eq(sbx_who_tgid(&who), child);

	/* A symlink to an ordinary file under /proc/self (no magic link on the way)
	 * names the child's, though the kernel would have resolved it as ours. */
	rc = sbx_walk(&who, tmpfd, "selfstat", SBX_WALK_FOLLOW, &pin);
	cr_expect_eq(rc, 0, "%s", strerror(-rc));
	snprintf(want, sizeof want, "/proc/%d/stat", (int)child);
	if (rc == 0)
		cr_expect_str_eq(pin.abs, want);
	sbx_pin_release(&pin);

	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	close(pw);
}

Test(sandbox_walk, magic_links_of_other_processes_are_not_followed)
{
	int pw;
	pid_t child = spawn_parked_child(&pw);
	struct sbx_who who = {getpid(), getpid()};
	struct sbx_pin pin;
	char p[64];

	/* We walk for ourselves: the child's descriptors are another process's. */
	snprintf(p, sizeof p, "/proc/%d/cwd/file", (int)child);
	cr_expect_eq(sbx_walk(&who, tmpfd, p, SBX_WALK_FOLLOW, &pin), -EACCES);
	snprintf(p, sizeof p, "/proc/%d/fd/0", (int)child);
	cr_expect_eq(sbx_walk(&who, tmpfd, p, SBX_WALK_FOLLOW, &pin), -EACCES);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	close(pw);
}

/* ---- filter --------------------------------------------------------------------------- */

/* Runs fn in a child under the filter (with nobody serving the listener: fn must
 * only make calls that are not notified). Returns fn's exit status. */
static int run_filtered(int (*fn)(void))
{
	struct sbx_filter f;
	struct sbx_filter_opts o = {.notify_reads = 1};
	int st;

	cr_assert_eq(sbx_filter_build(&o, &f), 0);
	cr_assert(f.len > 0);
	pid_t pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		int l = sbx_filter_install(&f);
		if (l < 0)
			_exit(100);
		close(l);
		_exit(fn());
	}
	sbx_filter_release(&f);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st), "killed by signal %d", WTERMSIG(st));
	return WEXITSTATUS(st);
}

static int expect_errno(long rc, int e)
{
	return rc == -1 && errno == e;
}

static int escape_hatches(void)
{
	char params[120] = {0};
	int bad = 0;
	bad |= !expect_errno(syscall(425, 8, params), EPERM) << 0; /* io_uring_setup */
	bad |= !expect_errno(syscall(SYS_clone3, NULL, 0), ENOSYS) << 1;
	bad |= !expect_errno(syscall(466, AT_FDCWD, "/x", 0, "user.x"), ENOSYS)
	       << 2; /* removexattrat */
	bad |= !expect_errno(syscall(469, AT_FDCWD, "/x", NULL, 0, 0), ENOSYS)
	       << 3; /* file_setattr */
	bad |= !expect_errno(unshare(CLONE_NEWUSER), EPERM) << 4;
	bad |= !expect_errno(unshare(CLONE_NEWNS), EPERM) << 5;
	bad |= !expect_errno(syscall(SYS_personality, 0x0008), EPERM) << 6; /* PER_LINUX32 */
	bad |= (syscall(SYS_personality, 0xffffffffUL) < 0) << 7;	    /* a query: fine */
	bad |= !expect_errno(syscall(SYS_ptrace, 0, 0, 0, 0), EPERM) << 8;
	bad |= !expect_errno(syscall(SYS_chroot, "/"), EPERM) << 9;
	bad |= !expect_errno(syscall(SYS_seccomp, 1, 1UL << 3, NULL), EPERM)
	       << 10;		      /* NEW_LISTENER */
	bad |= (getpid() <= 0) << 11; /* ordinary calls pass */
	bad |= !expect_errno(syscall(SYS_fanotify_init, 0, 0), EPERM) << 12;
	for (int i = 0; i < 13; i++)
		if (bad & (1 << i))
			return 1 + i;
	return 0;
}

Test(sandbox_filter, refuses_escape_hatches_and_unknown_syscalls)
{
	int rc = run_filtered(escape_hatches);
	cr_expect_neq(rc, 100, "the filter could not be installed");
	cr_expect_eq(rc, 0, "check %d of escape_hatches() failed", rc - 1);
}

/* ---- supervisor ------------------------------------------------------------------------- */

static char sup_tmp[PATH_MAX];

/* A supervisor's session starts at the stamp of a file it makes (rt_session_now()):
 * the files a set-up makes are older than that however little before; the pause is
 * kept for file systems with coarse stamps. */
static void wait_session_tick(void)
{
	struct timespec older = {0, 50000000};

	nanosleep(&older, NULL);
}

static void sup_setup(void)
{
	char t[] = "/tmp/dcg-test-sup-XXXXXX";
	cr_assert(mkdtemp(t));
	cr_assert(realpath(t, sup_tmp));
	char p[PATH_MAX + 32];
	snprintf(p, sizeof p, "%s/nd", sup_tmp);
	cr_assert_eq(mkdir(p, 0755), 0);
	snprintf(p, sizeof p, "%s/nd/keep", sup_tmp);
	int fd = open(p, O_WRONLY | O_CREAT, 0644);
	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, "keep\n", 5), 5);
	close(fd);
	wait_session_tick();
	snprintf(p, sizeof p, "%s/audit.jsonl", sup_tmp);
	setenv("DCG_LOG", p, 1);
}

static void sup_teardown(void)
{
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", sup_tmp);
	if (system(cmd) != 0)
		cr_log_warn("could not remove %s", sup_tmp);
}

TestSuite(sandbox_super, .init = sup_setup, .fini = sup_teardown);

/* The child's program: what a static binary would do. Exit bits say what failed. */
static int tracee(void)
{
	char p[PATH_MAX + 32];
	int bad = 0, fd;

	snprintf(p, sizeof p, "%s/nd/keep", sup_tmp);
	bad |= !expect_errno(syscall(SYS_unlinkat, AT_FDCWD, p, 0), EACCES) << 0;
	snprintf(p, sizeof p, "%s/new", sup_tmp);
	fd = (int)syscall(SYS_openat, AT_FDCWD, p, O_WRONLY | O_CREAT | O_EXCL, 0600);
	bad |= (fd < 0) << 1;
	if (fd >= 0) {
		bad |= (write(fd, "x", 1) != 1) << 2;
		close(fd);
	}
	char q[PATH_MAX + 32];
	snprintf(q, sizeof q, "%s/renamed", sup_tmp);
	bad |= (syscall(SYS_renameat2, AT_FDCWD, p, AT_FDCWD, q, 0) != 0) << 3;
	bad |= (syscall(SYS_unlinkat, AT_FDCWD, q, 0) != 0) << 4;
	snprintf(p, sizeof p, "%s/nd", sup_tmp);
	bad |= !expect_errno(syscall(SYS_renameat2, AT_FDCWD, p, AT_FDCWD, q, 0), EACCES) << 5;
	return bad;
}

/* In a forked child: installs f and hands the listener to the parent over sock (its
 * number; the parent takes it with pidfd_getfd), then waits for the parent's word.
 * Exits 100 to 102 when a step fails. */
static void filter_and_hand_over(int sock, const struct sbx_filter *f)
{
	char ack;
	int l = sbx_filter_install(f);

	if (l < 0)
		_exit(100);
	if (write(sock, &l, sizeof l) != sizeof l)
		_exit(101);
	if (read(sock, &ack, 1) != 1)
		_exit(102);
	close(l);
}

/* The parent's side of filter_and_hand_over: takes child pid's listener, serves it
 * under pol until the child exits; returns its wait status (stats, when set, gets the
 * supervisor's counts). */
static int supervise_child(pid_t pid, int sock, const struct pol_policy *pol,
			   struct sbx_stats *stats)
{
	int lnum, st;

	cr_assert_eq(read(sock, &lnum, sizeof lnum), (ssize_t)sizeof lnum);
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	cr_assert(pidfd >= 0);
	int lfd = (int)syscall(SYS_pidfd_getfd, pidfd, lnum, 0);
	cr_assert(lfd >= 0, "pidfd_getfd: %s", strerror(errno));
	close(pidfd);
	cr_assert_eq(write(sock, "", 1), 1);

	struct sbx_super_opts so = {.policy = pol, .listener = lfd, .quiet = 1, .err_fd = 2};
	struct sbx_super *s = sbx_super_new(&so);
	cr_assert(s);
	while (waitpid(pid, &st, WNOHANG) != pid) {
		/* A short poll so that the child's exit is seen even with no call left. */
		fd_set set;
		struct timeval tv = {0, 20000};
		FD_ZERO(&set);
		FD_SET(lfd, &set);
		if (select(lfd + 1, &set, NULL, NULL, &tv) > 0)
			cr_assert_eq(sbx_super_handle_one(s), 0);
	}
	if (stats)
		sbx_super_stats(s, stats);
	sbx_super_free(s);
	return st;
}

Test(sandbox_super, performs_allowed_calls_and_refuses_protected_ones)
{
	struct sbx_filter f;
	struct sbx_filter_opts o = {.notify_reads = 1};
	struct pol_policy *pol = pol_new(0);
	char yaml[PATH_MAX + 64];
	int sv[2], st;

	cr_assert(pol);
	int n = snprintf(yaml, sizeof yaml, "noDeletePaths: ['%s/nd/']\n", sup_tmp);
	cr_assert_eq(pol_load_buffer(pol, "test", yaml, (size_t)n), 0);
	cr_assert_eq(sbx_filter_build(&o, &f), 0);
	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	pid_t pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		close(sv[0]);
		filter_and_hand_over(sv[1], &f);
		_exit(tracee());
	}
	close(sv[1]);
	struct sbx_stats stats;
	st = supervise_child(pid, sv[0], pol, &stats);
	sbx_filter_release(&f);
	pol_free(pol);
	close(sv[0]);
	cr_assert(WIFEXITED(st));
	cr_expect_eq(WEXITSTATUS(st), 0, "tracee failures (bits %#x)", WEXITSTATUS(st));
	cr_expect_geq(stats.refused, 2);
	cr_expect_geq(stats.emulated, 4);
	char p[PATH_MAX + 32];
	snprintf(p, sizeof p, "%s/nd/keep", sup_tmp);
	cr_expect_eq(access(p, F_OK), 0, "the protected file is gone");
}

/* A file made just before the supervisor starts (no launcher: the supervisor takes
 * the start itself, rt_session_now()) is older than the session: a tracee cannot
 * delete it in a no-delete folder. 20 times. */
Test(sandbox_super, a_file_made_just_before_the_start_is_not_the_sessions)
{
	struct sbx_filter f;
	struct sbx_filter_opts o = {.notify_reads = 0};
	struct pol_policy *pol = pol_new(0);
	char yaml[PATH_MAX + 64], p[PATH_MAX + 32];
	int deleted = 0;

	cr_assert(pol);
	int n = snprintf(yaml, sizeof yaml, "noDeletePaths: ['%s/nd/']\n", sup_tmp);
	cr_assert_eq(pol_load_buffer(pol, "test", yaml, (size_t)n), 0);
	cr_assert_eq(sbx_filter_build(&o, &f), 0);
	unsetenv("DCG_SESSION");
	for (int i = 0; i < 20; i++) {
		int sv[2], st, lnum;
		char ack;

		snprintf(p, sizeof p, "%s/nd/fresh%d", sup_tmp, i);
		cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
		pid_t pid = fork();
		cr_assert(pid >= 0);
		if (pid == 0) {
			close(sv[0]);
			int l = sbx_filter_install(&f);
			if (l < 0 || write(sv[1], &l, sizeof l) != sizeof l ||
			    read(sv[1], &ack, 1) != 1)
				_exit(100);
			close(l);
			_exit(syscall(SYS_unlinkat, AT_FDCWD, p, 0) == 0 ? 1 : 0);
		}
		close(sv[1]);
		cr_assert_eq(read(sv[0], &lnum, sizeof lnum), (ssize_t)sizeof lnum);
		int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
		int lfd = (int)syscall(SYS_pidfd_getfd, pidfd, lnum, 0);
		cr_assert(lfd >= 0);
		close(pidfd);
		/* made now, then the supervisor starts at once */
		int fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644);
		cr_assert(fd >= 0);
		close(fd);
		struct sbx_super_opts so = {
		    .policy = pol, .listener = lfd, .quiet = 1, .err_fd = 2};
		struct sbx_super *s = sbx_super_new(&so);
		cr_assert(s);
		cr_assert_eq(write(sv[0], "", 1), 1);
		while (waitpid(pid, &st, WNOHANG) != pid) {
			struct pollfd pfd = {.fd = lfd, .events = POLLIN};
			if (poll(&pfd, 1, 20) > 0)
				cr_assert_eq(sbx_super_handle_one(s), 0);
		}
		sbx_super_free(s);
		close(sv[0]);
		cr_assert(WIFEXITED(st) && WEXITSTATUS(st) != 100);
		deleted += access(p, F_OK) != 0;
	}
	sbx_filter_release(&f);
	pol_free(pol);
	cr_expect_eq(deleted, 0, "%d of 20 files made just before the start were deleted", deleted);
}

/* ---- every notified call, one by one ----------------------------------------------------- */

/* Each path-taking call of the runtime core's table that the filter notifies is made
 * raw by a filtered child: once on a free path (the supervisor performs it: the effect
 * is checked, so every argument it reads must be the right one) and once on a
 * protected path (EACCES). */
static char ct[PATH_MAX];  /* the tree, canonical */
static int ct_xattr_errno; /* 0 when user xattrs work on this file system */
static int fd_free = -1, fd_ro = -1, fd_nd = -1, fd_za = -1;

static const char *const ct_files[] = {
    "file",	 "truncate",	"unlink",	"unlinkat",	"rename",   "renameat",
    "renameat2", "link",	"linkat",	"chmod",	"fchmodat", "fchmodat2",
    "fchmod",	 "chown",	"lchown",	"fchownat",	"fchown",   "utime",
    "utimes",	 "futimesat",	"utimensat",	"utimensat-fd", "setxattr", "lsetxattr",
    "fsetxattr", "removexattr", "lremovexattr", "fremovexattr"};
static const char *const ct_dirs[] = {"dir", "rmdir", "unlinkat-dir"};
static const char *const ct_areas[] = {"free", "ro", "nd"};

static const char *ct_at(int slot, const char *rel)
{
	static char b[4][PATH_MAX + 64];
	snprintf(b[slot], sizeof b[slot], "%s/%s", ct, rel);
	return b[slot];
}

static void ct_setup(void)
{
	char t[] = "/tmp/dcg-test-calls-XXXXXX", p[PATH_MAX + 64];
	cr_assert(mkdtemp(t));
	cr_assert(realpath(t, ct));
	for (size_t a = 0; a < 3; a++) {
		cr_assert_eq(mkdir(ct_at(0, ct_areas[a]), 0755), 0);
		for (size_t i = 0; i < sizeof ct_files / sizeof ct_files[0]; i++) {
			snprintf(p, sizeof p, "%s/%s/%s", ct, ct_areas[a], ct_files[i]);
			int fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644);
			cr_assert(fd >= 0, "%s: %s", p, strerror(errno));
			cr_assert_eq(write(fd, "hello\n", 6), 6);
			close(fd);
			if (strstr(ct_files[i], "removexattr") &&
			    setxattr(p, "user.dcg", "v", 1, 0) < 0)
				ct_xattr_errno = errno;
		}
		for (size_t i = 0; i < sizeof ct_dirs / sizeof ct_dirs[0]; i++) {
			snprintf(p, sizeof p, "%s/%s/%s", ct, ct_areas[a], ct_dirs[i]);
			cr_assert_eq(mkdir(p, 0755), 0);
		}
		snprintf(p, sizeof p, "%s/%s/lchown.sym", ct, ct_areas[a]);
		cr_assert_eq(symlink("lchown", p), 0);
		snprintf(p, sizeof p, "%s/%s/fchownat.sym", ct, ct_areas[a]);
		cr_assert_eq(symlink("fchownat", p), 0);
	}
	cr_assert_eq(mkdir(ct_at(0, "za"), 0755), 0);
	int fd = open(ct_at(0, "za/prog"), O_WRONLY | O_CREAT, 0755);
	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, "#!/bin/sh\n", 10), 10);
	close(fd);
	snprintf(p, sizeof p, "%s/audit.jsonl", ct);
	setenv("DCG_LOG", p, 1);
	wait_session_tick();
}

static void ct_teardown(void)
{
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", ct);
	if (system(cmd) != 0)
		cr_log_warn("could not remove %s", ct);
}

#define CHECK(cond)                   \
	do {                          \
		if (!(cond))          \
			return #cond; \
	} while (0)
#define REFUSED(call) CHECK((call) == -1 && errno == EACCES)

static mode_t ct_mode(const char *rel)
{
	struct stat st;
	return lstat(ct_at(3, rel), &st) == 0 ? st.st_mode : 0;
}

static long long ct_mtime(const char *rel)
{
	struct stat st;
	return lstat(ct_at(3, rel), &st) == 0 ? (long long)st.st_mtime : -1;
}

static uid_t ct_uid(const char *rel)
{
	struct stat st;
	return lstat(ct_at(3, rel), &st) == 0 ? st.st_uid : (uid_t)-1;
}

/* A uid and gid to give: another one when we are root, so that the change shows. */
static uid_t ct_new_uid(void)
{
	return geteuid() == 0 ? 4321 : geteuid();
}

static gid_t ct_new_gid(void)
{
	return geteuid() == 0 ? 4322 : getegid();
}

static int ct_owned(const char *rel)
{
	struct stat st;
	return lstat(ct_at(3, rel), &st) == 0 && st.st_uid == ct_new_uid() &&
	       st.st_gid == ct_new_gid();
}

static const char *c_open(void)
{
	int fd =
	    (int)syscall(SYS_open, ct_at(0, "free/open.new"), O_WRONLY | O_CREAT | O_EXCL, 0640);
	CHECK(fd >= 0);
	close(fd);
	CHECK((ct_mode("free/open.new") & 07777) == 0640);
	REFUSED(syscall(SYS_open, ct_at(0, "ro/file"), O_WRONLY));
	REFUSED(syscall(SYS_open, ct_at(0, "za/prog"), O_RDONLY));
	return NULL;
}

static const char *c_openat(void)
{
	int fd = (int)syscall(SYS_openat, fd_free, "openat.new", O_RDWR | O_CREAT | O_EXCL, 0600);
	CHECK(fd >= 0);
	CHECK((fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDWR);
	close(fd);
	CHECK((ct_mode("free/openat.new") & 07777) == 0600);
	REFUSED(syscall(SYS_openat, fd_ro, "file", O_RDWR));
	REFUSED(syscall(SYS_openat, fd_za, "prog", O_RDONLY));
	return NULL;
}

static const char *c_openat2(void)
{
	struct {
		uint64_t flags, mode, resolve;
	} how = {O_WRONLY | O_CREAT | O_EXCL, 0604, 0};
	int fd = (int)syscall(SYS_openat2, fd_free, "openat2.new", &how, sizeof how);
	CHECK(fd >= 0);
	close(fd);
	CHECK((ct_mode("free/openat2.new") & 07777) == 0604);
	how.flags = O_WRONLY;
	REFUSED(syscall(SYS_openat2, fd_ro, "file", &how, sizeof how));
	how.resolve = 0x08; /* RESOLVE_IN_ROOT: not emulated */
	CHECK(syscall(SYS_openat2, fd_free, "file", &how, sizeof how) == -1 && errno == ENOSYS);
	return NULL;
}

static const char *c_creat(void)
{
	int fd = (int)syscall(SYS_creat, ct_at(0, "free/creat.new"), 0600);
	CHECK(fd >= 0);
	CHECK((fcntl(fd, F_GETFL) & O_ACCMODE) == O_WRONLY);
	close(fd);
	CHECK((ct_mode("free/creat.new") & 07777) == 0600);
	REFUSED(syscall(SYS_creat, ct_at(0, "ro/file"), 0600));
	return NULL;
}

static const char *c_truncate(void)
{
	struct stat st;
	CHECK(syscall(SYS_truncate, ct_at(0, "free/truncate"), 2) == 0);
	CHECK(stat(ct_at(0, "free/truncate"), &st) == 0 && st.st_size == 2);
	REFUSED(syscall(SYS_truncate, ct_at(0, "ro/truncate"), 0));
	return NULL;
}

static const char *c_unlink(void)
{
	CHECK(syscall(SYS_unlink, ct_at(0, "free/unlink")) == 0);
	CHECK(ct_mode("free/unlink") == 0);
	REFUSED(syscall(SYS_unlink, ct_at(0, "nd/unlink")));
	return NULL;
}

static const char *c_rmdir(void)
{
	CHECK(syscall(SYS_rmdir, ct_at(0, "free/rmdir")) == 0);
	CHECK(ct_mode("free/rmdir") == 0);
	REFUSED(syscall(SYS_rmdir, ct_at(0, "nd/rmdir")));
	return NULL;
}

static const char *c_unlinkat(void)
{
	CHECK(syscall(SYS_unlinkat, fd_free, "unlinkat", 0) == 0);
	CHECK(ct_mode("free/unlinkat") == 0);
	CHECK(syscall(SYS_unlinkat, fd_free, "unlinkat-dir", AT_REMOVEDIR) == 0);
	CHECK(ct_mode("free/unlinkat-dir") == 0);
	CHECK(syscall(SYS_unlinkat, fd_free, "file", AT_SYMLINK_NOFOLLOW) == -1 && errno == EINVAL);
	REFUSED(syscall(SYS_unlinkat, fd_nd, "unlinkat", 0));
	REFUSED(syscall(SYS_unlinkat, fd_nd, "unlinkat-dir", AT_REMOVEDIR));
	return NULL;
}

static const char *c_rename(void)
{
	CHECK(syscall(SYS_rename, ct_at(0, "free/rename"), ct_at(1, "free/rename.to")) == 0);
	CHECK(ct_mode("free/rename") == 0 && S_ISREG(ct_mode("free/rename.to")));
	REFUSED(syscall(SYS_rename, ct_at(0, "nd/rename"), ct_at(1, "free/x")));
	REFUSED(syscall(SYS_rename, ct_at(0, "free/file"), ct_at(1, "nd/rename")));
	return NULL;
}

static const char *c_renameat(void)
{
	CHECK(syscall(SYS_renameat, fd_free, "renameat", fd_free, "renameat.to") == 0);
	CHECK(ct_mode("free/renameat") == 0 && S_ISREG(ct_mode("free/renameat.to")));
	REFUSED(syscall(SYS_renameat, fd_nd, "renameat", fd_free, "x"));
	return NULL;
}

static const char *c_renameat2(void)
{
	CHECK(syscall(SYS_renameat2, fd_free, "renameat2", fd_free, "renameat2.to", 1) == 0);
	CHECK(ct_mode("free/renameat2") == 0 && S_ISREG(ct_mode("free/renameat2.to")));
	/* RENAME_NOREPLACE reaches the kernel */
	CHECK(syscall(SYS_renameat2, fd_free, "renameat2.to", fd_free, "file", 1) == -1 &&
	      errno == EEXIST);
	/* RENAME_EXCHANGE moves the protected name too */
	REFUSED(syscall(SYS_renameat2, fd_free, "renameat2.to", fd_nd, "renameat2", 2));
	return NULL;
}

static const char *c_link(void)
{
	struct stat st;
	CHECK(syscall(SYS_link, ct_at(0, "free/link"), ct_at(1, "free/link.new")) == 0);
	CHECK(stat(ct_at(0, "free/link"), &st) == 0 && st.st_nlink == 2);
	REFUSED(syscall(SYS_link, ct_at(0, "free/link"), ct_at(1, "ro/new")));
	REFUSED(syscall(SYS_link, ct_at(0, "ro/link"), ct_at(1, "free/new")));
	return NULL;
}

static const char *c_linkat(void)
{
	struct stat st;
	CHECK(syscall(SYS_linkat, fd_free, "linkat", fd_free, "linkat.new", 0) == 0);
	CHECK(stat(ct_at(0, "free/linkat"), &st) == 0 && st.st_nlink == 2);
	/* AT_SYMLINK_FOLLOW links the symlink's target */
	CHECK(syscall(SYS_linkat, fd_free, "lchown.sym", fd_free, "linkat.follow",
		      AT_SYMLINK_FOLLOW) == 0);
	CHECK(S_ISREG(ct_mode("free/linkat.follow")));
	REFUSED(syscall(SYS_linkat, fd_free, "linkat", fd_ro, "new", 0));
	return NULL;
}

static const char *c_symlink(void)
{
	char b[16];
	CHECK(syscall(SYS_symlink, "target", ct_at(0, "free/symlink.new")) == 0);
	CHECK(readlink(ct_at(0, "free/symlink.new"), b, sizeof b) == 6 && !memcmp(b, "target", 6));
	REFUSED(syscall(SYS_symlink, "target", ct_at(0, "ro/new")));
	return NULL;
}

static const char *c_symlinkat(void)
{
	char b[16];
	CHECK(syscall(SYS_symlinkat, "target2", fd_free, "symlinkat.new") == 0);
	CHECK(readlink(ct_at(0, "free/symlinkat.new"), b, sizeof b) == 7 &&
	      !memcmp(b, "target2", 7));
	REFUSED(syscall(SYS_symlinkat, "target", fd_ro, "new"));
	return NULL;
}

static const char *c_mkdir(void)
{
	CHECK(syscall(SYS_mkdir, ct_at(0, "free/mkdir.new"), 0750) == 0);
	CHECK(ct_mode("free/mkdir.new") == (S_IFDIR | 0750));
	REFUSED(syscall(SYS_mkdir, ct_at(0, "ro/new"), 0755));
	return NULL;
}

static const char *c_mkdirat(void)
{
	CHECK(syscall(SYS_mkdirat, fd_free, "mkdirat.new", 0700) == 0);
	CHECK(ct_mode("free/mkdirat.new") == (S_IFDIR | 0700));
	REFUSED(syscall(SYS_mkdirat, fd_ro, "new", 0755));
	return NULL;
}

static const char *c_mknod(void)
{
	CHECK(syscall(SYS_mknod, ct_at(0, "free/mknod.fifo"), S_IFIFO | 0640, 0) == 0);
	CHECK(ct_mode("free/mknod.fifo") == (S_IFIFO | 0640));
	REFUSED(syscall(SYS_mknod, ct_at(0, "ro/new"), S_IFIFO | 0600, 0));
	return NULL;
}

static const char *c_mknodat(void)
{
	CHECK(syscall(SYS_mknodat, fd_free, "mknodat.fifo", S_IFIFO | 0600, 0) == 0);
	CHECK(ct_mode("free/mknodat.fifo") == (S_IFIFO | 0600));
	REFUSED(syscall(SYS_mknodat, fd_ro, "new", S_IFIFO | 0600, 0));
	return NULL;
}

static const char *c_chmod(void)
{
	CHECK(syscall(SYS_chmod, ct_at(0, "free/chmod"), 0600) == 0);
	CHECK((ct_mode("free/chmod") & 07777) == 0600);
	REFUSED(syscall(SYS_chmod, ct_at(0, "ro/chmod"), 0600));
	return NULL;
}

static const char *c_fchmodat(void)
{
	CHECK(syscall(SYS_fchmodat, fd_free, "fchmodat", 0604) == 0);
	CHECK((ct_mode("free/fchmodat") & 07777) == 0604);
	REFUSED(syscall(SYS_fchmodat, fd_ro, "fchmodat", 0600));
	return NULL;
}

static const char *c_fchmodat2(void)
{
	CHECK(syscall(SYS_fchmodat2, fd_free, "fchmodat2", 0606, 0) == 0);
	CHECK((ct_mode("free/fchmodat2") & 07777) == 0606);
	CHECK(syscall(SYS_fchmodat2, fd_free, "fchmodat2", 0600, AT_REMOVEDIR) == -1 &&
	      errno == EINVAL);
	REFUSED(syscall(SYS_fchmodat2, fd_ro, "fchmodat2", 0600, 0));
	return NULL;
}

static const char *c_fchmod(void)
{
	int fd = open(ct_at(0, "free/fchmod"), O_RDONLY),
	    rofd = open(ct_at(1, "ro/fchmod"), O_RDONLY);
	CHECK(fd >= 0 && rofd >= 0);
	CHECK(syscall(SYS_fchmod, fd, 0611) == 0);
	CHECK((ct_mode("free/fchmod") & 07777) == 0611);
	REFUSED(syscall(SYS_fchmod, rofd, 0600));
	close(fd);
	close(rofd);
	return NULL;
}

static const char *c_chown(void)
{
	CHECK(syscall(SYS_chown, ct_at(0, "free/chown"), ct_new_uid(), ct_new_gid()) == 0);
	CHECK(ct_owned("free/chown"));
	REFUSED(syscall(SYS_chown, ct_at(0, "ro/chown"), ct_new_uid(), ct_new_gid()));
	return NULL;
}

static const char *c_lchown(void)
{
	uid_t before = ct_uid("free/lchown");
	CHECK(syscall(SYS_lchown, ct_at(0, "free/lchown.sym"), ct_new_uid(), ct_new_gid()) == 0);
	CHECK(ct_owned("free/lchown.sym") && ct_uid("free/lchown") == before);
	REFUSED(syscall(SYS_lchown, ct_at(0, "ro/lchown.sym"), ct_new_uid(), ct_new_gid()));
	return NULL;
}

static const char *c_fchownat(void)
{
	uid_t before = ct_uid("free/fchownat");
	CHECK(syscall(SYS_fchownat, fd_free, "fchownat.sym", ct_new_uid(), ct_new_gid(),
		      AT_SYMLINK_NOFOLLOW) == 0);
	CHECK(ct_owned("free/fchownat.sym") && ct_uid("free/fchownat") == before);
	REFUSED(syscall(SYS_fchownat, fd_ro, "fchownat", ct_new_uid(), ct_new_gid(), 0));
	return NULL;
}

static const char *c_fchown(void)
{
	int fd = open(ct_at(0, "free/fchown"), O_RDONLY),
	    rofd = open(ct_at(1, "ro/fchown"), O_RDONLY);
	CHECK(fd >= 0 && rofd >= 0);
	CHECK(syscall(SYS_fchown, fd, ct_new_uid(), ct_new_gid()) == 0);
	CHECK(ct_owned("free/fchown"));
	REFUSED(syscall(SYS_fchown, rofd, ct_new_uid(), ct_new_gid()));
	close(fd);
	close(rofd);
	return NULL;
}

static const char *c_utime(void)
{
	struct utimbuf {
		long actime, modtime;
	} u = {1000, 2000};
	CHECK(syscall(SYS_utime, ct_at(0, "free/utime"), &u) == 0);
	CHECK(ct_mtime("free/utime") == 2000);
	REFUSED(syscall(SYS_utime, ct_at(0, "ro/utime"), &u));
	return NULL;
}

static const char *c_utimes(void)
{
	struct timeval tv[2] = {{1000, 0}, {3000, 0}};
	CHECK(syscall(SYS_utimes, ct_at(0, "free/utimes"), tv) == 0);
	CHECK(ct_mtime("free/utimes") == 3000);
	REFUSED(syscall(SYS_utimes, ct_at(0, "ro/utimes"), tv));
	return NULL;
}

static const char *c_futimesat(void)
{
	struct timeval tv[2] = {{1000, 0}, {4000, 0}};
	CHECK(syscall(SYS_futimesat, fd_free, "futimesat", tv) == 0);
	CHECK(ct_mtime("free/futimesat") == 4000);
	REFUSED(syscall(SYS_futimesat, fd_ro, "futimesat", tv));
	return NULL;
}

static const char *c_utimensat(void)
{
	struct timespec ts[2] = {{1000, 0}, {5000, 0}};
	CHECK(syscall(SYS_utimensat, fd_free, "utimensat", ts, 0) == 0);
	CHECK(ct_mtime("free/utimensat") == 5000);
	CHECK(syscall(SYS_utimensat, fd_free, "lchown.sym", ts, AT_SYMLINK_NOFOLLOW) == 0);
	CHECK(ct_mtime("free/lchown.sym") == 5000 && ct_mtime("free/lchown") != 5000);
	/* a NULL path: the descriptor itself (futimens) */
	int fd = open(ct_at(0, "free/utimensat-fd"), O_RDONLY),
	    rofd = open(ct_at(1, "ro/file"), O_RDONLY);
	CHECK(fd >= 0 && rofd >= 0);
	CHECK(syscall(SYS_utimensat, fd, NULL, ts, 0) == 0);
	CHECK(ct_mtime("free/utimensat-fd") == 5000);
	REFUSED(syscall(SYS_utimensat, rofd, NULL, ts, 0));
	close(fd);
	close(rofd);
	REFUSED(syscall(SYS_utimensat, fd_ro, "utimensat", ts, 0));
	return NULL;
}

/* An xattr call's result on a free file: 0, or the file system's own refusal. */
static int ct_xattr_ok(long rc)
{
	return ct_xattr_errno ? rc == -1 && errno == ct_xattr_errno : rc == 0;
}

static int ct_xattr_is(const char *rel, const char *want)
{
	char v[8];
	ssize_t n = lgetxattr(ct_at(3, rel), "user.dcg", v, sizeof v);
	if (ct_xattr_errno)
		return 1;
	if (!want)
		return n < 0 && errno == ENODATA;
	return n == (ssize_t)strlen(want) && !memcmp(v, want, (size_t)n);
}

static const char *c_setxattr(void)
{
	CHECK(
	    ct_xattr_ok(syscall(SYS_setxattr, ct_at(0, "free/setxattr"), "user.dcg", "ab", 2, 0)));
	CHECK(ct_xattr_is("free/setxattr", "ab"));
	REFUSED(syscall(SYS_setxattr, ct_at(0, "ro/setxattr"), "user.dcg", "ab", 2, 0));
	return NULL;
}

static const char *c_lsetxattr(void)
{
	CHECK(ct_xattr_ok(
	    syscall(SYS_lsetxattr, ct_at(0, "free/lsetxattr"), "user.dcg", "cde", 3, 0)));
	CHECK(ct_xattr_is("free/lsetxattr", "cde"));
	/* XATTR_REPLACE reaches the kernel */
	CHECK(syscall(SYS_lsetxattr, ct_at(0, "free/file"), "user.dcg", "x", 1, 2) == -1);
	REFUSED(syscall(SYS_lsetxattr, ct_at(0, "ro/lsetxattr"), "user.dcg", "ab", 2, 0));
	return NULL;
}

static const char *c_fsetxattr(void)
{
	int fd = open(ct_at(0, "free/fsetxattr"), O_RDONLY),
	    rofd = open(ct_at(1, "ro/fsetxattr"), O_RDONLY);
	CHECK(fd >= 0 && rofd >= 0);
	CHECK(ct_xattr_ok(syscall(SYS_fsetxattr, fd, "user.dcg", "f", 1, 0)));
	CHECK(ct_xattr_is("free/fsetxattr", "f"));
	REFUSED(syscall(SYS_fsetxattr, rofd, "user.dcg", "f", 1, 0));
	close(fd);
	close(rofd);
	return NULL;
}

static const char *c_removexattr(void)
{
	CHECK(ct_xattr_ok(syscall(SYS_removexattr, ct_at(0, "free/removexattr"), "user.dcg")));
	CHECK(ct_xattr_is("free/removexattr", NULL));
	REFUSED(syscall(SYS_removexattr, ct_at(0, "ro/removexattr"), "user.dcg"));
	return NULL;
}

static const char *c_lremovexattr(void)
{
	CHECK(ct_xattr_ok(syscall(SYS_lremovexattr, ct_at(0, "free/lremovexattr"), "user.dcg")));
	CHECK(ct_xattr_is("free/lremovexattr", NULL));
	REFUSED(syscall(SYS_lremovexattr, ct_at(0, "ro/lremovexattr"), "user.dcg"));
	return NULL;
}

static const char *c_fremovexattr(void)
{
	int fd = open(ct_at(0, "free/fremovexattr"), O_RDONLY);
	int rofd = open(ct_at(1, "ro/fremovexattr"), O_RDONLY);
	CHECK(fd >= 0 && rofd >= 0);
	CHECK(ct_xattr_ok(syscall(SYS_fremovexattr, fd, "user.dcg")));
	CHECK(ct_xattr_is("free/fremovexattr", NULL));
	REFUSED(syscall(SYS_fremovexattr, rofd, "user.dcg"));
	close(fd);
	close(rofd);
	return NULL;
}

/* Runs /bin/true through nr in a child; its exit status, or -1. */
static int ct_exec_true(long nr)
{
	char *argv[] = {"true", NULL}, *envp[] = {NULL};
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		if (nr == SYS_execve) {
			syscall(SYS_execve, "/bin/true", argv, envp);
		} else {
			int bin = open("/bin", O_PATH | O_DIRECTORY);
			syscall(SYS_execveat, bin, "true", argv, envp, 0);
		}
		_exit(99);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static const char *c_execve(void)
{
	char *argv[] = {"prog", NULL}, *envp[] = {NULL};
	CHECK(ct_exec_true(SYS_execve) == 0);
	REFUSED(syscall(SYS_execve, ct_at(0, "za/prog"), argv, envp));
	return NULL;
}

static const char *c_execveat(void)
{
	char *argv[] = {"prog", NULL}, *envp[] = {NULL};
	CHECK(ct_exec_true(SYS_execveat) == 0);
	REFUSED(syscall(SYS_execveat, fd_za, "prog", argv, envp, 0));
	return NULL;
}

static const char *c_bind(void)
{
	struct sockaddr_un un = {.sun_family = AF_UNIX};
	int s = socket(AF_UNIX, SOCK_STREAM, 0), ok = 0;
	CHECK(s >= 0);
	CHECK(strlen(ct_at(0, "free/sock")) < sizeof un.sun_path);
	memcpy(un.sun_path, ct_at(0, "free/sock"), strlen(ct_at(0, "free/sock")) + 1);
	ok = syscall(SYS_bind, s, &un, sizeof un) == 0 && S_ISSOCK(ct_mode("free/sock"));
	close(s);
	CHECK(ok);
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	CHECK(s >= 0);
	memcpy(un.sun_path, ct_at(0, "ro/sock"), strlen(ct_at(0, "ro/sock")) + 1);
	ok = syscall(SYS_bind, s, &un, sizeof un) == -1 && errno == EACCES;
	close(s);
	CHECK(ok);
	return NULL;
}

struct call_case {
	long nr;
	const char *(*run)(void); /* NULL when it did what it should, else the failed check */
};

static const struct call_case call_cases[] = {
    {SYS_open, c_open},
    {SYS_openat, c_openat},
    {SYS_openat2, c_openat2},
    {SYS_creat, c_creat},
    {SYS_truncate, c_truncate},
    {SYS_unlink, c_unlink},
    {SYS_rmdir, c_rmdir},
    {SYS_unlinkat, c_unlinkat},
    {SYS_rename, c_rename},
    {SYS_renameat, c_renameat},
    {SYS_renameat2, c_renameat2},
    {SYS_link, c_link},
    {SYS_linkat, c_linkat},
    {SYS_symlink, c_symlink},
    {SYS_symlinkat, c_symlinkat},
    {SYS_mkdir, c_mkdir},
    {SYS_mkdirat, c_mkdirat},
    {SYS_mknod, c_mknod},
    {SYS_mknodat, c_mknodat},
    {SYS_chmod, c_chmod},
    {SYS_fchmodat, c_fchmodat},
    {SYS_fchmodat2, c_fchmodat2},
    {SYS_fchmod, c_fchmod},
    {SYS_chown, c_chown},
    {SYS_lchown, c_lchown},
    {SYS_fchownat, c_fchownat},
    {SYS_fchown, c_fchown},
    {SYS_utime, c_utime},
    {SYS_utimes, c_utimes},
    {SYS_futimesat, c_futimesat},
    {SYS_utimensat, c_utimensat},
    {SYS_setxattr, c_setxattr},
    {SYS_lsetxattr, c_lsetxattr},
    {SYS_fsetxattr, c_fsetxattr},
    {SYS_removexattr, c_removexattr},
    {SYS_lremovexattr, c_lremovexattr},
    {SYS_fremovexattr, c_fremovexattr},
    {SYS_execve, c_execve},
    {SYS_execveat, c_execveat},
    {SYS_bind, c_bind},
};
#define N_CALL_CASES (sizeof call_cases / sizeof call_cases[0])

TestSuite(sandbox_calls, .init = ct_setup, .fini = ct_teardown);

/* Every row of the table the filter notifies has a case here. */
Test(sandbox_calls, every_notified_call_of_the_table_has_a_case)
{
	for (size_t i = 0; i < rt_syscall_count; i++) {
		const struct rt_syscall *s = &rt_syscalls[i];
		size_t k = 0;

		if (s->kind == RT_HANDLE || s->kind == RT_MOUNT)
			continue;
		while (k < N_CALL_CASES && call_cases[k].nr != s->nr)
			k++;
		cr_expect_lt(k, N_CALL_CASES, "%s has no case", s->name);
	}
}

/* The filtered child: every case, the failures written to fd as "name: check". */
static int ct_tracee(int out)
{
	int bad = 0;

	for (size_t i = 0; i < N_CALL_CASES; i++) {
		const char *why = call_cases[i].run();
		char line[512];
		int n;

		if (!why)
			continue;
		n = snprintf(line, sizeof line, "%s: %s (errno %d)\n",
			     rt_syscall_find(call_cases[i].nr)->name, why, errno);
		if (write(out, line, (size_t)n) < 0)
			return 2;
		bad = 1;
	}
	return bad;
}

Test(sandbox_calls, each_call_is_performed_with_its_arguments_or_refused)
{
	struct sbx_filter f;
	struct sbx_filter_opts o = {.notify_reads = 1};
	struct pol_policy *pol = pol_new(0);
	char yaml[4 * PATH_MAX], report[8192];
	int pv[2], st;

	cr_assert(pol);
	int n = snprintf(yaml, sizeof yaml,
			 "readOnlyPaths: ['%s/ro/']\nnoDeletePaths: ['%s/nd/']\n"
			 "zeroAccessPaths: ['%s/za/']\n",
			 ct, ct, ct);
	cr_assert_eq(pol_load_buffer(pol, "test", yaml, (size_t)n), 0);
	cr_assert_eq(sbx_filter_build(&o, &f), 0);
	cr_assert_eq(pipe(pv), 0);
	int sv[2];
	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	pid_t pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		close(sv[0]);
		close(pv[0]);
		/* the folders the *at() calls start from, opened before the filter (the
		 * zero-access one cannot be opened after) */
		umask(022);
		fd_free = open(ct_at(0, "free"), O_PATH | O_DIRECTORY);
		fd_ro = open(ct_at(0, "ro"), O_PATH | O_DIRECTORY);
		fd_nd = open(ct_at(0, "nd"), O_PATH | O_DIRECTORY);
		fd_za = open(ct_at(0, "za"), O_PATH | O_DIRECTORY);
		filter_and_hand_over(sv[1], &f);
		_exit(ct_tracee(pv[1]));
	}
	close(sv[1]);
	close(pv[1]);
	st = supervise_child(pid, sv[0], pol, NULL);
	sbx_filter_release(&f);
	pol_free(pol);
	close(sv[0]);
	ssize_t got = read(pv[0], report, sizeof report - 1);
	report[got > 0 ? got : 0] = '\0';
	close(pv[0]);
	cr_assert(WIFEXITED(st));
	cr_expect_eq(WEXITSTATUS(st), 0, "failed cases:\n%s", report);
}
