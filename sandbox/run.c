/* run.c - sbx_run(): the process tree under the supervisor.
 *
 * The parent becomes a child subreaper, forks, and serves the child's listener until
 * the last descendant has exited. The child sets no_new_privs, installs the filter,
 * hands the listener to the parent over a socketpair (SCM_RIGHTS), closes its own
 * copy (a tracee holding the listener could answer for itself) and execs CMD with
 * the environment the launcher prepared (cli/launch.h).
 */
#include "sandbox.h"

#include "rt.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

static const int sbx_forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

/* Sends the listener descriptor, or an errno when there is none. */
static void sbx_send_fd(int sock, int fd, int err)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = {&err, sizeof err};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};

	memset(cbuf, 0, sizeof cbuf);
	if (fd >= 0) {
		msg.msg_control = cbuf;
		msg.msg_controllen = sizeof cbuf;
		struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof fd);
	}
	while (sendmsg(sock, &msg, MSG_NOSIGNAL) < 0 && errno == EINTR)
		;
}

/* Receives what sbx_send_fd sent: the descriptor, or a negative errno. */
static int sbx_recv_fd(int sock)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	int err = 0, fd = -1;
	struct iovec iov = {&err, sizeof err};
	struct msghdr msg = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf};
	ssize_t n;

	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		return -EPIPE;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS)
			memcpy(&fd, CMSG_DATA(cm), sizeof fd);
	if (fd >= 0)
		return fd;
	return err ? -err : -EPIPE;
}

static int sbx_has_zero_access(const struct pol_policy *p)
{
	struct pol_rule_info info;

	for (size_t i = 0; i < pol_rule_count(p); i++)
		if (pol_rule_get(p, i, &info) == 0 && info.kind == POL_RULE_PATH &&
		    info.path_kind == POL_PATH_ZERO_ACCESS)
			return 1;
	return 0;
}

/* Sends sig to every child we have (orphans of the tree were reparented to us). */
static void sbx_signal_children(int sig)
{
	char p[64], buf[4096];
	int fd;
	ssize_t n;

	snprintf(p, sizeof p, "/proc/self/task/%d/children", (int)getpid());
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	for (char *s = buf, *e; *s; s = e) {
		long pid = strtol(s, &e, 10);
		if (e == s)
			break;
		if (pid > 0)
			kill((pid_t)pid, sig);
	}
}

/* Where refusal lines go. When stderr is a pipe, a tracee may be the one that reads
 * it, and it cannot read while it waits for our answer: our own non-blocking
 * description of the same pipe drops a line rather than deadlock (the tracees keep
 * their blocking one). */
