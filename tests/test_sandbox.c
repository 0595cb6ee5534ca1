/* test_sandbox.c - the sandbox's parts driven directly: the path walk (pinning,
 * symlinks, /proc/self as the tracee), the filter (what it refuses), and the
 * supervisor answering a real filtered child in this process. */
#include "../sandbox/sandbox.h"

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
#include <sys/syscall.h>
#include <sys/wait.h>
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
    {"dir/.", SBX_WALK_PARENT, NULL, NULL, EINVAL},
    {"", SBX_WALK_FOLLOW, NULL, NULL, ENOENT},
};

Test(sandbox_walk, pins_canonical_paths_through_symlinks_as_the_kernel_would)
{
	for (size_t i = 0; i < sizeof walk_cases / sizeof walk_cases[0]; i++) {
		const struct walk_case *k = &walk_cases[i];
		struct sbx_who who = {getpid(), getpid()};
		struct sbx_pin pin;
		char want[PATH_MAX + 64];
		int rc = sbx_walk(&who, tmpfd, k->path, k->mode, &pin);
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
		int l = sbx_filter_install(&f);
		if (l < 0)
			_exit(100);
		/* Say the listener's number; the parent takes it with pidfd_getfd. */
		if (write(sv[1], &l, sizeof l) != sizeof l)
			_exit(101);
		char ack;
		if (read(sv[1], &ack, 1) != 1)
			_exit(102);
		close(l);
		_exit(tracee());
	}
	close(sv[1]);
	int lnum;
	cr_assert_eq(read(sv[0], &lnum, sizeof lnum), (ssize_t)sizeof lnum);
	/* Take the child's listener (pidfd_getfd: we are its parent). */
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	cr_assert(pidfd >= 0);
	int lfd = (int)syscall(SYS_pidfd_getfd, pidfd, lnum, 0);
	cr_assert(lfd >= 0, "pidfd_getfd: %s", strerror(errno));
	close(pidfd);
	cr_assert_eq(write(sv[0], "", 1), 1);

	struct sbx_super_opts so = {.policy = pol, .listener = lfd, .quiet = 1, .err_fd = 2};
	struct sbx_super *s = sbx_super_new(&so);
	cr_assert(s);
	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);
		if (w == pid)
			break;
		/* A short poll so that the child's exit is seen even with no call left. */
		fd_set set;
		struct timeval tv = {0, 20000};
		FD_ZERO(&set);
		FD_SET(lfd, &set);
		if (select(lfd + 1, &set, NULL, NULL, &tv) > 0)
			cr_assert_eq(sbx_super_handle_one(s), 0);
	}
	struct sbx_stats stats;
	sbx_super_stats(s, &stats);
	sbx_super_free(s);
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
