/* run.c - `dcg sandbox`: the launcher and the process tree.
 *
 * The parent becomes a child subreaper, forks, and serves the child's listener until
 * the last descendant has exited. The child sets no_new_privs, installs the filter,
 * hands the listener to the parent over a socketpair (SCM_RIGHTS), closes its own
 * copy (a tracee holding the listener could answer for itself) and execs CMD with
 * the preload guard in its environment.
 */
#include "sandbox.h"
#include "../preload/rundir.h"

#include "../hook/hook.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;
/* `dcg --policy F sandbox`: hook/main.c sets it; weak so that sbx-run links alone. */
extern const char *dcg_global_policy __attribute__((weak));
/* `--intent ID` (hook/cmd_intent.c): checks the ID, sets DCG_INTENT and
 * DCG_INTENTS_FILE for the supervisor and the tree; weak for the same reason. */
int hook_intent_prepare_run(const char *id, FILE *err) __attribute__((weak));

static const int sbx_forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

static void sbx_usage(FILE *f)
{
	fputs("usage: dcg sandbox [--policy FILE] [--intent ID] [--no-preload] [-- CMD ARGS...]\n"
	      "Runs CMD (default $SHELL) under the seccomp supervisor: the policy's path rules\n"
	      "hold for every process of the tree, static binaries and raw syscalls included.\n"
	      "--no-preload: do not add libdcg-preload.so (refusals are then said by the\n"
	      "supervisor only, with the syscall's name).\n"
	      "--intent ID: writes outside the intent's owned_scope are refused too.\n",
	      f);
}

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

/* The environment for CMD: the preload in front of LD_PRELOAD (when the library
 * sits next to the dcg binary), the policy file as an absolute path, DCG_SANDBOX=1.
 * Returns a malloc'ed array (its strings: environ's or malloc'ed, never freed: the
 * child execs). */
/* The environment for CMD: environ with these variables replaced. */
struct sbx_envspec {
	const char *preload;	/* the guard library, put in front of LD_PRELOAD, or NULL */
	const char *policy_abs; /* DCG_POLICY, or NULL */
	const char *snapshot;	/* DCG_SNAPSHOT, or NULL */
	const char *log;	/* DCG_LOG, or NULL */
};

/* Frees what sbx_child_env() built: the array and the strings it made (those that
 * are not environ's). */
static void sbx_child_env_free(char **env)
{
	if (!env || env == environ)
		return;
	for (size_t i = 0; env[i]; i++) {
		int found = 0;
		for (size_t j = 0; environ[j] && !found; j++)
			found = env[i] == environ[j];
		if (!found)
			free(env[i]);
	}
	free(env);
}

static char *sbx_env_pair(const char *name, const char *a, const char *sep, const char *b)
{
	size_t sz = strlen(name) + strlen(a) + strlen(sep) + strlen(b) + 2;
	char *v = malloc(sz);

	if (v)
		snprintf(v, sz, "%s=%s%s%s", name, a, sep, b);
	return v;
}

/* Builds the child's environment (malloc'ed; sbx_child_env_free). Returns NULL when
 * out of memory. */
static char **sbx_child_env(const struct sbx_envspec *e)
{
	const char *old_pre = getenv("LD_PRELOAD");
	size_t n = 0, k = 0;
	char **env;

	while (environ[n])
		n++;
	env = calloc(n + 6, sizeof *env);
	if (!env)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const char *v = environ[i];
		if ((e->preload && !strncmp(v, "LD_PRELOAD=", 11)) ||
		    (e->policy_abs && !strncmp(v, "DCG_POLICY=", 11)) ||
		    (e->snapshot && !strncmp(v, "DCG_SNAPSHOT=", 13)) ||
		    (e->log && !strncmp(v, "DCG_LOG=", 8)) || !strncmp(v, "DCG_SANDBOX=", 12))
			continue;
		env[k++] = environ[i];
	}
	if (e->preload)
		env[k++] = old_pre && *old_pre && !strstr(old_pre, e->preload)
			       ? sbx_env_pair("LD_PRELOAD", e->preload, " ", old_pre)
			       : sbx_env_pair("LD_PRELOAD", e->preload, "", "");
	if (e->policy_abs)
		env[k++] = sbx_env_pair("DCG_POLICY", e->policy_abs, "", "");
	if (e->snapshot)
		env[k++] = sbx_env_pair("DCG_SNAPSHOT", e->snapshot, "", "");
	/* The log path is fixed now, so that `env -i` in a child does not move the
	 * preload's lines away from ours. */
	if (e->log)
		env[k++] = sbx_env_pair("DCG_LOG", e->log, "", "");
	env[k++] = sbx_env_pair("DCG_SANDBOX", "1", "", "");
	for (size_t i = 0; i < k; i++)
		if (!env[i]) {
			/* out of memory: compact the holes away, run with what we have */
			size_t w = 0;
			for (size_t r = 0; r < k; r++)
				if (env[r])
					env[w++] = env[r];
			k = w;
			break;
		}
	env[k] = NULL;
	return env;
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
static void sbx_child(int sock, const struct sbx_filter *f, char **argv, char **envp)
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
	execvpe(argv[0], argv, envp);
	int e = errno;
	dprintf(2, "dcg sandbox: cannot run %s: %s\n", argv[0], strerror(e));
	_exit(e == ENOENT ? 127 : 126);
}

/* The layered policy, loaded as every dcg command loads it (diagnostics on stderr). */
static int sbx_load_policy(const char *policy_abs, struct pol_policy **out)
{
	*out = hook_policy_open(policy_abs, NULL, stderr);
	if (*out)
		pol_prepare(*out); /* the supervisor's threads share it */
	return *out ? 0 : -ENOMEM;
}