static int sbx_err_fd(void)
{
	struct stat st;
	int fd;

	if (fstat(2, &st) < 0 || !S_ISFIFO(st.st_mode))
		return 2;
	fd = open("/proc/self/fd/2", O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	return fd >= 0 ? fd : 2;
}

/* The child: filter, hand over the listener, exec. Never returns. */
static void sbx_child(int sock, const struct sbx_filter *f, char *const argv[])
{
	sigset_t none;
	int lfd;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (size_t i = 0; i < sizeof sbx_forwarded / sizeof sbx_forwarded[0]; i++)
		signal(sbx_forwarded[i], SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	lfd = sbx_filter_install(f);
	if (lfd < 0) {
		sbx_send_fd(sock, -1, -lfd);
		_exit(126);
	}
	sbx_send_fd(sock, lfd, 0);
	close(lfd);
	/* Wait until the parent holds the listener: our exec is its first call. */
	char ack;
	if (read(sock, &ack, 1) != 1)
		_exit(126);
	close(sock);
	/* The session names the wrapped agent: this process, after the exec. */
	{
		struct rt_session ses;
		char buf[PATH_MAX + 96];

		/* the launcher's start and file of kept names, our pid and start (the one
		 * format: runtime/rt.h); a value that does not parse is left to fail there */
		if (rt_session_parse(getenv("DCG_SESSION"), &ses) == 0) {
			ses.agent = getpid();
			ses.agent_start = rt_proc_start(0);
			if (rt_session_format(buf, sizeof buf, &ses) >= 0)
				setenv("DCG_SESSION", buf, 1);
		}
	}
	execvp(argv[0], argv);
	int e = errno;
	dprintf(2, "dcg sandbox: cannot run %s: %s\n", argv[0], strerror(e));
	_exit(e == ENOENT ? 127 : 126);
}

/* What the signals tell: the children reaped (CMD's status) and the signals forwarded. */
struct sbx_reaper {
	int sfd;
	pid_t child;
	int child_status, child_done;
};

/* Acts on one signal read from the signalfd: forwards SIGINT... to CMD (or, once it
 * has gone, to every child left), reaps on SIGCHLD. Returns 1 when no child is left. */
static int sbx_reap(struct sbx_reaper *r, const struct signalfd_siginfo *si)
{
	if (si->ssi_signo != SIGCHLD) {
		/* A terminal's signal reaches the whole foreground group already:
		 * forward only what was sent to us alone. */
		if (si->ssi_code == SI_KERNEL)
			return 0;
		if (!r->child_done)
			kill(r->child, (int)si->ssi_signo);
		else
			sbx_signal_children((int)si->ssi_signo);
		return 0;
	}
	for (;;) {
		int st;
		pid_t pid = waitpid(-1, &st, WNOHANG | __WALL);

		if (pid == 0)
			return 0;
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			return 1;
		}
		if (pid == r->child) {
			r->child_status = st;
			r->child_done = 1;
		}
	}
}

/* The reaper thread: reads the signalfd until no child is left. */
static void *sbx_reaper_main(void *arg)
{
	struct sbx_reaper *r = arg;
	struct signalfd_siginfo si;

	for (;;) {
		ssize_t n = read(r->sfd, &si, sizeof si);

		if (n == (ssize_t)sizeof si) {
			if (sbx_reap(r, &si))
				return NULL;
		} else if (n < 0 && errno != EINTR) {
			break;
		}
	}
	/* The signalfd failed: reap the old way (nothing is forwarded any more). */
	for (;;) {
		int st;
		pid_t pid = waitpid(-1, &st, __WALL);

		if (pid == r->child) {
			r->child_status = st;
			r->child_done = 1;
		} else if (pid < 0 && errno != EINTR) {
			return NULL;
		}
	}
}

/* Whether a RECV blocked on the listener returns once the last tracee has gone: since
 * Linux 6.11; before, only poll() saw the hang-up and RECV would wait for ever. */
static int sbx_recv_sees_end(void)
{
	struct utsname u;
	int major, minor;

	if (uname(&u) < 0 || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return 0;
	return major > 6 || (major == 6 && minor >= 11);
}

/* Serves the listener blocked in its RECV, a thread reaping and forwarding signals
 * meanwhile: a tracee's notification then wakes the supervisor on the tracee's CPU
 * and the answer hands the CPU back (SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP), with no
 * poll() in between. Returns 0 and the child's wait status in *status, or -1 when the
 * thread could not start. */
static int sbx_serve_blocking(struct sbx_super *s, pid_t child, int sfd, int *status)
{
	struct sbx_reaper r = {sfd, child, 0, 0};
	pthread_t t;
	int rc;

	if (pthread_create(&t, NULL, sbx_reaper_main, &r) != 0)
		return -1;
	rc = sbx_super_serve(s);
	if (rc < 0)
		fprintf(stderr, "dcg sandbox: listener failed: %s\n", strerror(-rc));
	pthread_join(t, NULL);
	*status = r.child_done ? r.child_status : 0;
	return 0;
}

/* Serves the listener until the last descendant has gone; returns the child's wait
 * status. */
static int sbx_serve(struct sbx_super *s, pid_t child, int sfd)
{
	struct sbx_reaper r = {sfd, child, 0, 0};
	struct pollfd pf[2];
	int status;

	if (sbx_recv_sees_end() && sbx_serve_blocking(s, child, sfd, &status) == 0)
		return status;
	pf[0].fd = sbx_super_fd(s);
	pf[0].events = POLLIN;
	pf[1].fd = sfd;
	pf[1].events = POLLIN;
	for (;;) {
		int n = poll(pf, 2, -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pf[0].revents & POLLIN) {
			int rc = sbx_super_handle_one(s);
			if (rc < 0 && rc != -ENOENT && rc != -EINTR) {
				fprintf(stderr, "dcg sandbox: listener failed: %s\n",
					strerror(-rc));
				pf[0].fd = -1;
			}
		} else if (pf[0].revents & (POLLHUP | POLLERR | POLLNVAL)) {
			/* Nobody holds the filter any more; wait for the reaping below. */
			pf[0].fd = -1;
		}
		if (!(pf[1].revents & POLLIN))
			continue;
		struct signalfd_siginfo si;
		if (read(sfd, &si, sizeof si) != sizeof si)
			continue;
		if (sbx_reap(&r, &si))
			return r.child_done ? r.child_status : 0;
	}
	/* poll failed: wait the old way. */
	while (!r.child_done) {
		if (waitpid(child, &r.child_status, 0) == child)
			r.child_done = 1;
		else if (errno != EINTR)
			break;
	}
	return r.child_status;
}

int sbx_run(const struct pol_policy *policy, char *const cmd[])
{
	struct sbx_filter filter = {0};
	struct sbx_super *sup = NULL;
	struct sbx_super_opts sopts;
	int sock[2] = {-1, -1}, sfd = -1, lfd, rc = 1, status;
	sigset_t mask, old;
	pid_t child;

	struct sbx_filter_opts fopts = {.notify_reads = sbx_has_zero_access(policy)};
	int frc = sbx_filter_build(&fopts, &filter);
	if (frc < 0) {
		fprintf(stderr, "dcg sandbox: cannot build the seccomp filter: %s\n",
			strerror(-frc));
		return 1;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sock) < 0) {
		perror("dcg sandbox: socketpair");
		goto out_release_filter;
	}
	/* Orphans of the tree come to us, so we can follow it to its last process. */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0) {
		perror("dcg sandbox: PR_SET_CHILD_SUBREAPER");
		goto out_close_sock;
	}
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	for (size_t k = 0; k < sizeof sbx_forwarded / sizeof sbx_forwarded[0]; k++)
		sigaddset(&mask, sbx_forwarded[k]);
	sigprocmask(SIG_BLOCK, &mask, &old);
	signal(SIGPIPE, SIG_IGN);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (sfd < 0) {
		perror("dcg sandbox: signalfd");
		goto out_restore_mask;
	}
	fflush(NULL);
	child = fork();
	if (child < 0) {
		perror("dcg sandbox: fork");
		goto out_close_sfd;
	}
	if (child == 0) {
		close(sock[0]);
		sbx_child(sock[1], &filter, cmd);
	}
	close(sock[1]);
	sock[1] = -1;
	lfd = sbx_recv_fd(sock[0]);
	if (lfd < 0) {
		const char *why =
		    lfd == -EBUSY    ? "another seccomp listener already supervises this process "
				       "tree (one per filter chain)"
		    : lfd == -EPERM  ? "an enclosing seccomp filter refuses new listeners "
				       "(already inside dcg sandbox?)"
		    : lfd == -EINVAL ? "this kernel's seccomp has no user notification"
				     : "";
		fprintf(stderr,
			"dcg sandbox: the seccomp filter could not be installed: %s%s%s; "
			"refusing to run without protection\n",
			strerror(-lfd), why[0] ? ": " : "", why);
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		goto out_close_sfd;
	}
	sopts.policy = policy;
	sopts.listener = lfd;
	sopts.quiet = 0;
	sopts.err_fd = sbx_err_fd();
	sup = sbx_super_new(&sopts);
	if (!sup) {
		fprintf(stderr, "dcg sandbox: cannot start the supervisor: %s\n", strerror(errno));
		close(lfd);
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		goto out_close_sfd;
	}
	if (write(sock[0], "", 1) != 1) {
		kill(child, SIGKILL);
	}
	status = sbx_serve(sup, child, sfd);
	if (getenv("DCG_SANDBOX_STATS")) {
		struct sbx_stats st;
		struct rusage ru;
		unsigned long long us = 0;

		sbx_super_stats(sup, &st);
		/* our own CPU (the supervisor's threads; the tree is our children's) */
		if (getrusage(RUSAGE_SELF, &ru) == 0)
			us = (unsigned long long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) *
				 1000000ULL +
			     (unsigned long long)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
		fprintf(stderr,
			"dcg sandbox: %llu notified calls: %llu performed, %llu continued, "
			"%llu refused, %llu failed to answer; supervisor CPU %llu us, %.1f us "
			"per call\n",
			(unsigned long long)st.notified, (unsigned long long)st.emulated,
			(unsigned long long)st.continued, (unsigned long long)st.refused,
			(unsigned long long)st.failed, us,
			st.notified ? (double)us / (double)st.notified : 0.0);
	}
	if (WIFEXITED(status)) {
		rc = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		struct rlimit nocore = {0, 0};
		rc = 128 + sig;
		/* Die of the same signal, so our parent sees what CMD's would have. */
		sbx_super_free(sup);
		sup = NULL;
		setrlimit(RLIMIT_CORE, &nocore);
		signal(sig, SIG_DFL);
		sigset_t one;
		sigemptyset(&one);
		sigaddset(&one, sig);
		sigprocmask(SIG_UNBLOCK, &one, NULL);
		raise(sig);
	}
	sbx_super_free(sup);
	if (sopts.err_fd > 2)
		close(sopts.err_fd);
out_close_sfd:
	close(sfd);
out_restore_mask:
	sigprocmask(SIG_SETMASK, &old, NULL);
out_close_sock:
	if (sock[0] >= 0)
		close(sock[0]);
	if (sock[1] >= 0)
		close(sock[1]);
out_release_filter:
	sbx_filter_release(&filter);
	return rc;
}
