/* notify_floor.c - the floor under `dcg sandbox`'s cost: the same work with a minimal
 * notify supervisor that never consults a policy.
 *
 *   notify_floor N PATH
 *     an open+close loop of N calls on PATH, bare, then with every openat notified,
 *     one line per mode: "<mode> <ns per call> <tracee migrations per 1000 calls>".
 *     The supervisor answers
 *       continue     SECCOMP_USER_NOTIF_FLAG_CONTINUE (the kernel performs the open);
 *       addfd        opens PATH itself and installs it with ADDFD + SEND (one call);
 *       addfd-reply  ADDFD without SEND, then an ordinary answer carrying the number;
 *       addfd-check  what a supervisor that checks must do before it can answer, and
 *                    no more: read the path from the tracee's memory, pin it with
 *                    openat2(O_PATH), fstat the pin, reopen it through /proc/self/fd,
 *                    then ADDFD + SEND (dcg sandbox's calls without its policy);
 *       addfd-reply-check  the same, answered in two steps;
 *     with the listener in SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP mode, the supervisor and
 *     the tracee on any CPU, then (modes ending in -same-cpu) both on CPU 0.
 *
 *   notify_floor --run continue|addfd-check -- CMD ARGS...
 *     runs CMD with every open, openat and creat of its whole process tree notified,
 *     answered "continue" or performed as addfd-check does (a path relative to a
 *     directory descriptor or to the working directory is joined to the name that
 *     /proc gives; FIFOs, devices, O_PATH and O_TMPFILE are continued). Exits with
 *     CMD's status. The floor of a real build (sandbox/bench.sh).
 *
 * The tracee is a child process, as under dcg sandbox; it hands its listener to the
 * supervisor over a socket. No libseccomp: a BPF program of a few instructions. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/filter.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

enum mode { M_BARE, M_CONTINUE, M_ADDFD, M_ADDFD_REPLY };

struct run {
	enum mode mode;
	int check; /* the calls a checking supervisor makes before it answers */
	int pin;   /* supervisor and tracee on CPU 0 */
	long n;
	const char *path;
	double ns;	 /* per call, set by the tracee; -1 failed */
	long migrations; /* the tracee's, during the loop */
};

static cpu_set_t all_cpus; /* the affinity the program started with */
static int self_fds = -1;  /* /proc/self/fd, for the reopen */

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* se.nr_migrations of the calling thread, read from an already open
 * /proc/thread-self/sched (fd), -1 if unknown. */
static long migrations(int fd)
{
	char buf[4096], *p;
	ssize_t k = fd < 0 ? -1 : pread(fd, buf, sizeof buf - 1, 0);

	if (k <= 0)
		return -1;
	buf[k] = '\0';
	p = strstr(buf, "se.nr_migrations");
	if (!p || !(p = strchr(p, ':')))
		return -1;
	return strtol(p + 1, NULL, 10);
}

