/* super.c - the seccomp supervisor: one notification in, one answer out.
 *
 * For every path-taking call the supervisor
 *   1. reads the path from the tracee's memory,
 *   2. pins it (walk.c): an O_PATH descriptor on the object or its parent directory,
 *   3. checks that the notification is still valid (the tracee may have died and
 *      its pid been reused, which would make the memory read meaningless),
 *   4. asks policy/ about the path as written and about the pinned canonical path,
 *   5. performs the call itself through the pinned descriptor, with the tracee's
 *      credentials, and answers with the result (opens: the descriptor is installed
 *      in the tracee with SECCOMP_IOCTL_NOTIF_ADDFD and SECCOMP_ADDFD_FLAG_SEND).
 * It never answers "continue" after checking a path held in the tracee's memory: the
 * kernel would read the path again, after a second thread changed it. The only
 * "continue" is for exec (see sandbox/README.md), which the supervisor cannot perform.
 */
#include "sandbox.h"

#include "intent.h"
#include "rt.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif
#define SBX_MAX_ARGV   1024
#define SBX_ARGV_BYTES (256 * 1024)
#define SBX_XATTR_MAX  65536

/* Tgid, fs uid/gid, groups and umask of a tracee thread (from /proc/TID/status). */
struct sbx_creds {
	pid_t tgid;
	uid_t fsuid;
	gid_t fsgid;
	gid_t groups[64];
	int ngroups;
	mode_t umask;
	int have_umask;
};

#define SBX_CRED_SLOTS 256
struct sbx_cred_slot {
	pid_t tid;
	ino_t ino;
	int valid;
	struct sbx_creds cr;
};

struct sbx_super {
	const struct pol_policy *policy;
	struct sbx_cred_slot cache[SBX_CRED_SLOTS];
	/* 0 until a tracee changed its ids (ids_differ) or its umask (umask_differs):
	 * until then every tracee has ours (the tree was forked from us and
	 * no_new_privs ignores set-uid bits) */
	int ids_differ, umask_differs;
	mode_t umask0; /* ours, which the tracees start with */
	gid_t groups[64];
	int ngroups;
	int listener;
	int quiet;
	int err_fd;
	/* refusal lines printed for the process refused last (RT_TOLD_MAX): a race between
	 * notifications only moves that count by one */
	pid_t told_tgid;
	struct rt_told told;
	pid_t self;
	uid_t euid;
	gid_t egid;
	struct seccomp_notif_sizes sizes;
	struct seccomp_notif *req;
	struct seccomp_notif_resp *resp;
	struct sbx_stats stats;
	long long session_start; /* ns: files born since then are the session's */
	/* The session's kept names (runtime/rt.h): files of the session's that replaced
	 * a name older than it, which stays no-delete. An open-addressed set, held here
	 * where no tracee can reach it; the lock for the helper threads. */
	pthread_mutex_t kept_lock;
	struct rt_kept *kept;
	size_t kept_n, kept_cap;
	pid_t agent_tgid;	/* the first process that called: the command dcg sandbox ran */
	int agent_pidfd;	/* held from its first call: its identity dies with it */
	char dcg_exe[PATH_MAX]; /* our own binary: rules owned by ":dcg" let it pass */
	dev_t dcg_dev;		/* and the file itself, as the tracee's exec must show it */
	ino_t dcg_ino;
	/* The audit log: tracees that open it to append get the write end of a pipe;
	 * a thread of ours appends what comes through (no tracee holds the file). */
	int log_pipe_w;
	pthread_t log_thread;
	int log_thread_on;
	char guard_dir[PATH_MAX]; /* the folder of the preloaded guard (LD_PRELOAD's first) */
	int exe_first;		  /* the tracee's program is needed before every decision */
	char log_path[PATH_MAX];  /* the audit log: the preload in every tracee appends to it */
	char once_path[PATH_MAX]; /* the allow-once codes offered: appended to likewise */
	int self_fds;		  /* /proc/self/fd, to reopen a pinned file by its number */
};

/* What the handler decided to answer. */
enum sbx_answer_kind { SBX_ANS_VALUE, SBX_ANS_FD, SBX_ANS_CONTINUE, SBX_ANS_NONE };
struct sbx_answer {
	enum sbx_answer_kind kind;
	long long val; /* VALUE: >= 0 the result, < 0 a negative errno */
	int fd;	       /* FD: the descriptor to install (closed after) */
	int cloexec;
};

/* One call being handled. */
struct sbx_call {
	struct sbx_super *s;
	const struct seccomp_notif *req;
	struct sbx_who who;
	const char *name; /* the call's name in messages */
	int creds_switched, creds_done;
	/* the notification's validity is checked before a line is written, not before
	 * acting: a read-only open of a file or folder, whose descriptor only reaches the
	 * tracee through ADDFD, which the kernel refuses for a notification gone */
	int valid_later;
	int close_later; /* a descriptor to close with the answer's (-1: none) */
	const struct sbx_creds *creds;
	mode_t umask_saved;
	int umask_set;
	/* rename: the folder of a regular file of the session's own as the source (an
	 * atomic save may replace a no-delete name in that same folder), the file, and
	 * whether it replaces a name that is not the session's own (then it is kept) */
	int src_new, src_keep;
	dev_t src_dev;
	ino_t src_ino;
	struct rt_obj src;
};

/* ---- the session's kept names -------------------------------------------------------- */

static size_t sbx_kept_slot(const struct rt_kept *set, size_t cap, const struct rt_kept *o)
{
	uint64_t h =
	    (o->dev * 0x9e3779b97f4a7c15ull) ^ (o->ino * 0xc2b2ae3d27d4eb4full) ^ (uint64_t)o->born;
	size_t i = (size_t)(h ^ (h >> 29)) & (cap - 1);

	/* an empty slot has ino 0, which no file has */
	while (set[i].ino &&
	       !(set[i].dev == o->dev && set[i].ino == o->ino && set[i].born == o->born))
		i = (i + 1) & (cap - 1);
	return i;
}

/* Whether o is kept. */
static int sbx_kept_has(struct sbx_super *s, const struct rt_obj *o)
{
	struct rt_kept k;
	int has = 0;

	rt_kept_of(o, &k);
	pthread_mutex_lock(&s->kept_lock);
	if (s->kept_cap)
		has = s->kept[sbx_kept_slot(s->kept, s->kept_cap, &k)].ino != 0;
	pthread_mutex_unlock(&s->kept_lock);
	return has;
}

/* Keeps o. Returns 0 or -ENOMEM (the caller then refuses the rename). */
static int sbx_kept_add(struct sbx_super *s, const struct rt_obj *o)
{
	struct rt_kept k, *slot;
	int rc = 0;

	rt_kept_of(o, &k);
	pthread_mutex_lock(&s->kept_lock);
	if (2 * (s->kept_n + 1) > s->kept_cap) {
		size_t cap = s->kept_cap ? 2 * s->kept_cap : 64;
		struct rt_kept *set = calloc(cap, sizeof(*set));

		if (!set) {
			rc = -ENOMEM;
			goto out_unlock;
		}
		for (size_t i = 0; i < s->kept_cap; i++)
			if (s->kept[i].ino)
				set[sbx_kept_slot(set, cap, &s->kept[i])] = s->kept[i];
		free(s->kept);
		s->kept = set;
		s->kept_cap = cap;
	}
	slot = &s->kept[sbx_kept_slot(s->kept, s->kept_cap, &k)];
	if (!slot->ino) {
		*slot = k;
		s->kept_n++;
	}
out_unlock:
	pthread_mutex_unlock(&s->kept_lock);
	return rc;
}

/* Forgets o (a rename that failed after it was kept): its slot stays taken, with a
 * birth no file has, so that the probes past it still go on. */
static void sbx_kept_forget(struct sbx_super *s, const struct rt_obj *o)
{
	struct rt_kept k, *slot;

	rt_kept_of(o, &k);
	pthread_mutex_lock(&s->kept_lock);
	if (s->kept_cap) {
		slot = &s->kept[sbx_kept_slot(s->kept, s->kept_cap, &k)];
		if (slot->ino)
			slot->born = INT64_MIN;
	}
	pthread_mutex_unlock(&s->kept_lock);
}

/* Whether name in folder fd is the session's own (runtime/rt.h): nothing there, or an
 * object born after the session began that is not kept. *o gets the object. */
static int sbx_session_own(struct sbx_super *s, int fd, const char *name, struct rt_obj *o)
{
	int rc = rt_obj_at(fd, name, o);

	if (rc < 0)
		return rc == -ENOENT;
	return s->session_start && o->born > s->session_start && !sbx_kept_has(s, o);
}

/* ---- tracee memory ----------------------------------------------------------------- */

/* Reads (write 0) or writes (write 1, a result such as an old limit) len bytes of the
 * tracee's memory at addr; falls back on /proc/PID/mem where process_vm_readv/writev is
 * not allowed. Returns the bytes moved or -errno. */
