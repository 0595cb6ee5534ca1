/* filter.c - the seccomp filter of dcg sandbox, built with libseccomp.
 *
 * Three groups of system calls:
 * - path-taking calls go to the supervisor (SCMP_ACT_NOTIFY), which decides and
 *   performs them itself;
 * - calls that would let a process escape the supervisor are refused outright;
 * - numbers libseccomp does not know (added to Linux after it) are refused with
 *   ENOSYS: a new path-taking call (setxattrat, file_setattr...) must not pass
 *   unchecked just because this libseccomp cannot name it.
 * Everything else is allowed.
 */
#include "sandbox.h"
#include "scmp.h"

#include "rt.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif

/* Path-taking calls come from the runtime core's table (runtime/syscalls.def): opens
 * (RT_OPEN) are notified by their flags, the other path and descriptor calls always;
 * file handles and the mount family are refused (EPERM). */

/* Calls that change a thread's ids or umask: notified only so that the supervisor
 * drops the credentials it cached, then continued (decided on the number alone). */
static const int sbx_creds_calls[] = {
    SCMP_SYS(setuid),	 SCMP_SYS(setgid),    SCMP_SYS(setreuid), SCMP_SYS(setregid),
    SCMP_SYS(setresuid), SCMP_SYS(setresgid), SCMP_SYS(setfsuid), SCMP_SYS(setfsgid),
    SCMP_SYS(setgroups), SCMP_SYS(capset),    SCMP_SYS(umask),
};

/* Escape hatches: refused with EPERM. */
static const int sbx_refused[] = {
    SCMP_SYS(io_uring_setup),
    SCMP_SYS(io_uring_enter),
    SCMP_SYS(io_uring_register),
    SCMP_SYS(ptrace),
    SCMP_SYS(process_vm_readv),
    SCMP_SYS(process_vm_writev),
    SCMP_SYS(bpf),
    SCMP_SYS(setns),
    SCMP_SYS(kexec_load),
    SCMP_SYS(kexec_file_load),
    SCMP_SYS(pidfd_getfd),
    SCMP_SYS(userfaultfd),
    SCMP_SYS(init_module),
    SCMP_SYS(finit_module),
    SCMP_SYS(delete_module),
    SCMP_SYS(acct),
    SCMP_SYS(swapon),
    SCMP_SYS(swapoff),
    SCMP_SYS(iopl),
    SCMP_SYS(ioperm),
    SCMP_SYS(uselib),
    SCMP_SYS(quotactl_fd),
    SCMP_SYS(fanotify_init), /* hands out descriptors of files others open */
};

/* Namespace flags of clone and unshare: a new mount or user namespace would let the
 * process rearrange the tree the supervisor resolves paths in. */
static const unsigned long sbx_ns_flags[] = {
    CLONE_NEWNS,  CLONE_NEWUSER, CLONE_NEWPID,	  CLONE_NEWNET,
    CLONE_NEWUTS, CLONE_NEWIPC,	 CLONE_NEWCGROUP,
};

/* Opens with any of these flags write or create and are notified even when reads
 * are not. */
static const unsigned long sbx_write_flags[] = {
    O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, __O_TMPFILE,
};

