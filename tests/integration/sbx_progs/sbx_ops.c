/* sbx_ops.c - one file operation per run, for the sandbox tests. Built -static by the
 * test, so no LD_PRELOAD guard can see it; some operations bypass libc entirely.
 *   sbx_ops OP PATH [PATH2]
 * Exit 0 when the operation succeeded, 13 when refused with EACCES, 1 otherwise.
 * "read" copies the file to stdout. "exec-spaced PROG" execs PROG as
 * "git -c a.b=1 -c c.d=2 stash drop", its strings in order a few bytes apart. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static long asm_syscall3(long nr, long a, long b, long c)
{
	long ret;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	return ret;
}

static int result(long rc)
{
	if (rc >= 0)
		return 0;
	fprintf(stderr, "sbx_ops: %s\n", strerror(errno));
	return errno == EACCES ? 13 : 1;
}

int main(int argc, char **argv)
{
	const char *op, *p, *q;
	char buf[4096];
	long rc;
	int fd;

	if (argc < 3) {
		fprintf(stderr, "usage: sbx_ops OP PATH [PATH2]\n");
		return 2;
	}
	op = argv[1], p = argv[2], q = argc > 3 ? argv[3] : NULL;
	if (!strcmp(op, "read")) {
		fd = open(p, O_RDONLY);
		if (fd < 0)
			return result(-1);
		ssize_t n;
		while ((n = read(fd, buf, sizeof buf)) > 0)
			if (write(1, buf, (size_t)n) < 0)
				return 1;
		return 0;
	}
	if (!strcmp(op, "write")) {
		fd = open(p, O_WRONLY | O_TRUNC);
		if (fd < 0)
			return result(-1);
		return result(write(fd, "clobbered\n", 10));
	}
	if (!strcmp(op, "append")) {
		fd = open(p, O_WRONLY | O_APPEND | O_CREAT, 0644);
		if (fd < 0)
			return result(-1);
		return result(write(fd, "more\n", 5));
	}
	if (!strcmp(op, "reopen-write")) {
		/* A read-only descriptor reopened for writing through /proc/self/fd. */
		char link[64];
		fd = open(p, O_RDONLY);
		if (fd < 0)
			return result(-1);
		snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
		return result(open(link, O_WRONLY));
	}
	if (!strcmp(op, "fchmod") || !strcmp(op, "futimens") || !strcmp(op, "fchmodat-empty")) {
		/* Metadata writes through a descriptor opened for reading (or O_PATH). */
		fd = open(p, !strcmp(op, "fchmodat-empty") ? O_PATH : O_RDONLY);
		if (fd < 0)
			return result(-1);
		if (!strcmp(op, "fchmod"))
			return result(fchmod(fd, 0777));
		if (!strcmp(op, "futimens"))
			return result(futimens(fd, NULL));
		return result(syscall(SYS_fchownat, fd, "", 0, 0, AT_EMPTY_PATH));
	}
	if (!strcmp(op, "create"))
		return result(fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644));
	if (!strcmp(op, "truncate"))
		return result(truncate(p, 0));
	if (!strcmp(op, "unlink"))
		return result(unlink(p));
	if (!strcmp(op, "rmdir"))
		return result(rmdir(p));
	if (!strcmp(op, "rename") && q)
		return result(rename(p, q));
	if (!strcmp(op, "link") && q)
		return result(link(p, q));
	if (!strcmp(op, "chmod"))
		return result(chmod(p, 0777));
	if (!strcmp(op, "mkdir"))
		return result(mkdir(p, 0755));
	if (!strcmp(op, "mknod-blk")) /* a loop device node: never opened by the test */
		return result(mknod(p, S_IFBLK | 0600, makedev(7, 0)));
	if (!strcmp(op, "raw-unlink"))
		return result(syscall(SYS_unlinkat, AT_FDCWD, p, 0));
	if (!strcmp(op, "raw-open-write"))
		return result(syscall(SYS_openat, AT_FDCWD, p, O_WRONLY | O_TRUNC, 0));
	if (!strcmp(op, "raw-rename") && q)
		return result(syscall(SYS_renameat2, AT_FDCWD, p, AT_FDCWD, q, 0));
	if (!strcmp(op, "asm-unlink")) {
		rc = asm_syscall3(SYS_unlink, (long)p, 0, 0);
		if (rc < 0)
			errno = (int)-rc;
		return result(rc < 0 ? -1 : 0);
	}
	if (!strcmp(op, "asm-read")) {
		rc = asm_syscall3(SYS_open, (long)p, O_RDONLY, 0);
		if (rc < 0) {
			errno = (int)-rc;
			return result(-1);
		}
		ssize_t n = read((int)rc, buf, sizeof buf);
		if (n > 0 && write(1, buf, (size_t)n) < 0)
			return 1;
		return 0;
	}
	if (!strcmp(op, "uring")) {
		/* io_uring_setup(entries, params): the sandbox refuses it outright. */
		char params[120];
		memset(params, 0, sizeof params);
		return result(syscall(425, 8, params));
	}
	if (!strcmp(op, "newsys")) {
		/* removexattrat (466): newer than libseccomp 2.5.4 knows; must not pass. */
		rc = syscall(466, AT_FDCWD, p, 0, "user.x");
		if (rc < 0 && errno == ENOSYS)
			return 38;
		return result(rc);
	}
	if (!strcmp(op, "exec-spaced")) {
		static const char *const words[] = {"git",   "-c",    "a.b=1", "-c",
						    "c.d=2", "stash", "drop"};
		static char area[512];
		char *args[8];
		size_t at = 0;

		for (size_t i = 0; i < 7; i++) {
			args[i] = area + at;
			memcpy(area + at, words[i], strlen(words[i]) + 1);
			at += strlen(words[i]) + 1 + 5; /* a gap after each NUL */
		}
		args[7] = NULL;
		return result(execve(p, args, environ));
	}
	fprintf(stderr, "sbx_ops: unknown op %s\n", op);
	return 2;
}