/* Serves the listener until the last descendant has gone; returns the child's wait
 * status. */
static int sbx_serve(struct sbx_super *s, pid_t child, int sfd)
{
	struct pollfd pf[2];
	int child_status = 0, child_done = 0;

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
		if (si.ssi_signo != SIGCHLD) {
			/* A terminal's signal reaches the whole foreground group already:
			 * forward only what was sent to us alone. */
			if (si.ssi_code == SI_KERNEL)
				continue;
			if (!child_done)
				kill(child, (int)si.ssi_signo);
			else
				sbx_signal_children((int)si.ssi_signo);
			continue;
		}
		for (;;) {
			int st;
			pid_t pid = waitpid(-1, &st, WNOHANG | __WALL);
			if (pid == 0)
				break;
			if (pid < 0) {
				if (errno == EINTR)
					continue;
				if (!child_done)
					child_status = 0;
				return child_status;
			}
			if (pid == child) {
				child_status = st;
				child_done = 1;
			}
		}
	}
	/* poll failed: wait the old way. */
	while (!child_done) {
		if (waitpid(child, &child_status, 0) == child)
			child_done = 1;
		else if (errno != EINTR)
			break;
	}
	return child_status;
}

int cmd_sandbox(int argc, char **argv)
{
	const char *policy_arg = NULL;
	int no_preload = 0;
	char policy_abs[PATH_MAX], msg[256];
	char *default_argv[2];
	char **cmd, **envp = NULL;
	struct pol_policy *policy = NULL;
	struct sbx_filter filter = {0};
	struct sbx_super *sup = NULL;
	struct sbx_super_opts sopts;
	int sock[2] = {-1, -1}, sfd = -1, lfd, rc = 1, i, status;
	sigset_t mask, old;
	pid_t child;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		} else if (strcmp(argv[i], "--policy") == 0 && i + 1 < argc) {
			policy_arg = argv[++i];
		} else if (strncmp(argv[i], "--policy=", 9) == 0) {
			policy_arg = argv[i] + 9;
		} else if (strcmp(argv[i], "--no-preload") == 0) {
			no_preload = 1;
		} else if (strcmp(argv[i], "--intent") == 0 && i + 1 < argc) {
			const char *id = argv[++i];

			if (!hook_intent_prepare_run || hook_intent_prepare_run(id, stderr) != 0)
				return 1;
		} else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			sbx_usage(stdout);
			return 0;
		} else if (argv[i][0] == '-') {
			fprintf(stderr, "dcg sandbox: unknown option %s\n", argv[i]);
			sbx_usage(stderr);
			return 1;
		} else {
			break; /* CMD without "--" */
		}
	}
	if (i < argc) {
		cmd = argv + i;
	} else {
		const char *sh = getenv("SHELL");
		default_argv[0] = (char *)(sh && *sh ? sh : "/bin/bash");
		default_argv[1] = NULL;
		cmd = default_argv;
	}
	if (!policy_arg && &dcg_global_policy && dcg_global_policy)
		policy_arg = dcg_global_policy;
	if (!policy_arg)
		policy_arg = getenv("DCG_POLICY");
	if (policy_arg && *policy_arg) {
		if (!realpath(policy_arg, policy_abs)) {
			fprintf(stderr, "dcg sandbox: policy file %s: %s\n", policy_arg,
				strerror(errno));
			return 1;
		}
	} else {
		policy_arg = NULL;
	}

	if (sbx_kernel_check(msg, sizeof msg) < 0) {
		fprintf(stderr, "dcg sandbox: %s; refusing to run without protection\n", msg);
		return 1;
	}
	if (sbx_load_policy(policy_arg ? policy_abs : NULL, &policy) < 0) {
		fprintf(stderr, "dcg sandbox: cannot load the policy\n");
		return 1;
	}
	struct sbx_filter_opts fopts = {.notify_reads = sbx_has_zero_access(policy)};
	int frc = sbx_filter_build(&fopts, &filter);
	if (frc < 0) {
		fprintf(stderr, "dcg sandbox: cannot build the seccomp filter: %s\n",
			strerror(-frc));
		goto out_free_policy;
	}
	char lib[PATH_MAX], snap[PATH_MAX], logp[PATH_MAX];
	struct sbx_envspec spec = {.policy_abs = policy_arg ? policy_abs : NULL};
	if (!no_preload && run_find_preload(lib, sizeof lib) == 0) {
		spec.preload = lib;
		if (run_write_snapshot(policy, "<dcg sandbox>", snap, sizeof snap) == 0)
			spec.snapshot = snap;
	}
	if (pol_log_path(logp, sizeof logp) == 0 && logp[0] == '/')
		spec.log = logp;
	envp = sbx_child_env(&spec);
	if (!envp) {
		fprintf(stderr, "dcg sandbox: out of memory\n");
		goto out_release_filter;
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
		sbx_child(sock[1], &filter, cmd, envp);
	}
	close(sock[1]);
	sock[1] = -1;
	sbx_child_env_free(envp);
	envp = NULL;
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
		sbx_super_stats(sup, &st);
		fprintf(stderr,
			"dcg sandbox: %llu notified calls: %llu performed, %llu continued, "
			"%llu refused, %llu failed to answer\n",
			(unsigned long long)st.notified, (unsigned long long)st.emulated,
			(unsigned long long)st.continued, (unsigned long long)st.refused,
			(unsigned long long)st.failed);
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
	sbx_child_env_free(envp);
	sbx_filter_release(&filter);
out_free_policy:
	pol_free(policy);
	return rc;
}