static ssize_t sbx_mem_io(struct sbx_call *c, uint64_t addr, void *buf, size_t len, int write)
{
	struct iovec local = {buf, len}, remote = {(void *)(uintptr_t)addr, len};
	pid_t pid = (pid_t)c->req->pid;
	ssize_t n = write ? process_vm_writev(pid, &local, 1, &remote, 1, 0)
			  : process_vm_readv(pid, &local, 1, &remote, 1, 0);
	if (n >= 0 || (errno != EPERM && errno != ENOSYS))
		return n < 0 ? -errno : n;
	char p[64];
	snprintf(p, sizeof p, "/proc/%u/mem", c->req->pid);
	int fd = open(p, (write ? O_WRONLY : O_RDONLY) | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write ? pwrite(fd, buf, len, (off_t)addr) : pread(fd, buf, len, (off_t)addr);
	if (n < 0)
		n = -errno;
	close(fd);
	return n;
}

static ssize_t sbx_mem_read(struct sbx_call *c, uint64_t addr, void *buf, size_t len)
{
	return sbx_mem_io(c, addr, buf, len, 0);
}

/* Reads a NUL-terminated string, page by page so that a string ending just before an
 * unmapped page is read whole. Returns how many bytes of buf it filled (the string and
 * what followed it up to the end of its last page), or -errno. */
static long sbx_read_str_n(struct sbx_call *c, uint64_t addr, char *buf, size_t size)
{
	size_t got = 0;

	if (addr == 0)
		return -EFAULT;
	while (got < size) {
		size_t chunk = 4096 - ((addr + got) & 4095);
		if (chunk > size - got)
			chunk = size - got;
		ssize_t n = sbx_mem_read(c, addr + got, buf + got, chunk);
		if (n <= 0)
			return -EFAULT;
		char *nul = memchr(buf + got, '\0', (size_t)n);
		if (nul)
			return (long)(got + (size_t)n);
		got += (size_t)n;
	}
	return -ENAMETOOLONG;
}

static int sbx_read_str(struct sbx_call *c, uint64_t addr, char *buf, size_t size)
{
	long n = sbx_read_str_n(c, addr, buf, size);

	return n < 0 ? (int)n : 0;
}

/* Reads argv (up to SBX_MAX_ARGV strings) into argv, NULL-terminated, and pool
 * (SBX_ARGV_BYTES): the pointers a page at a time, and a string only when the read
 * before it (which goes on to the end of its page) does not already hold it, since a
 * program's strings usually lie end to end or a few bytes apart. Returns the count, or
 * -errno. */
static int sbx_read_argv(struct sbx_call *c, uint64_t addr, char **argv, char *pool)
{
	uint64_t ptrs[512];
	size_t nptr = 0, iptr = 0, used = 0, have = 0; /* have: bytes read at pool + used */
	uint64_t have_addr = 0;			       /* and where they came from */
	int n;

	for (n = 0; n < SBX_MAX_ARGV && addr; n++) {
		if (iptr == nptr) {
			uint64_t a = addr + (uint64_t)n * 8;
			size_t chunk = 4096 - (a & 4095);

			if (chunk > sizeof ptrs)
				chunk = sizeof ptrs;
			if (chunk > (size_t)(SBX_MAX_ARGV - n) * 8)
				chunk = (size_t)(SBX_MAX_ARGV - n) * 8;
			chunk = chunk < 8 ? 8 : chunk & ~(size_t)7;
			ssize_t k = sbx_mem_read(c, a, ptrs, chunk);
			if (k < 8)
				return -EFAULT;
			nptr = (size_t)k / 8;
			iptr = 0;
		}
		uint64_t p = ptrs[iptr++];
		if (p == 0)
			break;
		if (used >= SBX_ARGV_BYTES)
			return -E2BIG;
		if (p > have_addr && p - have_addr < have) {
			/* further on in the bytes already read (strings a malloc apart) */
			size_t off = (size_t)(p - have_addr);

			memmove(pool + used, pool + used + off, have - off);
			have -= off;
			have_addr = p;
		}
		if (!have || p != have_addr || !memchr(pool + used, '\0', have)) {
			long got = sbx_read_str_n(c, p, pool + used, SBX_ARGV_BYTES - used);
			if (got < 0)
				return (int)got;
			have = (size_t)got;
			have_addr = p;
		}
		size_t len = strlen(pool + used) + 1;
		argv[n] = pool + used;
		used += len;
		have -= len;
		have_addr += len;
	}
	argv[n] = NULL;
	return n;
}

/* ---- credentials --------------------------------------------------------------------- */

/* Reads Tgid, fs uid/gid, groups and umask of the tracee from /proc/TID/status. */
static int sbx_read_creds(pid_t tid, struct sbx_creds *cr)
{
	char p[64], buf[8192], *l;
	int fd;
	ssize_t n;

	memset(cr, 0, sizeof *cr);
	snprintf(p, sizeof p, "/proc/%d/status", (int)tid);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	for (l = buf; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		if (strncmp(l, "Tgid:", 5) == 0) {
			cr->tgid = (pid_t)strtol(l + 5, NULL, 10);
		} else if (strncmp(l, "Umask:", 6) == 0) {
			cr->umask = (mode_t)strtol(l + 6, NULL, 8);
			cr->have_umask = 1;
		} else if (strncmp(l, "Uid:", 4) == 0 || strncmp(l, "Gid:", 4) == 0) {
			char *q = l + 4;
			unsigned long v[4] = {0};
			for (int i = 0; i < 4; i++)
				v[i] = strtoul(q, &q, 10);
			if (l[0] == 'U')
				cr->fsuid = (uid_t)v[3];
			else
				cr->fsgid = (gid_t)v[3];
		} else if (strncmp(l, "Groups:", 7) == 0) {
			char *q = l + 7, *e;
			while (cr->ngroups < 64) {
				unsigned long g = strtoul(q, &e, 10);
				if (e == q)
					break;
				cr->groups[cr->ngroups++] = (gid_t)g;
				q = e;
			}
		}
	}
	return 0;
}

/* The credentials of a tracee thread, cached: reading /proc/TID/status costs more
 * than the rest of a call. An entry is keyed by the tid and the inode number of
 * /proc/TID, which is new for a new process reusing the tid; the whole cache is
 * dropped when any tracee changes its ids or umask (those calls are notified for
 * this purpose only and then continued). */
static const struct sbx_creds *sbx_creds_get(struct sbx_call *c)
{
	struct sbx_cred_slot *slot = &c->s->cache[c->req->pid % SBX_CRED_SLOTS];
	struct stat st;
	char p[64];

	snprintf(p, sizeof p, "/proc/%u", c->req->pid);
	if (stat(p, &st) < 0)
		return NULL;
	if (slot->valid && slot->tid == (pid_t)c->req->pid && slot->ino == st.st_ino)
		return &slot->cr;
	slot->valid = 0;
	if (sbx_read_creds((pid_t)c->req->pid, &slot->cr) < 0)
		return NULL;
	slot->tid = (pid_t)c->req->pid;
	slot->ino = st.st_ino;
	slot->valid = 1;
	return &slot->cr;
}

static void sbx_ids_apply(const struct sbx_creds *cr)
{
	/* Raw syscalls: per thread, unlike glibc's setgroups which signals all threads. */
	syscall(SYS_setgroups, cr->ngroups, cr->groups);
	setfsgid(cr->fsgid);
	setfsuid(cr->fsuid);
}

static void sbx_ids_restore(const struct sbx_super *s)
{
	setfsuid(s->euid);
	setfsgid(s->egid);
	syscall(SYS_setgroups, s->ngroups, s->groups);
}

/* Takes on the tracee's file-system identity (and umask, for calls that create) for
 * the rest of the call: the walk too, so that directory search permissions are the
 * tracee's. Idempotent; sbx_creds_leave() at the end of every call undoes it. Only
 * a privileged supervisor can switch ids; an unprivileged one runs as the same user
 * as its tracees, which cannot gain privileges (no_new_privs). Until a tracee calls
 * one of the (notified) calls that change ids or the umask, every tracee has ours,
 * and nothing is looked up (no stat of /proc/TID per call). */
static void sbx_creds_enter(struct sbx_call *c, int need_umask)
{
	const struct sbx_creds *cr;

	if (!c->s->ids_differ && (!need_umask || !c->s->umask_differs))
		return; /* the tracee's ids (and umask) are ours: nothing to look up */
	if (c->creds_done && (!need_umask || c->umask_set))
		return;
	if (!need_umask && c->s->euid != 0)
		return;
	cr = sbx_creds_get(c);
	if (!cr)
		return;
	if (cr->tgid > 0)
		c->who.tgid = cr->tgid;
	if (need_umask && cr->have_umask && !c->umask_set) {
		c->umask_saved = umask(cr->umask);
		c->umask_set = 1;
	}
	if (c->creds_done)
		return;
	c->creds_done = 1;
	if (c->s->euid != 0 || (cr->fsuid == c->s->euid && cr->fsgid == c->s->egid))
		return;
	sbx_ids_apply(cr);
	c->creds = cr;
	c->creds_switched = 1;
}

static void sbx_creds_leave(struct sbx_call *c)
{
	if (c->umask_set) {
		umask(c->umask_saved);
		c->umask_set = 0;
	}
	c->creds_done = 0;
	if (!c->creds_switched)
		return;
	sbx_ids_restore(c->s);
	c->creds_switched = 0;
}

/* ---- policy ----------------------------------------------------------------------------- */

static int sbx_still_valid(struct sbx_call *c);

static void sbx_say(struct sbx_super *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void sbx_say(struct sbx_super *s, const char *fmt, ...)
{
	char line[PATH_MAX + 1024];
	va_list ap;
	int n;

	if (s->quiet)
		return;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof line)
		n = sizeof line - 1;
	if (write(s->err_fd, line, (size_t)n) < 0) {
		/* nothing to do: a lost message never changes a decision */
	}
}

/* The audit line of a decision on a tracee's call, written with our own ids (the log is
 * ours, not the tracee's). */
static void sbx_audit(struct sbx_call *c, const char *shown, const struct pol_result *r)
{
	char cwd[PATH_MAX], p[64];
	ssize_t n;

	snprintf(p, sizeof p, "/proc/%u/cwd", c->req->pid);
	n = readlink(p, cwd, sizeof cwd - 1);
	cwd[n > 0 ? n : 0] = '\0';
	if (c->creds_switched)
		sbx_ids_restore(c->s);
	rt_audit("sandbox", c->name, shown, r, (pid_t)c->req->pid, cwd[0] ? cwd : NULL);
	if (c->creds_switched)
		sbx_ids_apply(c->creds);
}

/* The refused process's own stderr, when it is not ours: a tool run by a wrapped agent
 * writes its stderr into a pipe the agent reads, and the model must be told what was
 * refused (the preload says it there itself; a static binary, or --no-preload, has
 * only the supervisor to say it). Written only into a pipe, a socket, a terminal or
 * an append-mode file (never into a data file that took fd 2's place), never
 * blocking (the tracee waits on us: a pipe or a terminal is written through a
 * non-blocking description of our own), and not when it is the same file as our own
 * stderr (said once). */
static void sbx_tell_tracee(struct sbx_call *c, const char *line, size_t len)
{
	struct stat ts, os;
	int pidfd, fd, fl, nb;
	char self[64];

	if (c->s->quiet)
		return;
	pidfd = (int)syscall(SYS_pidfd_open, sbx_who_tgid(&c->who), 0);
	if (pidfd < 0)
		return;
	fd = (int)syscall(SYS_pidfd_getfd, pidfd, 2, 0);
	close(pidfd);
	if (fd < 0)
		return;
	fl = fcntl(fd, F_GETFL);
	if (fstat(fd, &ts) < 0 || fl < 0 ||
	    (fstat(c->s->err_fd, &os) == 0 && os.st_dev == ts.st_dev && os.st_ino == ts.st_ino))
		goto out;
	if (S_ISFIFO(ts.st_mode) || S_ISCHR(ts.st_mode)) {
		/* our own non-blocking description of the same pipe or terminal: a full
		 * pipe or a stopped terminal loses the line, never holds the supervisor */
		snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
		nb = open(self, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (nb < 0)
			goto out;
		close(fd);
		fd = nb;
	} else if (S_ISREG(ts.st_mode)) {
		if (!(fl & O_APPEND))
			goto out;
	} else if (!S_ISSOCK(ts.st_mode)) {
		goto out;
	}
	if (S_ISSOCK(ts.st_mode)) {
		if (send(fd, line, len, MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
			/* a lost message never changes a decision */
		}
	} else if (write(fd, line, len) < 0) {
		/* same */
	}
out:
	close(fd);
}

/* A refusal: the runtime core's line on our stderr and the refused process's (up to
 * RT_TOLD_MAX for one process, then one line saying the rest are in the audit log), and
 * the audit line. */
static void sbx_report(struct sbx_call *c, const char *shown, const struct pol_result *r)
{
	char line[PATH_MAX + 1024];
	struct rt_msg m;
	pid_t tgid = sbx_who_tgid(&c->who);
	unsigned told;

	rt_msg_init(&m, line, sizeof line - 1);
	rt_describe(&m, "blocked", c->name, shown, r);
	if (c->s->told_tgid != tgid) {
		c->s->told_tgid = tgid;
		memset(&c->s->told, 0, sizeof c->s->told);
	}
	told = rt_told_next(&c->s->told, m.buf, m.len);
	if (told == RT_TOLD_MAX) {
		rt_msg_init(&m, line, sizeof line - 1);
		rt_msg_add(&m, RT_TOLD_MORE);
	}
	if (told <= RT_TOLD_MAX) {
		rt_msg_add(&m, "\n");
		sbx_say(c->s, "%s", m.buf);
		sbx_tell_tracee(c, m.buf, strlen(m.buf));
	}
	sbx_audit(c, shown, r);
}

/* An ask: the question on /dev/tty, RT_ASK_TIMEOUT_MS; 1 when the user says yes. */
static int sbx_ask_tty(struct sbx_call *c, const char *shown, const struct pol_result *r)
{
	char line[PATH_MAX + 1024];
	struct rt_msg m;

	rt_msg_init(&m, line, sizeof line - 1);
	rt_describe(&m, "asks: allow", c->name, shown, r);
	rt_msg_add(&m, "? [y/N] ");
	return rt_ask_tty(m.buf);
}

/* A refusal of a built-in runtime rule (sandbox.raw_write...): refused unless the
 * allowlist names it. Returns 0 or err. */
static int sbx_builtin(struct sbx_call *c, const char *id, const char *shown, int err)
{
	struct pol_result r;
	struct pol_ctx ctx = {0};

	if (rt_builtin(c->s->policy, id, shown, &ctx, &r) == POL_ALLOW) {
		sbx_audit(c, shown, &r);
		return 0;
	}
	sbx_report(c, shown, &r);
	return err;
}

/* `dcg sandbox --intent ID` ($DCG_INTENT): the intent's scope, read once. */
static struct pol_intent_set *sbx_intents;
static pthread_once_t sbx_intents_once = PTHREAD_ONCE_INIT;

static void sbx_intents_load(void)
{
	sbx_intents = pol_intent_open_env();
}

/* Does the tracee carry code from outside the system folders (an object preloaded into
 * it, a library found through LD_LIBRARY_PATH, an anonymous executable mapping)? Then an
 * owner given by name (git) does not count for it: that code would act as the owner
 * (POL_CTX_FOREIGN_CODE). The guard's own objects are not foreign. Read only when an
 * owner is what lets a call pass; unreadable counts as foreign. */
static int sbx_foreign_code(struct sbx_call *c)
{
	char path[64], buf[8192], *line, *nl;
	size_t have = 0, gl = strlen(c->s->guard_dir);
	ssize_t n;
	int fd, foreign = 0, any = 0;

	snprintf(path, sizeof path, "/proc/%u/maps", c->req->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1;
	while (!foreign && (n = read(fd, buf + have, sizeof buf - 1 - have)) > 0) {
		have += (size_t)n;
		buf[have] = '\0';
		for (line = buf; !foreign && (nl = strchr(line, '\n')); line = nl + 1) {
			/* ADDR PERMS OFFSET DEV INODE PATH */
			char perms[8] = "", *name = NULL;
			int field = 0;

			*nl = '\0';
			any = 1;
			for (char *t = line; *t && !name; field++) {
				while (*t == ' ')
					t++;
				if (field == 1)
					snprintf(perms, sizeof perms, "%.4s", t);
				if (field == 5) {
					name = t;
					break;
				}
				while (*t && *t != ' ')
					t++;
			}
			if (strlen(perms) < 3 || perms[2] != 'x')
				continue;
			if (!name || !*name)
				foreign = 1; /* anonymous executable memory */
			else if (name[0] != '[' && !pol_owner_folder(c->s->policy, name) &&
				 !(gl && !strncmp(name, c->s->guard_dir, gl)) &&
				 strcmp(name, c->s->dcg_exe) != 0)
				foreign = 1;
		}
		have = strlen(line);
		if (have == sizeof buf - 1) /* a line longer than the buffer */
			foreign = 1;
		memmove(buf, line, have);
	}
	close(fd);
	return foreign || !any;
}

/* Our own binary for rules owned by ":dcg", when the tracee runs the very file we run:
 * its /proc/TID/exe (which the filter keeps it from re-pointing, prctl(PR_SET_MM*))
 * must be our device and inode, not only our path. Looked at only when exe (its
 * program's path) is ours: the hook's calls. NULL: none. */
static const char *sbx_dcg_exe(struct sbx_call *c, const char *exe)
{
	char link[64];
	struct stat st;

	if (!c->s->dcg_exe[0] || !exe || strcmp(exe, c->s->dcg_exe) != 0)
		return NULL;
	snprintf(link, sizeof link, "/proc/%u/exe", c->req->pid);
	if (stat(link, &st) != 0 || st.st_dev != c->s->dcg_dev || st.st_ino != c->s->dcg_ino)
		return NULL;
	/* nor when it is changing the guard itself (dcg allow-once CODE, dcg trust, under
	 * any argv[0] or spelling): its command line after the exec is what the kernel
	 * copied, and only dcg's code runs in it (foreign code is sbx_foreign_code's) */
	char args[1024];
	snprintf(link, sizeof link, "/proc/%u/cmdline", c->req->pid);
	if (rt_dcg_changes_guard(args, rt_read_args(link, args, sizeof args)))
		return NULL;
	return c->s->dcg_exe;
}

/* Whether the wrapped agent is still the process that made the first call: a pidfd
 * held since then is readable once it has exited, and then its pid (which a tool
 * could take over) is nobody's (":agent" dies with the agent). */
static int sbx_agent_alive(struct sbx_super *s)
{
	struct pollfd pfd = {s->agent_pidfd, POLLIN, 0};

	if (s->agent_pidfd < 0 || (poll(&pfd, 1, 0) == 1 && (pfd.revents & (POLLIN | POLLHUP)))) {
		s->agent_tgid = -1; /* gone for good */
		return 0;
	}
	return 1;
}

/* One question to the policy: a path and an operation, or (argv set) an exec. */
struct sbx_question {
	const char *path;
	enum pol_op op;
	unsigned flags;
	char *const *argv;
};

static enum pol_decision sbx_ask_policy(struct sbx_call *c, const struct sbx_question *q,
					const struct pol_ctx *ctx, struct pol_result *r)
{
	return q->argv ? pol_check_argv(c->s->policy, q->argv, ctx, r)
		       : pol_check_path(c->s->policy, q->path, q->op, q->flags, ctx, r);
}

/* d, decided with the tracee's program in ctx: when an owner given by name or path (git)
 * is what let it pass and foreign code runs in that program (sbx_foreign_code), the
 * decision without such owners stands, in r, and ctx keeps POL_CTX_FOREIGN_CODE. The
 * maps are read only when the owner made the difference. */
static enum pol_decision sbx_owner_checked(struct sbx_call *c, const struct sbx_question *q,
					   struct pol_ctx *ctx, struct pol_result *r,
					   enum pol_decision d)
{
	struct pol_result alt;
	enum pol_decision da;

	if (!ctx->exe || d >= POL_ASK)
		return d;
	ctx->flags |= POL_CTX_FOREIGN_CODE;
	da = sbx_ask_policy(c, q, ctx, &alt);
	if (da == d || !sbx_foreign_code(c)) {
		ctx->flags &= ~(unsigned)POL_CTX_FOREIGN_CODE;
		pol_result_release(&alt);
		return d;
	}
	pol_result_release(r);
	*r = alt;
	return da;
}

/* Decides op on path (already absolute). Returns 0 when allowed, -EACCES when refused
 * (after the stderr line and the audit line). */
static int sbx_decide(struct sbx_call *c, const char *shown, const char *path, enum pol_op op,
		      unsigned flags, char *resolved_out, size_t resolved_size)
{
	struct pol_result r;
	struct pol_ctx ctx = {0};
	enum pol_decision d;
	char exe_link[64], exe[PATH_MAX];
	int rc = 0;
	ssize_t n = 0;

	/* The tracee's program, for rules with owners (git manages its own .git/): owners
	 * only let pass, so it is read (a readlink of /proc/TID/exe, one of the costliest
	 * calls of a notification) only when the decision without it is not allow, or
	 * when the policy has an exclusion with owners. */
	snprintf(exe_link, sizeof exe_link, "/proc/%u/exe", c->req->pid);
	if (c->s->exe_first)
		n = readlink(exe_link, exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = '\0';
		ctx.exe = exe;
		ctx.dcg_exe = sbx_dcg_exe(c, exe);
	}
	const struct sbx_question q = {path, op, flags, NULL};
	pol_result_init(&r);
	d = pol_check_path(c->s->policy, path, op, flags, &ctx, &r);
	if (d != POL_ALLOW && !ctx.exe && (n = readlink(exe_link, exe, sizeof exe - 1)) > 0) {
		exe[n] = '\0';
		ctx.exe = exe;
		ctx.dcg_exe = sbx_dcg_exe(c, exe);
		pol_result_release(&r);
		pol_result_init(&r);
		d = pol_check_path(c->s->policy, path, op, flags, &ctx, &r);
	}
	/* not an owner with an agent's object preloaded into it (LD_PRELOAD=x.so git) */
	d = sbx_owner_checked(c, &q, &ctx, &r, d);
	/* The wrapped agent's own process keeps its own state and settings (":agent"):
	 * looked up only on a refusal. */
	if (d >= POL_ASK && r.detection == POL_DET_PATH && c->s->agent_tgid &&
	    sbx_who_tgid(&c->who) == c->s->agent_tgid && sbx_agent_alive(c->s)) {
		pol_result_release(&r);
		pol_result_init(&r);
		ctx.flags |= POL_CTX_AGENT;
		d = pol_check_path(c->s->policy, path, op, flags, &ctx, &r);
	}
	if (resolved_out && resolved_size) {
		size_t l = strnlen(r.path, sizeof r.path);
		if (l >= resolved_size)
			l = 0;
		memcpy(resolved_out, r.path, l);
		resolved_out[l] = '\0';
	}
	if (d < POL_DENY) { /* writes outside the active intent's scope */
		struct pol_result ir;

		pthread_once(&sbx_intents_once, sbx_intents_load);
		if (sbx_intents &&
		    pol_intent_check_path(sbx_intents, path, op, flags, "/", NULL, &ir) > d) {
			pol_result_release(&r);
			r = ir;
			d = ir.decision;
		}
	}
	/* a line, an ask or a refusal only for a caller still waiting */
	if (d != POL_ALLOW && c->valid_later && (rc = sbx_still_valid(c)) < 0)
		goto out_release;
	if (d == POL_ASK && (d = sbx_ask_tty(c, shown, &r) ? POL_ALLOW : POL_DENY) == POL_ALLOW)
		sbx_audit(c, shown, &r); /* an ask the user said yes to, as the preload logs it */
	if (d == POL_DENY) {
		r.decision = POL_DENY;
		sbx_report(c, shown, &r);
		rc = -EACCES;
	} else if (d == POL_WARN || d == POL_LOG) {
		sbx_audit(c, shown, &r); /* quiet: only refusals are said on stderr */
	}
out_release:
	pol_result_release(&r);
	return rc;
}

/* Joins base and a relative path into out, replacing a leading /proc/self and
 * /proc/thread-self by the tracee's pid; lexical only (the pinned check does the
 * rest). */
static void sbx_written_abs(struct sbx_call *c, const char *base, const char *path, char *out,
			    size_t size)
{
	char tmp[PATH_MAX * 2];
	int n;

	if (path[0] == '/' || !base)
		n = snprintf(tmp, sizeof tmp, "%s", path);
	else
		n = snprintf(tmp, sizeof tmp, "%s/%s", base, path);
	if (n < 0 || (size_t)n >= sizeof tmp)
		tmp[0] = '\0';
	if (pol_path_normalize(tmp, "/", NULL, out, size) < 0) {
		/* Too long to normalize: the pinned check still decides on the object. */
		size_t l = strnlen(tmp, size - 1);
		memcpy(out, tmp, l);
		out[l] = '\0';
	}
	if (strncmp(out, "/proc/self", 10) == 0 && (out[10] == '/' || out[10] == '\0'))
		n = snprintf(tmp, sizeof tmp, "/proc/%d%s", (int)sbx_who_tgid(&c->who), out + 10);
	else if (strncmp(out, "/proc/thread-self", 17) == 0 && (out[17] == '/' || out[17] == '\0'))
		n = snprintf(tmp, sizeof tmp, "/proc/%d/task/%d%s", (int)sbx_who_tgid(&c->who),
			     (int)c->who.tid, out + 17);
	else
		return;
	if (n > 0 && (size_t)n < size)
		memcpy(out, tmp, (size_t)n + 1);
}

/* The full check of one path: as written (made absolute against the canonical base,
 * lexically) and as pinned (the canonical path of the descriptor we act through).
 * Both are final forms, so policy/ need not resolve them again (POL_PATH_CANONICAL):
 * the walk did that, on the very objects the call will use. */
static int sbx_check(struct sbx_call *c, const char *base, const char *written,
		     const struct sbx_pin *pin, enum pol_op op, unsigned flags)
{
	char abs[PATH_MAX];
	int rc;

	sbx_written_abs(c, base, written, abs, sizeof abs);
	if (!pin || pin->abs[0] != '/')
		return sbx_decide(c, written, abs, op, flags, NULL, 0);
	if (strcmp(pin->abs, abs) != 0) {
		rc = sbx_decide(c, written, abs, op, flags | POL_PATH_CANONICAL, NULL, 0);
		if (rc < 0)
			return rc;
	}
	return sbx_decide(c, written, pin->abs, op, flags | POL_PATH_CANONICAL, NULL, 0);
}

/* ---- /proc of other processes ----------------------------------------------------------- */

/* The supervisor opens files with its own ptrace rights: a tracee must not reach the
 * supervisor's /proc entries (its descriptors include the listener) nor another
 * process's memory through it. Returns 0 or -EACCES. */
static int sbx_proc_guard(struct sbx_call *c, const char *abs)
{
	static const char *const private[] = {"mem",   "environ", "auxv",      "pagemap",
					      "fd",    "fdinfo",  "map_files", "syscall",
					      "stack", "task",	  "root",      "cwd"};
	const char *p;
	char *end;
	long pid;

	if (strncmp(abs, "/proc/", 6) != 0)
		return 0;
	p = abs + 6;
	pid = strtol(p, &end, 10);
	if (end == p || (*end != '/' && *end != '\0'))
		return 0;
	if (pid == c->s->self)
		return -EACCES;
	if (pid == c->who.tid || pid == sbx_who_tgid(&c->who))
		return 0;
	if (*end == '\0')
		return 0;
	p = end + 1;
	for (size_t i = 0; i < sizeof private / sizeof private[0]; i++) {
		size_t l = strlen(private[i]);
		if (strncmp(p, private[i], l) == 0 && (p[l] == '/' || p[l] == '\0'))
			return -EACCES;
	}
	return 0;
}

/* Writes that would go around every path rule at once, for a tracee with root's
 * rights: a block device (the file system's bytes), /dev/mem, /dev/kmem, /dev/port,
 * and the kernel's hooks that run a program outside the sandbox. Returns 0 or
 * -EACCES (after a line on stderr). */
static int sbx_raw_guard(struct sbx_call *c, const char *shown, const struct stat *st,
			 const char *abs)
{
	static const char *const hooks[] = {"/proc/sys/kernel/core_pattern",
					    "/proc/sys/kernel/modprobe",
					    "/sys/kernel/uevent_helper", "/proc/sysrq-trigger"};
	const char *what = NULL;

	if (S_ISBLK(st->st_mode))
		what = "a block device";
	else if (S_ISCHR(st->st_mode) && major(st->st_rdev) == 1 &&
		 (minor(st->st_rdev) == 1 || minor(st->st_rdev) == 2 || minor(st->st_rdev) == 4))
		what = "kernel memory";
	for (size_t i = 0; !what && i < sizeof hooks / sizeof hooks[0]; i++)
		if (strcmp(abs, hooks[i]) == 0)
			what = "a kernel hook that runs programs outside the sandbox";
	if (!what)
		return 0;
	return sbx_builtin(c, RT_RULE_RAW_WRITE, abs, -EACCES);
}

/* ---- the audit log ----------------------------------------------------------------------- */

/* The log thread's own: the pipe's read end and the log's path. */
struct sbx_log {
	int rfd;
	char path[PATH_MAX];
};

/* Appends what tracees write into the log's pipe to the log (opened for each chunk, so
 * that a rotation by dcg's own code is followed), until every write end is closed: the
 * last tracee gone and the supervisor's own closed (sbx_super_free()). */
static void *sbx_log_thread(void *arg)
{
	struct sbx_log *l = arg;
	char buf[16384];
	ssize_t n;

	while ((n = read(l->rfd, buf, sizeof buf)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		int fd =
		    open(l->path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
		for (ssize_t off = 0, w; fd >= 0 && off < n; off += w) {
			w = write(fd, buf + off, (size_t)(n - off));
			if (w <= 0)
				break;
		}
		if (fd >= 0)
			close(fd);
	}
	close(l->rfd);
	free(l);
	return NULL;
}

/* The audit log's folder, made now with our ids, and the pipe through which tracees
 * (the preload's refusals, the hook) append to the log: the log itself stays ours. */
static void sbx_log_prepare(struct sbx_super *s)
{
	char dir[PATH_MAX];
	struct sbx_log *l;
	int fds[2];

	s->log_pipe_w = -1;
	s->log_path[0] = '\0';
	if (pol_once_path(POL_ONCE_CODES, s->once_path, sizeof s->once_path) < 0)
		s->once_path[0] = '\0';
	if (pol_log_path(s->log_path, sizeof s->log_path) < 0 || s->log_path[0] != '/') {
		s->log_path[0] = '\0';
		return;
	}
	snprintf(dir, sizeof dir, "%s", s->log_path);
	for (char *sl = strchr(dir + 1, '/'); sl; sl = strchr(sl + 1, '/')) {
		*sl = '\0';
		if (mkdir(dir, 0700) < 0 && errno != EEXIST)
			return;
		*sl = '/';
	}
	l = malloc(sizeof *l);
	if (!l || pipe2(fds, O_CLOEXEC) < 0) {
		free(l);
		return;
	}
	l->rfd = fds[0];
	memcpy(l->path, s->log_path, sizeof l->path);
	if (pthread_create(&s->log_thread, NULL, sbx_log_thread, l) != 0) {
		close(fds[0]);
		close(fds[1]);
		free(l);
		return;
	}
	s->log_thread_on = 1;
	s->log_pipe_w = fds[1];
}

/* The descriptor a tracee gets for its append to the log: the pipe's write end. */
static int sbx_log_fd(const struct sbx_super *s)
{
	char name[16];
	int fd;

	if (s->log_pipe_w < 0)
		return -EACCES;
	/* the pipe opened anew (through /proc/self/fd): a description of its own, whose
	 * flags (O_NONBLOCK) no other tracee's fcntl() changes */
	snprintf(name, sizeof name, "%d", s->log_pipe_w);
	fd = openat(s->self_fds, name, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0)
		fcntl(fd, F_SETFL, 0);
	else
		fd = fcntl(s->log_pipe_w, F_DUPFD_CLOEXEC, 0);
	return fd < 0 ? -errno : fd;
}

/* An append to the audit log itself (no truncation): dcg's own line, allowed to every
 * tracee, which can add lines but never remove one: it gets the log's pipe
 * (sbx_log_fd), never the file, so ftruncate or clearing O_APPEND has nothing to act on. */
static int sbx_log_append_ok(const struct sbx_call *c, const char *abs, int flags)
{
	if (!(flags & O_APPEND) || (flags & O_TRUNC) || (flags & O_ACCMODE) != O_WRONLY)
		return 0;
	if (c->s->log_path[0] && strcmp(abs, c->s->log_path) == 0)
		return 1;
	/* 2: the allow-once codes offered, opened as they are to append to: an offer grants
	 * nothing (policy/once.c), and the grants are another file */
	return c->s->once_path[0] && strcmp(abs, c->s->once_path) == 0 ? 2 : 0;
}

/* ---- bases ----------------------------------------------------------------------------- */

/* An O_PATH descriptor on the directory a relative path starts from (the tracee's cwd
 * or dirfd), or on the object a dirfd names (want_dir 0). */
static int sbx_open_base(struct sbx_call *c, int dirfd, int want_dir)
{
	char p[64];
	int fd;

	if (dirfd == AT_FDCWD)
		snprintf(p, sizeof p, "/proc/%u/cwd", c->req->pid);
	else if (dirfd < 0)
		return -EBADF;
	else
		snprintf(p, sizeof p, "/proc/%u/fd/%d", c->req->pid, dirfd);
	fd = open(p, O_PATH | O_CLOEXEC | (want_dir ? O_DIRECTORY : 0));
	if (fd < 0)
		return errno == ENOENT && dirfd != AT_FDCWD ? -EBADF : -errno;
	return fd;
}

struct sbx_path_arg {
	char path[PATH_MAX]; /* as written */
	const char *walk;    /* what the walk resolves: path, or joined */
	int base;	     /* O_PATH base directory of a relative walk (or -1) */
	char base_abs[PATH_MAX];
	char joined[PATH_MAX]; /* the working directory's name, "/", path */
};

static void sbx_path_arg_init(struct sbx_path_arg *a)
{
	a->path[0] = '\0';
	a->walk = a->path;
	a->base = -1;
	a->base_abs[0] = '\0';
}

/* Opens the base of a relative path (dirfd's object, the working directory). */
static int sbx_path_arg_base(struct sbx_call *c, int dirfd, struct sbx_path_arg *a)
{
	int rc;

	a->walk = a->path;
	a->base = sbx_open_base(c, dirfd, a->path[0] != '\0');
	if (a->base < 0)
		return a->base;
	rc = sbx_fd_path(a->base, a->base_abs, sizeof a->base_abs);
	return rc < 0 ? rc : 0;
}

/* A path relative to the working directory, made absolute with the directory's name
 * (one readlink of /proc/TID/cwd instead of opening it, reading its name back and
 * closing it). The name is the directory's: the tracees cannot chroot, unshare or
 * move a folder across a rule's border. Not for a directory deleted meanwhile, nor
 * while tracees have other ids than ours (whose search rights up to the directory
 * could differ from theirs in it). Returns 0, or -1 to take the base's way. */
static int sbx_path_arg_join(struct sbx_call *c, struct sbx_path_arg *a)
{
	static const char deleted[] = " (deleted)";
	char p[64];
	ssize_t n;
	size_t l = strlen(a->path);

	if (c->s->ids_differ)
		return -1;
	snprintf(p, sizeof p, "/proc/%u/cwd", c->req->pid);
	n = readlink(p, a->base_abs, sizeof a->base_abs - 1);
	if (n <= 0 || a->base_abs[0] != '/' || (size_t)n + 1 + l + 1 > sizeof a->joined)
		return -1;
	a->base_abs[n] = '\0';
	if ((size_t)n >= sizeof deleted - 1 &&
	    memcmp(a->base_abs + n - (sizeof deleted - 1), deleted, sizeof deleted - 1) == 0)
		return -1;
	memcpy(a->joined, a->base_abs, (size_t)n);
	a->joined[n] = '/';
	memcpy(a->joined + n + 1, a->path, l + 1);
	a->walk = a->joined;
	return 0;
}

static void sbx_path_arg_release(struct sbx_path_arg *a)
{
	if (a->base >= 0)
		close(a->base);
	a->base = -1;
}

/* Reads the path argument at addr and opens its base (dirfd). */
static int sbx_path_arg_read(struct sbx_call *c, int dirfd, uint64_t addr, struct sbx_path_arg *a,
			     int allow_empty)
{
	int rc = 0;

	/* A NULL path with a descriptor (futimens, fchmod...) names the descriptor. */
	if (addr == 0 && allow_empty)
		a->path[0] = '\0';
	else
		rc = sbx_read_str(c, addr, a->path, sizeof a->path);
	if (rc < 0)
		return rc;
	if (a->path[0] == '\0' && !allow_empty)
		return -ENOENT;
	if (a->path[0] == '/')
		return 0;
	if (dirfd == AT_FDCWD && a->path[0] != '\0' && sbx_path_arg_join(c, a) == 0)
		return 0;
	return sbx_path_arg_base(c, dirfd, a);
}

/* Walks *path from *start for argument a. A path made absolute with the working
 * directory's name that the caller may not search from the root is walked again
 * from the directory itself (*start and *path then name that walk). */
static int sbx_walk_arg(struct sbx_call *c, struct sbx_path_arg *a, int *start, const char **path,
			enum sbx_walk_mode mode, struct sbx_pin *pin)
{
	int own = *start == a->base && *path == a->walk;
	int rc = sbx_walk_from(&c->who, *start, own ? a->base_abs : NULL, *path, mode, pin);

	if (rc != -EACCES || !own || a->walk == a->path)
		return rc;
	if (sbx_path_arg_base(c, AT_FDCWD, a) < 0)
		return rc;
	*start = a->base;
	*path = a->walk;
	return sbx_walk_from(&c->who, *start, a->base_abs, *path, mode, pin);
}

/* ---- handlers --------------------------------------------------------------------------- */

static int sbx_proc_fd_path(int fd, char *out, size_t size)
{
	int n = snprintf(out, size, "/proc/self/fd/%d", fd);
	return n > 0 && (size_t)n < size ? 0 : -ENAMETOOLONG;
}

/* Reopens the pinned file pinfd with flags, through /proc/self/fd (opened once: only
 * the number is looked up in it). Returns a descriptor or -1 with errno. */
static int sbx_reopen(const struct sbx_super *s, int pinfd, int flags)
{
	char name[32], magic[64];

	if (s->self_fds >= 0) {
		snprintf(name, sizeof name, "%d", pinfd);
		return openat(s->self_fds, name, flags);
	}
	sbx_proc_fd_path(pinfd, magic, sizeof magic);
	return open(magic, flags);
}

static int sbx_still_valid(struct sbx_call *c)
{
	uint64_t id = c->req->id;
	return ioctl(c->s->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0 ? 0 : -ENOENT;
}

/* sbx_do_open()'s answer when a helper thread will answer the notification. */
#define SBX_ANSWERED_LATER (-100000)
/* sbx_do_open()'s answer when the kernel may perform the open (O_PATH). */
#define SBX_CONTINUE (-100001)

struct sbx_fifo_job {
	int listener;
	uint64_t id;
	int pinfd;
	int flags;
	int switch_ids;
	struct sbx_creds cr;
};

static void *sbx_fifo_thread(void *arg)
{
	struct sbx_fifo_job *j = arg;
	char magic[64];
	int fd;

	/* fs ids are per thread: this one takes the tracee's for good. */
	if (j->switch_ids)
		sbx_ids_apply(&j->cr);
	snprintf(magic, sizeof magic, "/proc/self/fd/%d", j->pinfd);
	fd = open(magic, j->flags | O_CLOEXEC | O_NOCTTY);
	if (fd >= 0) {
		struct seccomp_notif_addfd add = {
		    .id = j->id,
		    .flags = SECCOMP_ADDFD_FLAG_SEND,
		    .srcfd = (uint32_t)fd,
		    .newfd = 0,
		    .newfd_flags = (j->flags & O_CLOEXEC) ? O_CLOEXEC : 0,
		};
		if (ioctl(j->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &add) < 0 && errno != ENOENT) {
			struct seccomp_notif_resp resp = {.id = j->id, .error = -errno};
			ioctl(j->listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
		}
		close(fd);
	} else {
		struct seccomp_notif_resp resp = {.id = j->id, .error = -errno};
		ioctl(j->listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	}
	close(j->pinfd);
	free(j);
	return NULL;
}

/* Starts a helper thread that opens the pinned FIFO and answers. Returns 0 (pinfd
 * taken over) or -errno. */
static int sbx_fifo_async(struct sbx_call *c, int pinfd, int flags)
{
	struct sbx_fifo_job *j = calloc(1, sizeof *j);
	pthread_attr_t attr;
	pthread_t t;
	int rc;

	if (!j)
		return -ENOMEM;
	j->listener = c->s->listener;
	j->id = c->req->id;
	j->pinfd = pinfd;
	j->flags = flags;
	if (c->creds_switched) {
		j->switch_ids = 1;
		j->cr = *c->creds;
	}
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	rc = pthread_create(&t, &attr, sbx_fifo_thread, j);
	pthread_attr_destroy(&attr);
	if (rc != 0) {
		free(j);
		return -rc;
	}
	return 0;
}

/* Opens (or creates) for the tracee; returns a descriptor of ours or -errno. */
static int sbx_do_open(struct sbx_call *c, int dirfd, uint64_t addr, int flags, mode_t mode)
{
	struct sbx_path_arg a;
	struct sbx_pin pin;
	int rc, fd = -1, acc = flags & O_ACCMODE;
	int writes = acc != O_RDONLY || (flags & O_TRUNC);
	const int strip = O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY;
	const char *path;
	char linkbuf[PATH_MAX];
	int start = -1;

	sbx_path_arg_init(&a);
	sbx_pin_init(&pin);
	rc = sbx_path_arg_read(c, dirfd, addr, &a, 0);
	if (rc < 0)
		goto out;
	sbx_creds_enter(c, 0);
	if (a.walk[0] != '/' && a.base < 0) {
		rc = -EBADF;
		goto out;
	}
	path = a.walk;
	start = a.base;
	if ((flags & __O_TMPFILE) == __O_TMPFILE) {
		rc = sbx_walk_arg(c, &a, &start, &path, SBX_WALK_FOLLOW, &pin);
		if (rc == 0)
			rc = sbx_still_valid(c);
		if (rc == 0)
			rc = sbx_check(c, a.base_abs, a.path, &pin, POL_OP_CREATE, 0);
		if (rc < 0)
			goto out;
		sbx_creds_enter(c, 1);
		fd = openat(pin.fd, ".", (flags & ~strip) | O_CLOEXEC, mode);
		rc = fd < 0 ? -errno : 0;
		goto out;
	}

	if (flags & O_PATH) {
		/* The kernel cannot install an O_PATH descriptor (ADDFD takes no O_PATH
		 * file), and it needs none: an O_PATH descriptor reads, writes and changes
		 * nothing by itself, and every use of it that could (reopening it through
		 * /proc/self/fd, *at() calls relative to it, fchownat, linkat, execveat with
		 * AT_EMPTY_PATH) is notified and checked on its own. So the path is checked
		 * as a read and the kernel opens it: the one "continue" on a path, safe
		 * whatever a racing thread swaps in. */
		rc = sbx_walk_arg(c, &a, &start, &path,
				  (flags & O_NOFOLLOW) ? SBX_WALK_NOFOLLOW : SBX_WALK_FOLLOW, &pin);
		if (rc == 0)
			rc = sbx_still_valid(c);
		if (rc == 0)
			rc = sbx_proc_guard(c, pin.abs);
		if (rc == 0)
			rc = sbx_check(c, a.base_abs, a.path, &pin, POL_OP_READ, 0);
		if (rc == 0)
			rc = SBX_CONTINUE;
		goto out;
	}

	for (int round = 0; round < 40; round++) {
		int exists = 0;
		sbx_pin_release(&pin);
		if (!(flags & O_CREAT) || !(flags & O_EXCL)) {
			rc = sbx_walk_arg(
			    c, &a, &start, &path,
			    (flags & O_NOFOLLOW) ? SBX_WALK_NOFOLLOW : SBX_WALK_FOLLOW, &pin);
			if (rc == 0)
				exists = 1;
			else if (rc != -ENOENT || !(flags & O_CREAT))
				goto out;
		}
		if (exists) {
			struct stat st;
			enum pol_op op = POL_OP_READ;
			if (fstat(pin.fd, &st) < 0) {
				rc = -errno;
				goto out;
			}
			if (S_ISLNK(st.st_mode)) {
				rc = -ELOOP;
				goto out;
			}
			if ((flags & O_CREAT) && (flags & O_EXCL)) {
				rc = -EEXIST;
				goto out;
			}
			unsigned ign = 0;
			op = rt_open_op(flags, S_ISDIR(st.st_mode) ? RT_EXISTS_DIR : RT_EXISTS_FILE,
					&ign);
			/* a read-only open of a file or folder acts on nothing: the
			 * notification's validity is checked by ADDFD (and before a line) */
			c->valid_later = !writes && !(flags & O_CREAT) &&
					 (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode));
			rc = c->valid_later ? 0 : sbx_still_valid(c);
			if (rc == 0)
				rc = sbx_proc_guard(c, pin.abs);
			if (rc == 0 && writes && !(flags & O_PATH))
				rc = sbx_raw_guard(c, a.path, &st, pin.abs);
			int app = rc == 0 ? sbx_log_append_ok(c, pin.abs, flags) : 0;
			if (app == 1) {
				fd = sbx_log_fd(c->s);
				rc = fd < 0 ? fd : 0;
				goto out;
			}
			if (rc == 0 && app != 2)
				rc = sbx_check(c, a.base_abs, a.path, &pin, op, 0);
			if (rc < 0)
				goto out;
			if (S_ISFIFO(st.st_mode) && !(flags & O_NONBLOCK)) {
				/* A FIFO open waits for the other end, which would stall every
				 * tracee: a helper thread opens it and answers later. */
				rc = sbx_fifo_async(c, pin.fd, flags & ~strip);
				if (rc == 0)
					pin.fd = -1; /* the helper owns it now */
				fd = -1;
				if (rc == 0)
					rc = SBX_ANSWERED_LATER;
				goto out;
			}
			sbx_creds_enter(c, 0);
			fd = sbx_reopen(c->s, pin.fd, (flags & ~strip) | O_CLOEXEC | O_NOCTTY);
			rc = fd < 0 ? -errno : 0;
			if (fd >= 0) { /* closed with fd, once installed: one call for both */
				c->close_later = pin.fd;
				pin.fd = -1;
			}
			goto out;
		}
		/* Create: pin the parent, check the new name, create it exclusively and
		 * without following, so nothing swapped in meanwhile is opened instead.
		 * Being exclusive, it reads and overwrites nothing: a zero-access name
		 * pattern (*.pem) naming the new file alone lets it pass
		 * (POL_PATH_CREATE_EXCL); a file met meanwhile is judged as existing
		 * below. */
		rc = sbx_walk_arg(c, &a, &start, &path, SBX_WALK_PARENT, &pin);
		if (rc == 0 && sbx_pin_dots(&pin))
			rc = -EEXIST; /* "x/." with O_EXCL: the directory exists */
		if (rc < 0)
			goto out;
		rc = sbx_still_valid(c);
		if (rc == 0)
			rc = sbx_proc_guard(c, pin.abs);
		int app = rc == 0 ? sbx_log_append_ok(c, pin.abs, flags) : 0;
		if (app == 1) {
			fd = sbx_log_fd(c->s);
			rc = fd < 0 ? fd : 0;
			goto out;
		}
		if (rc == 0 && app != 2)
			rc = sbx_check(c, a.base_abs, a.path, &pin, POL_OP_CREATE,
				       POL_PATH_NOFOLLOW | POL_PATH_CREATE_EXCL);
		if (rc < 0)
			goto out;
		sbx_creds_enter(c, 1);
		fd = openat(pin.fd, pin.name, (flags & ~O_NOCTTY) | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    mode);
		rc = fd < 0 ? -errno : 0;
		if (fd >= 0 || rc != -EEXIST || (flags & O_EXCL))
			goto out;
		/* Somebody created it meanwhile, or it is a dangling symlink: the kernel
		 * would create the symlink's target. Walk on from there. */
		ssize_t n = readlinkat(pin.fd, pin.name, linkbuf, sizeof linkbuf - 1);
		if (n < 0)
			continue; /* a plain file appeared: open it as existing */
		if (flags & O_NOFOLLOW) {
			rc = -ELOOP;
			goto out;
		}
		linkbuf[n] = '\0';
		if (start != a.base && start >= 0)
			close(start);
		start = fcntl(pin.fd, F_DUPFD_CLOEXEC, 0);
		path = linkbuf;
	}
	if (rc == 0)
		rc = -ELOOP;
out:
	if (start != a.base && start >= 0)
		close(start);
	sbx_pin_release(&pin);
	sbx_path_arg_release(&a);
	return fd >= 0 ? fd : rc;
}

/* A path argument pinned in the given mode and checked for op. */
struct sbx_target {
	struct sbx_path_arg a;
	struct sbx_pin pin;
};

static void sbx_target_init(struct sbx_target *t)
{
	sbx_path_arg_init(&t->a);
	sbx_pin_init(&t->pin);
}

static void sbx_target_release(struct sbx_target *t)
{
	sbx_pin_release(&t->pin);
	sbx_path_arg_release(&t->a);
}

/* Reads, pins and checks one path. empty_ok: AT_EMPTY_PATH given (an empty path
 * names the dirfd's object). */
static int sbx_target(struct sbx_call *c, int dirfd, uint64_t addr, enum sbx_walk_mode mode,
		      enum pol_op op, unsigned flags, int empty_ok, struct sbx_target *t)
{
	const char *path;
	int start, dots, rc = sbx_path_arg_read(c, dirfd, addr, &t->a, empty_ok);
	if (rc < 0)
		return rc;
	sbx_creds_enter(c, 0);
	if (t->a.path[0] == '\0') {
		/* The object dirfd names: sbx_path_arg_read() opened it as the base (before
		 * we took on the tracee's ids, which may not reach its /proc entries). */
		int fd = t->a.base >= 0 ? fcntl(t->a.base, F_DUPFD_CLOEXEC, 0) : -1;
		if (fd < 0)
			return t->a.base >= 0 ? -errno : -EBADF;
		t->pin.fd = fd;
		rc = sbx_fd_path(fd, t->pin.abs, sizeof t->pin.abs);
		if (rc < 0)
			return rc;
		snprintf(t->a.path, sizeof t->a.path, "%s", t->pin.abs);
		/* the metadata of a file made in the session (tar x): see below */
		if (op == POL_OP_CHMOD && rt_created_since(fd, "", c->s->session_start))
			flags |= POL_PATH_SESSION_NEW;
		rc = sbx_still_valid(c);
		if (rc == 0 && t->pin.abs[0] == '/')
			rc = sbx_decide(c, t->pin.abs, t->pin.abs, op, flags | POL_PATH_CANONICAL,
					NULL, 0);
		return rc;
	}
	if (t->a.walk[0] != '/' && t->a.base < 0)
		return -EBADF;
	start = t->a.base;
	path = t->a.walk;
	rc = sbx_walk_arg(c, &t->a, &start, &path, mode, &t->pin);
	if (rc < 0)
		return rc;
	rc = sbx_still_valid(c);
	if (rc < 0)
		return rc;
	rc = sbx_proc_guard(c, t->pin.abs);
	if (rc < 0)
		return rc;
	if (mode == SBX_WALK_PARENT)
		flags |= POL_PATH_NOFOLLOW;
	/* "x/." or "x/..": the directory it names, pinned (sbx_walk). A new name there
	 * already exists (the kernel's EEXIST, before any other check); any other call
	 * is judged on that directory and then made, to get the kernel's own error. */
	dots = mode == SBX_WALK_PARENT && sbx_pin_dots(&t->pin);
	if (dots && op == POL_OP_CREATE)
		return -EEXIST;
	if ((flags & POL_PATH_IS_DIR) == 0 && mode == SBX_WALK_PARENT &&
	    (op == POL_OP_DELETE || op == POL_OP_RENAME_FROM || op == POL_OP_RENAME_TO)) {
		struct stat st;
		if (dots || (fstatat(t->pin.fd, t->pin.name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			     S_ISDIR(st.st_mode)))
			flags |= POL_PATH_IS_DIR;
	}
	if (mode == SBX_WALK_PARENT && (op == POL_OP_DELETE || op == POL_OP_RENAME_FROM) &&
	    sbx_session_own(c->s, t->pin.fd, dots ? "." : t->pin.name, &c->src)) {
		/* the session's own name: no-delete lets it go (an atomic save's file); a
		 * regular file may replace a name in its folder (never a directory or a
		 * symlink: DESIGN.md, "No-delete protects names") */
		struct stat dir;

		flags |= POL_PATH_SESSION_NEW;
		if (op == POL_OP_RENAME_FROM && !dots && S_ISREG(c->src.mode) &&
		    fstat(t->pin.fd, &dir) == 0) {
			c->src_new = 1;
			c->src_dev = dir.st_dev;
			c->src_ino = dir.st_ino;
		}
	}
	/* a file made during the session: a zero-access name pattern naming it alone
	 * lets its mode, owner and times change (tar x restores them on a new *.key) */
	if (op == POL_OP_CHMOD && !dots &&
	    rt_created_since(t->pin.fd, mode == SBX_WALK_PARENT ? t->pin.name : "",
			     c->s->session_start))
		flags |= POL_PATH_SESSION_NEW;
	if (mode == SBX_WALK_PARENT && op == POL_OP_RENAME_TO && c->src_new) {
		struct stat dir;
		struct rt_obj old;

		if (fstat(t->pin.fd, &dir) == 0 && dir.st_dev == c->src_dev &&
		    dir.st_ino == c->src_ino) {
			flags |= POL_PATH_SESSION_NEW;
			/* over a name older than the session (or kept): it stays no-delete */
			c->src_keep = !sbx_session_own(c->s, t->pin.fd, t->pin.name, &old);
		}
	}
	return sbx_check(c, t->a.base_abs, t->a.path, &t->pin, op, flags);
}

#define ARG(i)	(c->req->data.args[i])
#define IARG(i) ((int)c->req->data.args[i])

/* One path argument of the call, as its row of the runtime core's table says: the
 * directory it starts from, its address in the tracee, the operation the rules judge
 * and its POL_PATH_* flags (the call's AT_* flags applied). */
struct sbx_parg {
	int dirfd;
	uint64_t addr;
	enum pol_op op;
	unsigned pflags;
};

/* A path that names its last component's parent (POL_PATH_NOFOLLOW: unlink, rename,
 * link, symlink, mkdir, mknod, the l* and AT_SYMLINK_NOFOLLOW forms) is pinned in its
 * folder; any other is pinned on the object it names. */
static enum sbx_walk_mode sbx_parg_mode(const struct sbx_parg *p)
{
	return (p->pflags & POL_PATH_NOFOLLOW) ? SBX_WALK_PARENT : SBX_WALK_FOLLOW;
}

static int sbx_parg_target(struct sbx_call *c, const struct sbx_parg *p, int empty_ok,
			   struct sbx_target *t)
{
	return sbx_target(c, p->dirfd, p->addr, sbx_parg_mode(p), p->op, p->pflags, empty_ok, t);
}

/* unlink, rmdir, unlinkat: a folder when the row or AT_REMOVEDIR says so. */
static long long sbx_h_unlink(struct sbx_call *c, const struct sbx_parg *p)
{
	struct sbx_target t;
	long long rc;
	int rmdir = (p->pflags & POL_PATH_IS_DIR) != 0;

	sbx_target_init(&t);
	rc = sbx_parg_target(c, p, 0, &t);
	if (rc == 0) {
		sbx_creds_enter(c, 0);
		rc = unlinkat(t.pin.fd, t.pin.name, rmdir ? AT_REMOVEDIR : 0) < 0 ? -errno : 0;
	}
	sbx_target_release(&t);
	return rc;
}

/* rename, renameat, renameat2 (flags: its RENAME_* flags). */
static long long sbx_h_rename(struct sbx_call *c, const struct sbx_parg p[2], unsigned flags)
{
	struct sbx_target o, n;
	long long rc;
	int keep;

	sbx_target_init(&o);
	sbx_target_init(&n);
	rc = sbx_parg_target(c, &p[0], 0, &o);
	if (flags & RENAME_EXCHANGE)
		c->src_new = 0; /* an exchange moves the target away too: no atomic save */
	if (rc == 0)
		rc = sbx_parg_target(c, &p[1], 0, &n);
	c->src_new = 0;
	/* kept before it takes the name: no moment when it stands there unkept (and
	 * forgotten when the rename fails: mv tries RENAME_NOREPLACE first) */
	keep = rc == 0 && c->src_keep && !(flags & (RENAME_EXCHANGE | RENAME_NOREPLACE));
	c->src_keep = 0;
	if (keep)
		rc = sbx_kept_add(c->s, &c->src);
	if (rc == 0 && (flags & RENAME_EXCHANGE)) {
		/* Both names move: each is also a source and a destination. */
		rc = sbx_check(c, n.a.base_abs, n.a.path, &n.pin, p[0].op, p[0].pflags);
		if (rc == 0)
			rc = sbx_check(c, o.a.base_abs, o.a.path, &o.pin, p[1].op, p[1].pflags);
	}
	if (rc == 0) {
		sbx_creds_enter(c, 0);
		rc = renameat2(o.pin.fd, o.pin.name, n.pin.fd, n.pin.name, flags) < 0 ? -errno : 0;
		if (rc < 0 && keep)
			sbx_kept_forget(c->s, &c->src);
	}
	sbx_target_release(&n);
	sbx_target_release(&o);
	return rc;
}

/* link, linkat: the source pinned on its object when it is followed (AT_SYMLINK_FOLLOW)
 * or named by the descriptor (AT_EMPTY_PATH: empty), else in its folder. */
static long long sbx_h_link(struct sbx_call *c, const struct sbx_parg p[2], int empty)
{
	struct sbx_target o, n;
	char magic[64];
	long long rc;

	sbx_target_init(&o);
	sbx_target_init(&n);
	rc = sbx_parg_target(c, &p[0], empty, &o);
	if (rc == 0)
		rc = sbx_parg_target(c, &p[1], 0, &n);
	if (rc == 0) {
		sbx_creds_enter(c, 0);
		if (o.pin.name[0] == '\0' || sbx_pin_dots(&o.pin)) {
			/* A pinned object: link it through its /proc/self/fd name. */
			sbx_proc_fd_path(o.pin.fd, magic, sizeof magic);
			rc = linkat(AT_FDCWD, magic, n.pin.fd, n.pin.name, AT_SYMLINK_FOLLOW);
		} else {
			rc = linkat(o.pin.fd, o.pin.name, n.pin.fd, n.pin.name, 0);
		}
		rc = rc < 0 ? -errno : 0;
	}
	sbx_target_release(&n);
	sbx_target_release(&o);
	return rc;
}

/* symlink, symlinkat: taddr is the link's content, a string, not a path to check. */
static long long sbx_h_symlink(struct sbx_call *c, uint64_t taddr, const struct sbx_parg *p)
{
	struct sbx_target n;
	char target[PATH_MAX];
	long long rc;

	sbx_target_init(&n);
	rc = sbx_read_str(c, taddr, target, sizeof target);
	if (rc == 0)
		rc = sbx_parg_target(c, p, 0, &n);
	if (rc == 0) {
		sbx_creds_enter(c, 0);
		rc = symlinkat(target, n.pin.fd, n.pin.name) < 0 ? -errno : 0;
	}
	sbx_target_release(&n);
	return rc;
}

/* mkdir, mkdirat (is_dir), mknod, mknodat. */
static long long sbx_h_mknod(struct sbx_call *c, const struct sbx_parg *p, mode_t mode, dev_t dev,
			     int is_dir)
{
	struct sbx_target t;
	long long rc;

	sbx_target_init(&t);
	rc = sbx_parg_target(c, p, 0, &t);
	/* A device node made in a free folder would open the disk or memory under a name
	 * no rule covers. */
	if (rc == 0 && !is_dir && (S_ISBLK(mode) || S_ISCHR(mode)))
		rc = sbx_builtin(c, RT_RULE_MKNOD_DEVICE, t.pin.abs, -EPERM);
	if (rc == 0) {
		sbx_creds_enter(c, 1);
		if (is_dir)
			rc = mkdirat(t.pin.fd, t.pin.name, mode);
		else
			rc = mknodat(t.pin.fd, t.pin.name, mode, dev);
		rc = rc < 0 ? -errno : 0;
	}
	sbx_target_release(&t);
	return rc;
}

/* chmod, chown, utimes and xattrs: metadata writes on the pinned object. */
enum sbx_meta { SBX_CHMOD, SBX_CHOWN, SBX_UTIMES, SBX_SETXATTR, SBX_RMXATTR };
struct sbx_meta_args {
	mode_t mode;
	uid_t uid;
	gid_t gid;
	struct timespec ts[2];
	int ts_null;
	char xname[XATTR_NAME_MAX + 1];
	void *xvalue;
	size_t xsize;
	int xflags;
};

static long long sbx_meta_apply(struct sbx_target *t, enum sbx_meta what,
				const struct sbx_meta_args *m)
{
	char p[PATH_MAX + 64];
	int rc, nofollow = t->pin.name[0] != '\0' && !sbx_pin_dots(&t->pin);

	/* PARENT-pinned (no-follow variants): act on dir fd + name; else on the object
	 * (also the directory "x/." or "x/.." names, pinned itself). */
	if (nofollow)
		snprintf(p, sizeof p, "/proc/self/fd/%d/%s", t->pin.fd, t->pin.name);
	else
		sbx_proc_fd_path(t->pin.fd, p, sizeof p);
	switch (what) {
	case SBX_CHMOD:
		if (nofollow) {
			struct stat st;
			if (fstatat(t->pin.fd, t->pin.name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISLNK(st.st_mode))
				return -EOPNOTSUPP;
		}
		rc = chmod(p, m->mode);
		break;
	case SBX_CHOWN:
		if (nofollow)
			rc = fchownat(t->pin.fd, t->pin.name, m->uid, m->gid, AT_SYMLINK_NOFOLLOW);
		else
			rc = fchownat(t->pin.fd, "", m->uid, m->gid, AT_EMPTY_PATH);
		break;
	case SBX_UTIMES:
		if (nofollow)
			rc = utimensat(t->pin.fd, t->pin.name, m->ts_null ? NULL : m->ts,
				       AT_SYMLINK_NOFOLLOW);
		else
			rc = utimensat(AT_FDCWD, p, m->ts_null ? NULL : m->ts, 0);
		break;
	case SBX_SETXATTR:
		/* Two calls, not a choice of function pointer: a taken address of a libc
		 * function is a symbol lookup at every start of dcg, sandbox or not. */
		if (nofollow)
			rc = lsetxattr(p, m->xname, m->xvalue, m->xsize, m->xflags);
		else
			rc = setxattr(p, m->xname, m->xvalue, m->xsize, m->xflags);
		break;
	case SBX_RMXATTR:
		if (nofollow)
			rc = lremovexattr(p, m->xname);
		else
			rc = removexattr(p, m->xname);
		break;
	default:
		return -ENOSYS;
	}
	return rc < 0 ? -errno : 0;
}

/* The metadata calls: on the path (pinned in its folder for the no-follow forms), or
 * on the descriptor's object (empty: a descriptor call, or AT_EMPTY_PATH). */
static long long sbx_h_meta(struct sbx_call *c, const struct sbx_parg *p, int empty,
			    enum sbx_meta what, const struct sbx_meta_args *m)
{
	struct sbx_target t;
	long long rc;

	sbx_target_init(&t);
	if (p->addr == 0 && what == SBX_UTIMES) /* utimensat(fd, NULL, ...): the fd itself */
		rc = sbx_target(c, p->dirfd, 0, SBX_WALK_FOLLOW, p->op, 0, 1, &t);
	else
		rc = sbx_parg_target(c, p, empty, &t);
	if (rc == 0) {
		sbx_creds_enter(c, 0);
		rc = sbx_meta_apply(&t, what, m);
	}
	sbx_target_release(&t);
	return rc;
}

static int sbx_read_xattr(struct sbx_call *c, uint64_t naddr, uint64_t vaddr, size_t size,
			  struct sbx_meta_args *m)
{
	int rc = sbx_read_str(c, naddr, m->xname, sizeof m->xname);
	if (rc < 0)
		return rc == -ENAMETOOLONG ? -ERANGE : rc;
	if (size > SBX_XATTR_MAX)
		return -E2BIG;
	m->xsize = size;
	if (size == 0)
		return 0;
	m->xvalue = malloc(size);
	if (!m->xvalue)
		return -ENOMEM;
	if (sbx_mem_read(c, vaddr, m->xvalue, size) != (ssize_t)size)
		return -EFAULT;
	return 0;
}

static int sbx_read_times(struct sbx_call *c, uint64_t addr, int kind, struct sbx_meta_args *m)
{
	if (addr == 0) {
		m->ts_null = 1;
		return 0;
	}
	if (kind == 0) { /* struct timespec[2] */
		return sbx_mem_read(c, addr, m->ts, sizeof m->ts) == sizeof m->ts ? 0 : -EFAULT;
	} else if (kind == 1) { /* struct timeval[2] */
		struct timeval tv[2];
		if (sbx_mem_read(c, addr, tv, sizeof tv) != sizeof tv)
			return -EFAULT;
		for (int i = 0; i < 2; i++) {
			m->ts[i].tv_sec = tv[i].tv_sec;
			m->ts[i].tv_nsec = tv[i].tv_usec * 1000;
		}
	} else { /* struct utimbuf */
		struct utimbuf u;
		if (sbx_mem_read(c, addr, &u, sizeof u) != sizeof u)
			return -EFAULT;
		m->ts[0].tv_sec = u.actime;
		m->ts[0].tv_nsec = 0;
		m->ts[1].tv_sec = u.modtime;
		m->ts[1].tv_nsec = 0;
	}
	return 0;
}

static long long sbx_h_truncate(struct sbx_call *c, const struct sbx_parg *p, off_t len)
{
	struct sbx_target t;
	char magic[64];
	long long rc;

	sbx_target_init(&t);
	rc = sbx_parg_target(c, p, 0, &t);
	if (rc == 0) {
		sbx_proc_fd_path(t.pin.fd, magic, sizeof magic);
		sbx_creds_enter(c, 0);
		rc = truncate(magic, len) < 0 ? -errno : 0;
	}
	sbx_target_release(&t);
	return rc;
}

/* bind: performed here, on the tracee's socket (pidfd_getfd) with our copy of the
 * address, so that a racing thread cannot change it after the check. A Unix socket
 * path creates a file: its name is pinned in its folder, checked as a creation and
 * bound through /proc/self/fd/PIN/NAME. */
static long long sbx_h_bind(struct sbx_call *c, const struct sbx_parg *p, socklen_t len)
{
	int fd = p->dirfd;	 /* the row's descriptor argument: the socket */
	uint64_t addr = p->addr; /* its path argument: the struct sockaddr */
	struct sockaddr_storage ss;
	struct sbx_target t;
	char magic[sizeof(((struct sockaddr_un *)0)->sun_path)];
	int pidfd, sock;
	long long rc;

	if (len > sizeof ss)
		return -EINVAL;
	if (len && sbx_mem_read(c, addr, &ss, len) != (ssize_t)len)
		return -EFAULT;
	pidfd = (int)syscall(SYS_pidfd_open, sbx_who_tgid(&c->who), 0);
	if (pidfd < 0)
		return -errno;
	sock = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	rc = sock < 0 ? -errno : 0;
	close(pidfd);
	if (rc < 0)
		return rc == -EBADF ? -EBADF : rc;
	sbx_target_init(&t);
	if (len > offsetof(struct sockaddr_un, sun_path) && ss.ss_family == AF_UNIX &&
	    ((struct sockaddr_un *)&ss)->sun_path[0] != '\0') {
		struct sockaddr_un un = {.sun_family = AF_UNIX};

		struct sbx_parg name = {AT_FDCWD, addr + offsetof(struct sockaddr_un, sun_path),
					p->op, p->pflags};

		rc = sbx_parg_target(c, &name, 0, &t);
		if (rc == -EEXIST)
			rc = -EADDRINUSE; /* what bind says of a name that exists */
		if (rc == 0 && snprintf(magic, sizeof magic, "/proc/self/fd/%d/%s", t.pin.fd,
					t.pin.name) >= (int)sizeof magic)
			rc = -ENAMETOOLONG;
		if (rc == 0) {
			memcpy(un.sun_path, magic, strlen(magic) + 1);
			sbx_creds_enter(c, 1);
			rc = bind(sock, (struct sockaddr *)&un, sizeof un) < 0 ? -errno : 0;
		}
	} else {
		rc = bind(sock, (struct sockaddr *)&ss, len) < 0 ? -errno : 0;
	}
	sbx_target_release(&t);
	close(sock);
	return rc;
}

/* exec: the file (zero-access) and argv (command rules) are checked, then the
 * kernel is told to continue: the supervisor cannot exec in the tracee's place. */
static int sbx_h_exec(struct sbx_call *c, const struct sbx_parg *file, uint64_t argv_addr,
		      int flags, struct sbx_answer *ans)
{
	struct sbx_target t;
	char *argv[SBX_MAX_ARGV + 1];
	char *pool = NULL;
	int rc, n = 0;

	sbx_target_init(&t);
	rc = sbx_target(c, file->dirfd, file->addr,
			(flags & AT_SYMLINK_NOFOLLOW) ? SBX_WALK_NOFOLLOW : SBX_WALK_FOLLOW,
			file->op, file->pflags, flags & AT_EMPTY_PATH, &t);
	if (rc < 0)
		goto out;
	pool = malloc(SBX_ARGV_BYTES);
	if (!pool) {
		rc = -ENOMEM;
		goto out;
	}
	rc = n = sbx_read_argv(c, argv_addr, argv, pool);
	if (rc < 0)
		goto out;
	if (n > 0) {
		struct pol_result r;
		struct pol_ctx ctx = {0};
		char cwd[PATH_MAX], p[64];
		snprintf(p, sizeof p, "/proc/%u/cwd", c->req->pid);
		ssize_t k = readlink(p, cwd, sizeof cwd - 1);
		if (k > 0) {
			cwd[k] = '\0';
			ctx.cwd = cwd;
		}
		/* the supervisor sees the program's own calls: no folder walks here */
		ctx.flags |= POL_CTX_RUNTIME;
		pol_result_init(&r);
		enum pol_decision d = pol_check_argv(c->s->policy, argv, &ctx, &r);
		/* The calling program and its arguments, for command rules with owners (the
		 * system's git runs `git reset --hard` for `git stash`): owners only let
		 * pass, so they are read only when the decision without them is not allow. */
		char exe_link[64], exe[PATH_MAX], args[1024];
		snprintf(exe_link, sizeof exe_link, "/proc/%u/exe", c->req->pid);
		ssize_t en;
		if (d != POL_ALLOW && (en = readlink(exe_link, exe, sizeof exe - 1)) > 0) {
			exe[en] = '\0';
			ctx.exe = exe;
			/* and its arguments, for owners that name a subcommand (git stash) */
			snprintf(exe_link, sizeof exe_link, "/proc/%u/cmdline", c->req->pid);
			ctx.args_len = rt_read_args(exe_link, args, sizeof args);
			ctx.args = ctx.args_len ? args : NULL;
			pol_result_release(&r);
			pol_result_init(&r);
			d = pol_check_argv(c->s->policy, argv, &ctx, &r);
			const struct sbx_question q = {NULL, POL_OP_EXEC, 0, argv};
			d = sbx_owner_checked(c, &q, &ctx, &r, d);
		}
		/* A path its words name refused it (`cat .env`): the line shows the command,
		 * as the preload's does, and is the same for each folder a PATH search
		 * tries (said once). */
		char joined[1024];
		const char *shown = t.a.path;
		if (d != POL_ALLOW && r.detection == POL_DET_PATH) {
			struct rt_msg jm;
			rt_msg_init(&jm, joined, sizeof joined);
			rt_msg_add_argv(&jm, argv);
			shown = joined;
		}
		/* allow-once: a redeemed grant of this exact command in its folder */
		if (d >= POL_ASK) {
			struct rt_msg jm;
			rt_msg_init(&jm, joined, sizeof joined);
			rt_msg_add_argv(&jm, argv);
			if (pol_once_exec(c->s->policy, joined, ctx.cwd, 0, &r, d) == POL_ALLOW)
				d = POL_LOG;
			shown = r.detection == POL_DET_PATH ? joined : t.a.path;
		}
		if (d == POL_ASK &&
		    (d = sbx_ask_tty(c, shown, &r) ? POL_ALLOW : POL_DENY) == POL_ALLOW)
			sbx_audit(c, shown, &r); /* said yes to: logged as an ask */
		if (d == POL_DENY) {
			r.decision = d;
			sbx_report(c, shown, &r);
		} else if (d == POL_WARN || d == POL_LOG) {
			sbx_audit(c, shown, &r);
		}
		pol_result_release(&r);
		if (d == POL_DENY) {
			rc = -EACCES;
			goto out;
		}
	}
	rc = sbx_still_valid(c);
	if (rc == 0)
		ans->kind = SBX_ANS_CONTINUE;
out:
	free(pool);
	sbx_target_release(&t);
	return rc;
}

/* ---- the dispatch: the runtime core's table, and what it cannot say -------------------- */

/* What the supervisor does with a call of runtime/syscalls.def. */
enum sbx_act {
	SBX_ACT_NONE = 0, /* not notified: the filter refuses RT_HANDLE and RT_MOUNT calls */
	SBX_ACT_OPEN,	  /* open, openat, creat: x[0] the mode */
	SBX_ACT_OPEN2,	  /* openat2: the struct open_how at the row's fl, x[0] its size */
	SBX_ACT_UNLINK,
	SBX_ACT_RENAME,	  /* fl: renameat2's RENAME_* flags */
	SBX_ACT_LINK,	  /* fl: AT_SYMLINK_FOLLOW, AT_EMPTY_PATH */
	SBX_ACT_SYMLINK,  /* x[0] the link's content */
	SBX_ACT_MKDIR,	  /* x[0] the mode */
	SBX_ACT_MKNOD,	  /* x[0] the mode, x[1] the device */
	SBX_ACT_TRUNCATE, /* x[0] the length */
	SBX_ACT_META,	  /* meta: which; x[] as enum sbx_meta says */
	SBX_ACT_EXEC,	  /* x[0] argv */
	SBX_ACT_BIND,	  /* the socket at dfd, the sockaddr at path, its length at fl */
};

/* One row's side: what the common columns (kind, dfd, path, fl, op, pflags) cannot
 * say. x[] are argument indexes (-1 none); for SBX_ACT_META: SBX_CHMOD x[0] the mode,
 * SBX_CHOWN x[0] uid x[1] gid, SBX_UTIMES x[0] the times (in the layout `times` says),
 * SBX_SETXATTR x[0] name x[1] value x[2] size x[3] flags, SBX_RMXATTR x[0] name. */
struct sbx_more {
	unsigned char act;   /* enum sbx_act */
	unsigned char meta;  /* enum sbx_meta */
	unsigned char times; /* struct timespec[2] (0), timeval[2] (1), utimbuf (2) */
	signed char x[4];
	int fl_bad; /* flags (at the row's fl) answered with EINVAL */
	int oflags; /* creat: the open flags it stands for */
};

#define SBX_NOX                \
	{                      \
		-1, -1, -1, -1 \
	}
#define SBX_X1(a)             \
	{                     \
		a, -1, -1, -1 \
	}
#define SBX_X2(a, b)         \
	{                    \
		a, b, -1, -1 \
	}
static const struct sbx_more sbx_more[RT_ROW__COUNT] = {
    [RT_ROW_open] = {SBX_ACT_OPEN, 0, 0, SBX_X1(2), 0, 0},
    [RT_ROW_openat] = {SBX_ACT_OPEN, 0, 0, SBX_X1(3), 0, 0},
    [RT_ROW_openat2] = {SBX_ACT_OPEN2, 0, 0, SBX_X1(3), 0, 0},
    [RT_ROW_creat] = {SBX_ACT_OPEN, 0, 0, SBX_X1(1), 0, O_CREAT | O_WRONLY | O_TRUNC},
    [RT_ROW_truncate] = {SBX_ACT_TRUNCATE, 0, 0, SBX_X1(1), 0, 0},
    [RT_ROW_unlink] = {SBX_ACT_UNLINK, 0, 0, SBX_NOX, 0, 0},
    [RT_ROW_rmdir] = {SBX_ACT_UNLINK, 0, 0, SBX_NOX, 0, 0},
    [RT_ROW_unlinkat] = {SBX_ACT_UNLINK, 0, 0, SBX_NOX, ~AT_REMOVEDIR, 0},
    [RT_ROW_rename] = {SBX_ACT_RENAME, 0, 0, SBX_NOX, 0, 0},
    [RT_ROW_renameat] = {SBX_ACT_RENAME, 0, 0, SBX_NOX, 0, 0},
    [RT_ROW_renameat2] = {SBX_ACT_RENAME, 0, 0, SBX_NOX, 0, 0},
    [RT_ROW_link] = {SBX_ACT_LINK, 0, 0, SBX_NOX, 0, 0},
    [RT_ROW_linkat] = {SBX_ACT_LINK, 0, 0, SBX_NOX, 0, 0},
    [RT_ROW_symlink] = {SBX_ACT_SYMLINK, 0, 0, SBX_X1(0), 0, 0},
    [RT_ROW_symlinkat] = {SBX_ACT_SYMLINK, 0, 0, SBX_X1(0), 0, 0},
    [RT_ROW_mkdir] = {SBX_ACT_MKDIR, 0, 0, SBX_X1(1), 0, 0},
    [RT_ROW_mkdirat] = {SBX_ACT_MKDIR, 0, 0, SBX_X1(2), 0, 0},
    [RT_ROW_mknod] = {SBX_ACT_MKNOD, 0, 0, SBX_X2(1, 2), 0, 0},
    [RT_ROW_mknodat] = {SBX_ACT_MKNOD, 0, 0, SBX_X2(2, 3), 0, 0},
    [RT_ROW_chmod] = {SBX_ACT_META, SBX_CHMOD, 0, SBX_X1(1), 0, 0},
    [RT_ROW_fchmodat] = {SBX_ACT_META, SBX_CHMOD, 0, SBX_X1(2), 0, 0},
    [RT_ROW_fchmodat2] = {SBX_ACT_META, SBX_CHMOD, 0, SBX_X1(2),
			  ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH), 0},
    [RT_ROW_chown] = {SBX_ACT_META, SBX_CHOWN, 0, SBX_X2(1, 2), 0, 0},
    [RT_ROW_lchown] = {SBX_ACT_META, SBX_CHOWN, 0, SBX_X2(1, 2), 0, 0},
    [RT_ROW_fchownat] = {SBX_ACT_META, SBX_CHOWN, 0, SBX_X2(2, 3), 0, 0},
    [RT_ROW_utime] = {SBX_ACT_META, SBX_UTIMES, 2, SBX_X1(1), 0, 0},
    [RT_ROW_utimes] = {SBX_ACT_META, SBX_UTIMES, 1, SBX_X1(1), 0, 0},
    [RT_ROW_futimesat] = {SBX_ACT_META, SBX_UTIMES, 1, SBX_X1(2), 0, 0},
    [RT_ROW_utimensat] = {SBX_ACT_META, SBX_UTIMES, 0, SBX_X1(2), 0, 0},
    [RT_ROW_setxattr] = {SBX_ACT_META, SBX_SETXATTR, 0, {1, 2, 3, 4}, 0, 0},
    [RT_ROW_lsetxattr] = {SBX_ACT_META, SBX_SETXATTR, 0, {1, 2, 3, 4}, 0, 0},
    [RT_ROW_removexattr] = {SBX_ACT_META, SBX_RMXATTR, 0, SBX_X1(1), 0, 0},
    [RT_ROW_lremovexattr] = {SBX_ACT_META, SBX_RMXATTR, 0, SBX_X1(1), 0, 0},
    [RT_ROW_fchmod] = {SBX_ACT_META, SBX_CHMOD, 0, SBX_X1(1), 0, 0},
    [RT_ROW_fchown] = {SBX_ACT_META, SBX_CHOWN, 0, SBX_X2(1, 2), 0, 0},
    [RT_ROW_fsetxattr] = {SBX_ACT_META, SBX_SETXATTR, 0, {1, 2, 3, 4}, 0, 0},
    [RT_ROW_fremovexattr] = {SBX_ACT_META, SBX_RMXATTR, 0, SBX_X1(1), 0, 0},
    [RT_ROW_execve] = {SBX_ACT_EXEC, 0, 0, SBX_X1(1), 0, 0},
    [RT_ROW_execveat] = {SBX_ACT_EXEC, 0, 0, SBX_X1(2), 0, 0},
    [RT_ROW_bind] = {SBX_ACT_BIND, 0, 0, SBX_NOX, 0, 0},
};

/* Argument x of the call (-1: none, 0). */
#define XARG(x) ((x) < 0 ? 0 : ARG(x))

/* The path arguments of the call, from its row; fl is the call's flags argument. */
static void sbx_pargs(const struct sbx_call *c, const struct rt_syscall *row, int fl,
		      struct sbx_parg p[2])
{
	p[0].dirfd = row->dfd < 0 ? AT_FDCWD : IARG(row->dfd);
	p[0].addr = XARG(row->path);
	p[0].op = row->op;
	p[0].pflags = rt_syscall_pflags(row, 0, fl);
	p[1].dirfd = row->dfd2 < 0 ? AT_FDCWD : IARG(row->dfd2);
	p[1].addr = XARG(row->path2);
	p[1].op = row->op2;
	p[1].pflags = rt_syscall_pflags(row, 1, fl);
}

/* The opens: ans->kind set for an installed descriptor, an answer given later or a
 * continue, else *rc holding the value to return. */
static void sbx_dispatch_open(struct sbx_call *c, const struct rt_syscall *row,
			      const struct sbx_more *mo, const struct sbx_parg *p,
			      struct sbx_answer *ans, long long *rc)
{
	int fd, flags = mo->oflags ? mo->oflags : IARG(row->fl);
	mode_t mode = (mode_t)XARG(mo->x[0]);

	if (mo->act == SBX_ACT_OPEN2) {
		struct {
			uint64_t flags, mode, resolve;
		} how;
		if (ARG(mo->x[0]) < sizeof how) {
			*rc = -EINVAL;
			return;
		}
		if (sbx_mem_read(c, ARG(row->fl), &how, sizeof how) != sizeof how) {
			*rc = -EFAULT;
			return;
		}
		if (how.resolve != 0 || how.flags >> 32) {
			/* RESOLVE_* restrictions are not emulated: callers fall back
			 * to openat on ENOSYS. */
			*rc = -ENOSYS;
			return;
		}
		flags = (int)how.flags, mode = (mode_t)how.mode;
	}
	fd = sbx_do_open(c, p->dirfd, p->addr, flags, mode & 07777);
	if (fd == SBX_ANSWERED_LATER) {
		ans->kind = SBX_ANS_NONE;
		return;
	}
	if (fd == SBX_CONTINUE) {
		ans->kind = SBX_ANS_CONTINUE;
		return;
	}
	if (fd >= 0) {
		ans->kind = SBX_ANS_FD;
		ans->fd = fd;
		ans->cloexec = (flags & O_CLOEXEC) != 0;
		return;
	}
	*rc = fd;
}

/* The calls that change a file's metadata (mode, owner, times, extended attributes):
 * what they read besides the path goes into m (the caller frees m->xvalue). empty:
 * the descriptor's object is meant (a descriptor call, or AT_EMPTY_PATH). */
static long long sbx_dispatch_meta(struct sbx_call *c, const struct sbx_more *mo,
				   const struct sbx_parg *p, int empty, struct sbx_meta_args *m)
{
	const signed char *x = mo->x;
	long long rc = 0;

	switch (mo->meta) {
	case SBX_CHMOD:
		m->mode = (mode_t)ARG(x[0]);
		break;
	case SBX_CHOWN:
		m->uid = (uid_t)ARG(x[0]), m->gid = (gid_t)ARG(x[1]);
		break;
	case SBX_UTIMES:
		rc = sbx_read_times(c, ARG(x[0]), mo->times, m);
		break;
	case SBX_SETXATTR:
		m->xflags = IARG(x[3]);
		rc = sbx_read_xattr(c, ARG(x[0]), ARG(x[1]), (size_t)ARG(x[2]), m);
		break;
	case SBX_RMXATTR:
		rc = sbx_read_xattr(c, ARG(x[0]), 0, 0, m);
		break;
	default:
		return -ENOSYS;
	}
	return rc < 0 ? rc : sbx_h_meta(c, p, empty, (enum sbx_meta)mo->meta, m);
}

/* The calls notified only so that the cached credentials are forgotten. */
static int sbx_is_cred_call(long nr)
{
	switch (nr) {
	case SYS_setuid:
	case SYS_setgid:
	case SYS_setreuid:
	case SYS_setregid:
	case SYS_setresuid:
	case SYS_setresgid:
	case SYS_setfsuid:
	case SYS_setfsgid:
	case SYS_setgroups:
	case SYS_capset:
	case SYS_umask:
		return 1;
	default:
		return 0;
	}
}

/* A call that changes ids or the umask, made by a tracee that has ours until now
 * (while they do not differ): whether it leaves what the supervisor mirrors (the fs
 * uid and gid, which follow the effective ids, the groups, the umask) as ours. The
 * values are in registers, which no other thread can change after this check. GNU
 * make calls setresuid(-1, EUID, -1) around its file accesses, chmod umask(0). */
static void sbx_cred_call_seen(struct sbx_call *c)
{
	const struct sbx_super *s = c->s;
	uint32_t uid = (uint32_t)s->euid, gid = (uint32_t)s->egid, none = (uint32_t)-1;
	uint32_t e;
	int keeps = 0;

	switch (c->req->data.nr) {
	case SYS_setuid:
	case SYS_setfsuid:
		keeps = (uint32_t)ARG(0) == uid;
		break;
	case SYS_setgid:
	case SYS_setfsgid:
		keeps = (uint32_t)ARG(0) == gid;
		break;
	case SYS_setreuid:
	case SYS_setresuid: /* the effective uid is the second */
		e = (uint32_t)ARG(1);
		keeps = e == none || e == uid;
		break;
	case SYS_setregid:
	case SYS_setresgid:
		e = (uint32_t)ARG(1);
		keeps = e == none || e == gid;
		break;
	case SYS_capset: /* capabilities are not mirrored */
		keeps = 1;
		break;
	case SYS_umask:
		if (((mode_t)ARG(0) & 0777) != s->umask0)
			c->s->umask_differs = 1;
		return;
	default: /* setgroups: the list is in memory */
		break;
	}
	if (!keeps)
		c->s->ids_differ = 1;
}

/* setrlimit and prlimit64 on RLIMIT_CORE, notified only where the tree could raise the
 * hard 0 the launcher set (it holds CAP_SYS_RESOURCE; see filter.c): the new limit is
 * in memory, where a filter cannot look. The supervisor reads it and makes the call
 * itself, with its own copy, when it raises nothing (the setrlimit(RLIMIT_CORE, 0) of
 * ssh-agent, gpg-agent and every sanitizer runtime); a raise is refused
 * (runtime.core_dump). */
static long long sbx_limit_call(struct sbx_call *c)
{
	int pr = c->req->data.nr == SYS_prlimit64;
	pid_t pid = pr && ARG(0) ? (pid_t)ARG(0) : (pid_t)c->req->pid;
	uint64_t newp = pr ? ARG(2) : ARG(1), oldp = pr ? ARG(3) : 0;
	struct rlimit want, now;
	int rc;

	c->name = pr ? "prlimit" : "setrlimit";
	if (sbx_mem_read(c, newp, &want, sizeof want) != (ssize_t)sizeof want)
		return -EFAULT;
	if (want.rlim_cur > want.rlim_max)
		return -EINVAL;
	if (prlimit(pid, RLIMIT_CORE, NULL, &now) != 0)
		return -errno;
	if (want.rlim_max > now.rlim_max &&
	    (rc = sbx_builtin(c, RT_RULE_CORE_DUMP, "RLIMIT_CORE", -EPERM)) < 0)
		return rc;
	if (prlimit(pid, RLIMIT_CORE, &want, &now) != 0)
		return -errno;
	if (oldp && sbx_mem_io(c, oldp, &now, sizeof now, 1) != (ssize_t)sizeof now)
		return -EFAULT;
	return 0;
}

/* One notification: its row of the table says where the paths are and what the rules
 * judge; sbx_more[] what else the call reads and which handler performs it. */
static void sbx_dispatch(struct sbx_call *c, struct sbx_answer *ans)
{
	const struct rt_syscall *row = rt_syscall_find((long)c->req->data.nr);
	const struct sbx_more *mo;
	struct sbx_meta_args m;
	struct sbx_parg p[2];
	long long rc = -ENOSYS;
	int fl;

	memset(&m, 0, sizeof m);
	ans->kind = SBX_ANS_VALUE;
	if (c->req->data.arch != AUDIT_ARCH_X86_64) {
		ans->val = -ENOSYS;
		return;
	}
	if (!row) {
		if (sbx_is_cred_call(c->req->data.nr)) {
			/* Decided on nothing but the call's number: let the kernel do it,
			 * and forget the credentials we knew. */
			for (int i = 0; i < SBX_CRED_SLOTS; i++)
				c->s->cache[i].valid = 0;
			sbx_cred_call_seen(c);
			ans->kind = SBX_ANS_CONTINUE;
		} else if (c->req->data.nr == SYS_setrlimit || c->req->data.nr == SYS_prlimit64) {
			ans->val = sbx_limit_call(c);
		} else {
			ans->val = -ENOSYS;
		}
		return;
	}
	mo = &sbx_more[row - rt_syscalls];
	fl = row->fl >= 0 && mo->act != SBX_ACT_OPEN2 ? IARG(row->fl) : 0;
	sbx_pargs(c, row, fl, p);
	if (fl & mo->fl_bad) {
		rc = -EINVAL;
		goto out;
	}
	switch (mo->act) {
	case SBX_ACT_OPEN:
	case SBX_ACT_OPEN2:
		/* an installed descriptor too takes our own ids back (below) */
		sbx_dispatch_open(c, row, mo, &p[0], ans, &rc);
		break;
	case SBX_ACT_UNLINK:
		rc = sbx_h_unlink(c, &p[0]);
		break;
	case SBX_ACT_RENAME:
		rc = sbx_h_rename(c, p, (unsigned)fl);
		break;
	case SBX_ACT_LINK:
		rc = sbx_h_link(c, p, fl & AT_EMPTY_PATH);
		break;
	case SBX_ACT_SYMLINK:
		rc = sbx_h_symlink(c, ARG(mo->x[0]), &p[0]);
		break;
	case SBX_ACT_MKDIR:
	case SBX_ACT_MKNOD:
		rc = sbx_h_mknod(c, &p[0], (mode_t)ARG(mo->x[0]), (dev_t)XARG(mo->x[1]),
				 mo->act == SBX_ACT_MKDIR);
		break;
	case SBX_ACT_TRUNCATE:
		rc = sbx_h_truncate(c, &p[0], (off_t)ARG(mo->x[0]));
		break;
	case SBX_ACT_META:
		rc = sbx_dispatch_meta(c, mo, &p[0], row->path < 0 || (fl & AT_EMPTY_PATH), &m);
		break;
	case SBX_ACT_EXEC:
		rc = sbx_h_exec(c, &p[0], ARG(mo->x[0]), fl, ans);
		break;
	case SBX_ACT_BIND:
		rc = sbx_h_bind(c, &p[0], (socklen_t)fl);
		break;
	default:
		break;
	}
out:
	free(m.xvalue);
	sbx_creds_leave(c);
	if (ans->kind == SBX_ANS_VALUE)
		ans->val = rc;
}

/* ---- the loop ---------------------------------------------------------------------------- */

struct sbx_super *sbx_super_new(const struct sbx_super_opts *opts)
{
	struct sbx_super *s = calloc(1, sizeof *s);

	if (!s)
		return NULL;
	s->policy = opts->policy;
	s->exe_first = pol_exe_may_refuse(s->policy);
	s->listener = opts->listener;
	s->quiet = opts->quiet;
	s->err_fd = opts->err_fd;
	s->self = getpid();
	s->agent_pidfd = -1;
	pthread_mutex_init(&s->kept_lock, NULL);
	{
		struct rt_session ses;

		/* The launcher's start (DCG_SESSION), else ours: files born since are the
		 * session's own. The agent is the process whose pidfd we hold, not the
		 * session's pid; the kept names are our own set, not its file. */
		if (rt_session_parse(getenv("DCG_SESSION"), &ses) < 0)
			ses.start_ns = rt_session_now();
		s->session_start = ses.start_ns;
	}
	sbx_log_prepare(s);
	s->self_fds = open("/proc/self/fd", O_PATH | O_DIRECTORY | O_CLOEXEC);
	{
		ssize_t n = readlink("/proc/self/exe", s->dcg_exe, sizeof s->dcg_exe - 1);
		const char *pre = getenv("LD_PRELOAD");

		s->dcg_exe[n > 0 ? n : 0] = '\0';
		struct stat st;
		if (s->dcg_exe[0] && stat("/proc/self/exe", &st) == 0) {
			s->dcg_dev = st.st_dev;
			s->dcg_ino = st.st_ino;
		} else {
			s->dcg_exe[0] = '\0';
		}
		/* the guard the launcher preloads first (cli/launch.c), and its engine beside
		 * it: their folder is not foreign code (sbx_foreign_code) */
		if (pre && pre[0] == '/') {
			size_t len = strcspn(pre, ": ");
			const char *slash = memrchr(pre, '/', len);

			if (!strncmp(slash + 1, "libdcg-preload", 14) &&
			    (size_t)(slash - pre) + 2 < sizeof s->guard_dir)
				snprintf(s->guard_dir, sizeof s->guard_dir, "%.*s/",
					 (int)(slash - pre), pre);
		}
	}
	s->euid = geteuid();
	s->egid = getegid();
	s->umask0 = umask(022);
	umask(s->umask0);
	/* The intent's files are read now, with our own ids, not later in a call made
	 * with a tracee's. */
	pthread_once(&sbx_intents_once, sbx_intents_load);
	s->ngroups = getgroups(64, s->groups);
	if (s->ngroups < 0)
		s->ngroups = 0;
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &s->sizes) < 0)
		goto out_free;
	/* The kernel's structures may be larger than our headers' (newer kernels). */
	if (s->sizes.seccomp_notif < sizeof(struct seccomp_notif))
		s->sizes.seccomp_notif = sizeof(struct seccomp_notif);
	if (s->sizes.seccomp_notif_resp < sizeof(struct seccomp_notif_resp))
		s->sizes.seccomp_notif_resp = sizeof(struct seccomp_notif_resp);
	/* Linux 6.6: wake the tracee on our CPU when we answer, as a synchronous
	 * hand-off; older kernels say EINVAL and keep the ordinary wake-up. */
	ioctl(s->listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS, SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
	s->req = calloc(1, s->sizes.seccomp_notif);
	s->resp = calloc(1, s->sizes.seccomp_notif_resp);
	if (!s->req || !s->resp)
		goto out_free;
	return s;
out_free:
	free(s->req);
	free(s->resp);
	free(s);
	return NULL;
}

void sbx_super_free(struct sbx_super *s)
{
	if (!s)
		return;
	if (s->log_thread_on) {
		/* The tracees are gone: once our end is closed the thread appends what they
		 * wrote and ends. One that passed its end out of the tree would keep it: then
		 * the thread is left to end with the process. */
		struct timespec until;

		close(s->log_pipe_w);
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 2;
		if (pthread_timedjoin_np(s->log_thread, NULL, &until) != 0)
			pthread_detach(s->log_thread);
	}
	if (s->agent_pidfd > 0)
		close(s->agent_pidfd);
	if (s->listener >= 0)
		close(s->listener);
	if (s->self_fds >= 0)
		close(s->self_fds);
	free(s->req);
	free(s->resp);
	free(s->kept);
	pthread_mutex_destroy(&s->kept_lock);
	free(s);
}

int sbx_super_fd(const struct sbx_super *s)
{
	return s->listener;
}

void sbx_super_stats(const struct sbx_super *s, struct sbx_stats *out)
{
	*out = s->stats;
}

/* Closes a and b (-1: none): one close_range() when they are neighbours, as a pinned
 * file and its reopened descriptor usually are. */
static void sbx_close_two(int a, int b)
{
	int lo = a < b ? a : b, hi = a < b ? b : a;

	if (lo >= 0 && hi == lo + 1 && syscall(SYS_close_range, lo, hi, 0) == 0)
		return;
	if (a >= 0)
		close(a);
	if (b >= 0)
		close(b);
}

/* Receives one notification (blocking until there is one) and answers it. Returns 0
 * (*got: whether a notification was read), or -errno when the listener failed. */
static int sbx_handle(struct sbx_super *s, int *got)
{
	struct sbx_call c;
	struct sbx_answer ans = {SBX_ANS_VALUE, -ENOSYS, -1, 0};

	*got = 0;
	memset(s->req, 0, s->sizes.seccomp_notif);
	if (ioctl(s->listener, SECCOMP_IOCTL_NOTIF_RECV, s->req) < 0) {
		/* ENOENT: the tracee was interrupted or died before we read it, or no
		 * tracee is left. */
		if (errno == ENOENT || errno == EINTR)
			return 0;
		return -errno;
	}
	*got = 1;
	s->stats.notified++;
	memset(&c, 0, sizeof c);
	c.close_later = -1;
	c.s = s;
	c.req = s->req;
	c.who.tid = (pid_t)s->req->pid;
	c.who.tgid = 0;	      /* looked up only when a /proc path needs it */
	if (!s->agent_tgid) { /* the first caller is the command dcg sandbox started */
		s->agent_tgid = sbx_who_tgid(&c.who);
		s->agent_pidfd = (int)syscall(SYS_pidfd_open, s->agent_tgid, 0);
	}
	{
		const struct rt_syscall *row = rt_syscall_find((long)s->req->data.nr);

		c.name = row ? row->name : "syscall";
	}
	sbx_dispatch(&c, &ans);

	memset(s->resp, 0, s->sizes.seccomp_notif_resp);
	s->resp->id = s->req->id;
	if (ans.kind == SBX_ANS_FD) {
		struct seccomp_notif_addfd add = {
		    .id = s->req->id,
		    .flags = SECCOMP_ADDFD_FLAG_SEND,
		    .srcfd = (uint32_t)ans.fd,
		    .newfd = 0,
		    .newfd_flags = ans.cloexec ? O_CLOEXEC : 0,
		};
		int rc = ioctl(s->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &add);
		int e = errno;
		sbx_close_two(ans.fd, c.close_later);
		c.close_later = -1;
		s->stats.emulated++;
		if (rc >= 0)
			return 0;
		if (e == ENOENT)
			return 0;
		/* Could not install (EMFILE...): answer with the error instead. */
		s->resp->error = -e;
		s->stats.failed++;
	} else if (ans.kind == SBX_ANS_NONE) {
		s->stats.emulated++;
		return 0;
	} else if (ans.kind == SBX_ANS_CONTINUE) {
		s->resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		s->stats.continued++;
	} else {
		if (ans.val < 0) {
			s->resp->error = (int32_t)ans.val;
			if (ans.val == -EACCES)
				s->stats.refused++;
		} else {
			s->resp->val = ans.val;
		}
		s->stats.emulated++;
	}
	if (c.close_later >= 0)
		close(c.close_later);
	if (ioctl(s->listener, SECCOMP_IOCTL_NOTIF_SEND, s->resp) < 0 && errno != ENOENT)
		return -errno;
	return 0;
}

int sbx_super_handle_one(struct sbx_super *s)
{
	int got;

	return sbx_handle(s, &got);
}

int sbx_super_serve(struct sbx_super *s)
{
	for (;;) {
		int got, rc = sbx_handle(s, &got);

		if (rc < 0)
			return rc;
		if (!got) {
			/* Only now ask whether the last tracee has gone: with no tracee
			 * left, RECV returns at once and the listener hangs up. */
			struct pollfd pf = {s->listener, POLLIN, 0};

			if (poll(&pf, 1, 0) == 1 && !(pf.revents & POLLIN) &&
			    (pf.revents & (POLLHUP | POLLERR | POLLNVAL)))
				return 0;
		}
	}
}