static int sbx_add_open_rules(scmp_filter_ctx ctx, int nr, unsigned arg, int notify_reads)
{
	if (notify_reads)
		return sbx_scmp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 0);
	for (size_t i = 0; i < sizeof sbx_write_flags / sizeof sbx_write_flags[0]; i++) {
		unsigned long f = sbx_write_flags[i];
		struct scmp_arg_cmp cmp = {arg, SCMP_CMP_MASKED_EQ, f, f};
		int rc = sbx_scmp_rule_add_array(ctx, SCMP_ACT_NOTIFY, nr, 1, &cmp);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Whether this process (and so the tree it starts, which cannot gain capabilities
 * under no_new_privs) holds CAP_SYS_RESOURCE. Unknown counts as yes. */
static int sbx_may_raise_limits(void)
{
	struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct data[2];

	memset(data, 0, sizeof data);
	if (syscall(SYS_capget, &hdr, data) != 0)
		return 1;
	return (data[CAP_SYS_RESOURCE / 32].effective & (1U << (CAP_SYS_RESOURCE % 32))) != 0;
}

/* USERFAULTFD_IOC_NEW (linux/userfaultfd.h, Linux 6.1), _IO(0xAA, 0x00) */
#define SBX_UFFD_IOC_NEW 0xAA00UL

static int sbx_add_rules(scmp_filter_ctx ctx, const struct sbx_filter_opts *opts)
{
	int rc;
	size_t i;

	for (i = 0; i < rt_syscall_count; i++) {
		const struct rt_syscall *row = &rt_syscalls[i];

		if (row->kind == RT_OPEN)
			rc = sbx_add_open_rules(ctx, (int)row->nr, (unsigned)row->fl,
						opts->notify_reads);
		else if (row->kind == RT_HANDLE || row->kind == RT_MOUNT)
			rc = sbx_scmp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), (int)row->nr, 0);
		else
			rc = sbx_scmp_rule_add(ctx, SCMP_ACT_NOTIFY, (int)row->nr, 0);
		if (rc < 0)
			return rc;
	}
	for (i = 0; i < sizeof sbx_creds_calls / sizeof sbx_creds_calls[0]; i++) {
		rc = sbx_scmp_rule_add(ctx, SCMP_ACT_NOTIFY, sbx_creds_calls[i], 0);
		if (rc < 0)
			return rc;
	}
	for (i = 0; i < sizeof sbx_refused / sizeof sbx_refused[0]; i++) {
		rc = sbx_scmp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), sbx_refused[i], 0);
		if (rc < 0)
			return rc;
	}
	/* glibc falls back to clone when clone3 says ENOSYS; clone3's flags live in
	 * memory, where a filter cannot look. */
	rc = sbx_scmp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
	if (rc < 0)
		return rc;
	for (i = 0; i < sizeof sbx_ns_flags / sizeof sbx_ns_flags[0]; i++) {
		unsigned long f = sbx_ns_flags[i];
		rc = sbx_scmp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
				       SCMP_A0(SCMP_CMP_MASKED_EQ, f, f));
		if (rc < 0)
			return rc;
		rc = sbx_scmp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare), 1,
				       SCMP_A0(SCMP_CMP_MASKED_EQ, f, f));
		if (rc < 0)
			return rc;
	}
	/* A second listener installed by the process would take precedence over ours. */
	rc = sbx_scmp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(seccomp), 1,
			       SCMP_A1(SCMP_CMP_MASKED_EQ, SECCOMP_FILTER_FLAG_NEW_LISTENER,
				       SECCOMP_FILTER_FLAG_NEW_LISTENER));
	if (rc < 0)
		return rc;
	/* The guard defends itself: a process may not rewrite what identifies it
	 * (prctl(PR_SET_MM*): /proc/PID/exe, which :dcg is told by, its command line
	 * and auxv), nor raise the hard RLIMIT_CORE of 0 the launcher set (a core dump is
	 * a write the kernel makes for the process, in its working directory, that no
	 * path rule sees; root could raise it). */
	rc = sbx_scmp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(prctl), 1,
			       SCMP_A0(SCMP_CMP_EQ, PR_SET_MM));
	/* The new limit is behind a pointer, where the filter cannot look: RLIMIT_CORE
	 * changes go to the supervisor (lowering passes: ssh-agent, gpg-agent and every
	 * ASan-built program set it to 0 at start and give up when refused). Only a
	 * process holding CAP_SYS_RESOURCE could raise the hard 0: without it the kernel
	 * refuses already, and the calls need not wait for the supervisor. */
	if (rc == 0 && sbx_may_raise_limits()) {
		rc = sbx_scmp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(setrlimit), 1,
				       SCMP_A0(SCMP_CMP_EQ, RLIMIT_CORE));
		if (rc == 0)
			rc = sbx_scmp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(prlimit64), 2,
					       SCMP_A1(SCMP_CMP_EQ, RLIMIT_CORE),
					       SCMP_A2(SCMP_CMP_NE, 0));
	}
	/* /dev/userfaultfd hands out what the refused userfaultfd() would: a page whose
	 * faults a tracee serves would stall the supervisor's reads of tracee memory,
	 * and every other process's checks behind them. */
	if (rc == 0)
		rc = sbx_scmp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
				       SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffUL, SBX_UFFD_IOC_NEW));
	/* TIOCSTI pushes bytes into a terminal's input as if typed: a tracee on the
	 * user's terminal would answer the supervisor's own question (an ask rule) or
	 * type a command into the user's shell for after the session. The number is
	 * an unsigned int to the kernel: the upper half of the register is not looked
	 * at. */
	if (rc == 0)
		rc = sbx_scmp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
				       SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffUL, TIOCSTI));
	if (rc < 0)
		return rc;
	/* personality: queries stay allowed (0xffffffff), changes are refused
	 * (READ_IMPLIES_EXEC, ADDR_NO_RANDOMIZE and the like). */
	rc = sbx_scmp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(personality), 1,
			       SCMP_A0(SCMP_CMP_NE, 0xffffffffUL));
	if (rc < 0)
		return rc;
	/* Numbers this libseccomp cannot name: newer than it, so unknown to the filter's
	 * authors; x86_64 numbers stop below 512 (the x32 range is refused as a bad
	 * architecture by libseccomp). */
	for (int nr = 0; nr < 512; nr++) {
		if (rt_syscall_find(nr) || nr < 335) /* below 335: holes the kernel refuses */
			continue;
		char *name = sbx_scmp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
		if (name) { /* libseccomp's strdup */
			free(name);
			continue;
		}
		rc = sbx_scmp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int sbx_filter_build(const struct sbx_filter_opts *opts, struct sbx_filter *out)
{
	scmp_filter_ctx ctx;
	int rc, mfd = -1;
	off_t size;
	void *buf = NULL;

	memset(out, 0, sizeof *out);
	ctx = sbx_scmp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		return -ENOMEM;
	rc = sbx_scmp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	if (rc == 0)
		rc = sbx_scmp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0);
	if (rc == 0)
		rc = sbx_scmp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	if (rc < 0)
		goto out_release_ctx;
	rc = sbx_add_rules(ctx, opts);
	if (rc < 0)
		goto out_release_ctx;

	/* libseccomp 2.5 exports only to a descriptor; we install the program ourselves to
	 * pass flags it does not know (WAIT_KILLABLE_RECV). */
	mfd = memfd_create("dcg-seccomp", MFD_CLOEXEC);
	if (mfd < 0) {
		rc = -errno;
		goto out_release_ctx;
	}
	rc = sbx_scmp_export_bpf(ctx, mfd);
	if (rc < 0)
		goto out_close_memfd;
	size = lseek(mfd, 0, SEEK_END);
	if (size <= 0 || size % sizeof(struct sock_filter) != 0 ||
	    size / sizeof(struct sock_filter) > BPF_MAXINSNS) {
		rc = -E2BIG;
		goto out_close_memfd;
	}
	buf = malloc((size_t)size);
	if (!buf) {
		rc = -ENOMEM;
		goto out_close_memfd;
	}
	if (pread(mfd, buf, (size_t)size, 0) != size) {
		rc = -EIO;
		free(buf);
		goto out_close_memfd;
	}
	out->insns = buf;
	out->len = (unsigned short)(size / sizeof(struct sock_filter));
	rc = 0;
out_close_memfd:
	close(mfd);
out_release_ctx:
	sbx_scmp_release(ctx);
	return rc;
}