static void pin_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* Notifies openat (all: also open and creat), lets everything else through. */
static int install_filter(int all)
{
	struct sock_filter code[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat, 3, 0),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, all ? SYS_open : SYS_openat, 2, 0),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, all ? SYS_creat : SYS_openat, 1, 0),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
	};
	struct sock_fprog prog = {sizeof(code) / sizeof(code[0]), code};
	int fd;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER,
			  &prog);
	if (fd >= 0 &&
	    ioctl(fd, SECCOMP_IOCTL_NOTIF_SET_FLAGS, SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static int send_fd(int sock, int fd)
{
	char c = 0, ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = {&c, 1};
	struct msghdr m = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof(ctl)};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(sock, &m, 0) == 1 ? 0 : -1;
}

static int recv_fd(int sock)
{
	char c, ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = {&c, 1};
	struct msghdr m = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof(ctl)};
	struct cmsghdr *cm;
	int fd;

	if (recvmsg(sock, &m, 0) != 1 || !(cm = CMSG_FIRSTHDR(&m)) || cm->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

/* ---- what a checking supervisor must do, without the check ---------------------------- */

#define FLOOR_CONTINUE (-100000) /* let the kernel perform the call */

/* Reads the NUL-terminated string at addr in tid's memory, a page at a time. */
static int read_path(pid_t tid, uint64_t addr, char *buf, size_t size)
{
	size_t got = 0;

	while (got < size) {
		size_t room = 4096 - ((addr + got) & 4095);
		struct iovec l, r;
		ssize_t k;

		if (room > size - got)
			room = size - got;
		l.iov_base = buf + got;
		l.iov_len = room;
		r.iov_base = (void *)(uintptr_t)(addr + got);
		r.iov_len = room;
		k = process_vm_readv(tid, &l, 1, &r, 1, 0);
		if (k <= 0)
			return -EFAULT;
		if (memchr(buf + got, '\0', (size_t)k))
			return 0;
		got += (size_t)k;
	}
	return -ENAMETOOLONG;
}

/* The absolute form of the path the tracee passed (relative paths joined to the name of
 * its directory descriptor or working directory). */
static int absolute(pid_t tid, int dirfd, const char *path, char *out, size_t size)
{
	char link[64];
	ssize_t k;

	if (path[0] == '/')
		return snprintf(out, size, "%s", path) < (int)size ? 0 : -ENAMETOOLONG;
	if (dirfd == AT_FDCWD)
		snprintf(link, sizeof link, "/proc/%d/cwd", (int)tid);
	else
		snprintf(link, sizeof link, "/proc/%d/fd/%d", (int)tid, dirfd);
	k = readlink(link, out, size - 1);
	if (k <= 0)
		return -EBADF;
	out[k] = '\0';
	if (snprintf(out + k, size - (size_t)k, "/%s", path) >= (int)(size - (size_t)k))
		return -ENAMETOOLONG;
	return 0;
}

/* Performs the tracee's open: a descriptor to install, FLOOR_CONTINUE, or -errno. */
static int floor_open(pid_t tid, int dirfd, uint64_t addr, int flags, mode_t mode)
{
	char path[PATH_MAX], abs[PATH_MAX + 64], name[16];
	struct open_how how = {.flags = O_PATH | O_CLOEXEC | (flags & O_NOFOLLOW)};
	struct stat st;
	int rc, pin, fd;

	if ((flags & O_PATH) || (flags & __O_TMPFILE) == __O_TMPFILE)
		return FLOOR_CONTINUE;
	rc = read_path(tid, addr, path, sizeof path);
	if (rc == 0)
		rc = absolute(tid, dirfd, path, abs, sizeof abs);
	if (rc < 0)
		return rc;
	pin = (int)syscall(SYS_openat2, AT_FDCWD, abs, &how, sizeof how);
	if (pin < 0) {
		if (errno != ENOENT || !(flags & O_CREAT))
			return -errno;
		fd = openat(AT_FDCWD, abs, flags | O_CLOEXEC | O_NOCTTY, mode);
		return fd < 0 ? -errno : fd;
	}
	if (fstat(pin, &st) < 0 || !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))) {
		close(pin);
		return FLOOR_CONTINUE;
	}
	if ((flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL)) {
		close(pin);
		return -EEXIST;
	}
	snprintf(name, sizeof name, "%d", pin);
	fd = openat(self_fds, name,
		    (flags & ~(O_CREAT | O_EXCL | O_NOFOLLOW)) | O_CLOEXEC | O_NOCTTY);
	rc = fd < 0 ? -errno : fd;
	close(pin);
	return rc;
}

/* Answers one notification: "continue", or the open performed here (check: as a
 * checking supervisor would; else a plain open of path) and installed in one or two
 * steps. Returns 0, or -1 if the listener failed. */
static int answer(int listener, const struct seccomp_notif *req, enum mode mode, int check,
		  const char *path)
{
	struct seccomp_notif_resp resp = {.id = req->id, .flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE};
	const __u64 *a = req->data.args;
	int local = FLOOR_CONTINUE, remote;

	if (mode == M_ADDFD || mode == M_ADDFD_REPLY) {
		if (req->data.nr == SYS_openat)
			local = check
				    ? floor_open(req->pid, (int)a[0], a[1], (int)a[2], (mode_t)a[3])
				    : open(path, O_RDONLY | O_CLOEXEC);
		else if (req->data.nr == SYS_open)
			local = floor_open(req->pid, AT_FDCWD, a[0], (int)a[1], (mode_t)a[2]);
		else
			local = floor_open(req->pid, AT_FDCWD, a[0], O_CREAT | O_WRONLY | O_TRUNC,
					   (mode_t)a[1]);
	}
	if (local >= 0) {
		int cloexec = req->data.nr == SYS_openat ? (int)a[2] & O_CLOEXEC
			      : req->data.nr == SYS_open ? (int)a[1] & O_CLOEXEC
							 : 0;
		struct seccomp_notif_addfd add = {.id = req->id,
						  .flags =
						      mode == M_ADDFD ? SECCOMP_ADDFD_FLAG_SEND : 0,
						  .srcfd = (unsigned)local,
						  .newfd_flags = cloexec ? O_CLOEXEC : 0};

		remote = ioctl(listener, SECCOMP_IOCTL_NOTIF_ADDFD, &add);
		close(local);
		if (remote < 0)
			return errno == ENOENT ? 0 : -1;
		if (mode == M_ADDFD)
			return 0;
		resp.flags = 0;
		resp.val = remote;
	} else if (local != FLOOR_CONTINUE) {
		resp.flags = 0;
		resp.error = local;
	}
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp) < 0 && errno != ENOENT)
		return -1;
	return 0;
}

/* ---- the open loop ------------------------------------------------------------------- */

