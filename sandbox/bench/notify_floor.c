/* notify_floor.c - the floor under `dcg sandbox`'s cost per notified open: the same
 * open+close loop bare, then with every openat notified to a minimal supervisor that
 * knows the answer without looking (no memory read, no path check), answering
 *   continue  SECCOMP_USER_NOTIF_FLAG_CONTINUE (the kernel performs the open),
 *   addfd     the supervisor opens the file and installs it with ADDFD + SEND (one
 *             call, but the kernel then wakes the tracee without the sync hand-off),
 *   addfd-reply  ADDFD without SEND, then an ordinary answer carrying the new
 *             descriptor's number (two calls, the second with the sync hand-off),
 * with the listener in SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP mode, the supervisor and the
 * tracee on any CPU, then both on the same CPU.
 *
 *   notify_floor N PATH    prints one line per mode: "<mode> <ns per call>"
 *
 * The tracee is a child process, as under dcg sandbox; it hands its listener to the
 * supervisor over a socket. No libseccomp: a four-instruction BPF program. */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
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
	int pin; /* supervisor and tracee on CPU 0 */
	long n;
	const char *path;
	int unused;
	double ns; /* per call, set by the tracee; -1 failed */
};

static cpu_set_t all_cpus; /* the affinity the program started with */

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static void pin_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static int install_filter(void)
{
	struct sock_filter code[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat, 0, 1),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {sizeof(code) / sizeof(code[0]), code};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER,
			    &prog);
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

/* The tracee: a child process, as under dcg sandbox. Sends its listener over sock. */
static void tracee(struct run *r, int sock)
{
	double t0;

	if (r->pin)
		pin_cpu0();
	if (r->mode != M_BARE) {
		int fd = install_filter();

		if (fd < 0 ||
		    ioctl(fd, SECCOMP_IOCTL_NOTIF_SET_FLAGS, SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP) <
			0 ||
		    send_fd(sock, fd) < 0)
			_exit(1);
		close(fd);
	}
	t0 = now_ns();
	for (long i = 0; i < r->n; i++) {
		int fd = openat(AT_FDCWD, r->path, O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			_exit(1);
		close(fd);
	}
	r->ns = (now_ns() - t0) / (double)r->n;
	_exit(0);
}

/* Serves the tracee's n notifications. */
static int supervise(struct run *r, int fd)
{
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;

	for (long i = 0; i < r->n; i++) {
		memset(&req, 0, sizeof(req));
		if (ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0) {
			if (errno == EINTR) {
				i--;
				continue;
			}
			return -1;
		}
		memset(&resp, 0, sizeof(resp));
		resp.id = req.id;
		resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		if (r->mode == M_ADDFD || r->mode == M_ADDFD_REPLY) {
			int local = open(r->path, O_RDONLY | O_CLOEXEC), remote;
			struct seccomp_notif_addfd add = {
			    .id = req.id,
			    .flags = r->mode == M_ADDFD ? SECCOMP_ADDFD_FLAG_SEND : 0,
			    .srcfd = (unsigned)local,
			    .newfd_flags = O_CLOEXEC};

			if (local < 0 || (remote = ioctl(fd, SECCOMP_IOCTL_NOTIF_ADDFD, &add)) < 0)
				return -1;
			close(local);
			if (r->mode == M_ADDFD)
				continue;
			resp.flags = 0;
			resp.val = remote;
		}
		if (ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, &resp) < 0)
			return -1;
	}
	return 0;
}

static double measure(enum mode mode, int pin, long n, const char *path)
{
	struct run *r =
	    mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int sv[2], status, fd;
	double ns;
	pid_t pid;

	if (r == MAP_FAILED || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -1;
	*r = (struct run){mode, pin, n, path, -1, -1};
	if (pin)
		pin_cpu0();
	pid = fork();
	if (pid == 0)
		tracee(r, sv[1]);
	close(sv[1]);
	if (pid > 0 && mode != M_BARE) {
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
	if (pin)
		sched_setaffinity(0, sizeof(all_cpus), &all_cpus);
	ns = r->ns;
	munmap(r, sizeof(*r));
	return ns;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		enum mode mode;
		int pin;
	} modes[] = {
	    {"bare", M_BARE, 0},
	    {"continue", M_CONTINUE, 0},
	    {"addfd", M_ADDFD, 0},
	    {"addfd-reply", M_ADDFD_REPLY, 0},
	    {"continue-same-cpu", M_CONTINUE, 1},
	    {"addfd-same-cpu", M_ADDFD, 1},
	    {"addfd-reply-same-cpu", M_ADDFD_REPLY, 1},
	};
	long n;

	sched_getaffinity(0, sizeof(all_cpus), &all_cpus);
	if (argc != 3 || (n = strtol(argv[1], NULL, 10)) < 1) {
		fprintf(stderr, "usage: notify_floor N PATH\n");
		return 2;
	}
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		double ns = measure(modes[i].mode, modes[i].pin, n, argv[2]);

		if (ns < 0) {
			fprintf(stderr, "notify_floor: %s failed: %s\n", modes[i].name,
				strerror(errno));
			return 1;
		}
		printf("%s %.0f\n", modes[i].name, ns);
	}
	return 0;
}