void sbx_filter_release(struct sbx_filter *f)
{
	if (!f)
		return;
	free(f->insns);
	f->insns = NULL;
	f->len = 0;
}

int sbx_filter_install(const struct sbx_filter *f)
{
	struct sock_fprog prog = {.len = f->len, .filter = f->insns};
	long fd;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -errno;
	/* WAIT_KILLABLE_RECV: once the supervisor has read a call, an ordinary signal
	 * (SIGCHLD in make) no longer interrupts it, so a call performed by the
	 * supervisor is never restarted and performed twice. */
	fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		     SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV,
		     &prog);
	if (fd < 0 && errno == EINVAL)
		fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER,
			     &prog);
	if (fd < 0)
		return -errno;
	return (int)fd;
}

int sbx_kernel_check(char *msg, size_t size)
{
	unsigned action = SECCOMP_RET_USER_NOTIF;
	struct seccomp_notif_sizes sizes;
	struct utsname u;
	long major = 0, minor = 0;
	char *end;

	if (syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) < 0) {
		int e = errno;
		if (e == EINVAL || e == ENOSYS)
			snprintf(msg, size,
				 "this kernel has no seccomp filters or no user notification "
				 "(SECCOMP_RET_USER_NOTIF, Linux 5.0 with CONFIG_SECCOMP_FILTER)");
		else
			snprintf(msg, size, "seccomp is not usable here: %s", strerror(e));
		return -e;
	}
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) < 0) {
		snprintf(msg, size, "seccomp user notification sizes unavailable: %s",
			 strerror(errno));
		return -errno;
	}
	if (uname(&u) == 0) {
		major = strtol(u.release, &end, 10);
		if (*end == '.')
			minor = strtol(end + 1, NULL, 10);
	}
	if (major < 5 || (major == 5 && minor < 14)) {
		snprintf(msg, size,
			 "kernel %s lacks SECCOMP_ADDFD_FLAG_SEND (Linux 5.14), which the "
			 "supervisor needs to hand over the files it opens",
			 u.release);
		return -ENOSYS;
	}
	return 0;
}