/* The tracee: a child process, as under dcg sandbox. Sends its listener over sock. */
static void tracee(struct run *r, int sock)
{
	int sched = open("/proc/thread-self/sched", O_RDONLY | O_CLOEXEC);
	double t0;
	long m0;

	if (r->pin)
		pin_cpu0();
	if (r->mode != M_BARE) {
		int fd = install_filter(0);

		if (fd < 0 || send_fd(sock, fd) < 0)
			_exit(1);
		close(fd);
	}
	m0 = migrations(sched);
	t0 = now_ns();
	for (long i = 0; i < r->n; i++) {
		int fd = openat(AT_FDCWD, r->path, O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			_exit(1);
		close(fd);
	}
	r->ns = (now_ns() - t0) / (double)r->n;
	r->migrations = sched < 0 || m0 < 0 ? -1 : migrations(sched) - m0;
	_exit(0);
}

/* Serves the tracee's n notifications. */
static int supervise(struct run *r, int fd)
{
	struct seccomp_notif req;

	for (long i = 0; i < r->n; i++) {
		memset(&req, 0, sizeof(req));
		if (ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0) {
			if (errno == EINTR) {
				i--;
				continue;
			}
			return -1;
		}
		if (answer(fd, &req, r->mode, r->check, r->path) < 0)
			return -1;
	}
	return 0;
}

static int measure(struct run *spec)
{
	struct run *r =
	    mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int sv[2], status, fd;
	pid_t pid;

	if (r == MAP_FAILED || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -1;
	*r = *spec;
	r->ns = -1;
	if (r->pin)
		pin_cpu0();
	pid = fork();
	if (pid == 0)
		tracee(r, sv[1]);
	close(sv[1]);
	if (pid > 0 && r->mode != M_BARE) {
		fd = recv_fd(sv[0]);
		if (fd < 0 || supervise(r, fd) < 0)
			kill(pid, SIGKILL);
		if (fd >= 0)
			close(fd);
	}
	close(sv[0]);
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0)
		r->ns = -1;
	if (r->pin)
		sched_setaffinity(0, sizeof(all_cpus), &all_cpus);
	*spec = *r;
	munmap(r, sizeof(*r));
	return spec->ns < 0 ? -1 : 0;
}

static int loop_main(long n, const char *path)
{
	static const struct {
		const char *name;
		enum mode mode;
		int check, pin;
	} modes[] = {
	    {"bare", M_BARE, 0, 0},
	    {"continue", M_CONTINUE, 0, 0},
	    {"addfd", M_ADDFD, 0, 0},
	    {"addfd-reply", M_ADDFD_REPLY, 0, 0},
	    {"addfd-check", M_ADDFD, 1, 0},
	    {"addfd-reply-check", M_ADDFD_REPLY, 1, 0},
	    {"continue-same-cpu", M_CONTINUE, 0, 1},
	    {"addfd-same-cpu", M_ADDFD, 0, 1},
	    {"addfd-check-same-cpu", M_ADDFD, 1, 1},
	};

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		struct run r = {modes[i].mode, modes[i].check, modes[i].pin, n, path, -1, 0};

		if (measure(&r) < 0) {
			fprintf(stderr, "notify_floor: %s failed\n", modes[i].name);
			return 1;
		}
		printf("%s %.0f %ld\n", modes[i].name, r.ns,
		       r.migrations < 0 ? -1 : r.migrations * 1000 / n);
		fflush(stdout);
	}
	return 0;
}

/* ---- a command under the floor supervisor -------------------------------------------- */

static int run_main(enum mode mode, char **cmd)
{
	struct seccomp_notif req;
	int sv[2], status = 0, listener;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return 1;
	pid = fork();
	if (pid == 0) {
		int fd = install_filter(1);

		if (fd < 0 || send_fd(sv[1], fd) < 0)
			_exit(126);
		close(fd);
		close(sv[1]);
		execvp(cmd[0], cmd);
		_exit(127);
	}
	close(sv[1]);
	listener = pid < 0 ? -1 : recv_fd(sv[0]);
	close(sv[0]);
	while (listener >= 0) {
		struct pollfd pf = {listener, POLLIN, 0};

		if (poll(&pf, 1, -1) < 0 && errno != EINTR)
			break;
		if (!(pf.revents & POLLIN)) {
			if (pf.revents & (POLLHUP | POLLERR | POLLNVAL))
				break; /* the last tracee has gone */
			continue;
		}
		memset(&req, 0, sizeof(req));
		if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0) {
			if (errno == ENOENT || errno == EINTR)
				continue;
			break;
		}
		if (answer(listener, &req, mode, 1, NULL) < 0)
			break;
	}
	if (listener >= 0)
		close(listener);
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(int argc, char **argv)
{
	long n;

	sched_getaffinity(0, sizeof(all_cpus), &all_cpus);
	self_fds = open("/proc/self/fd", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (argc >= 5 && !strcmp(argv[1], "--run") && !strcmp(argv[3], "--")) {
		if (!strcmp(argv[2], "continue"))
			return run_main(M_CONTINUE, argv + 4);
		if (!strcmp(argv[2], "addfd-check"))
			return run_main(M_ADDFD, argv + 4);
	} else if (argc == 3 && (n = strtol(argv[1], NULL, 10)) > 0) {
		return loop_main(n, argv[2]);
	}
	fprintf(stderr, "usage: notify_floor N PATH\n"
			"       notify_floor --run continue|addfd-check -- CMD ARGS...\n");
	return 2;
}
