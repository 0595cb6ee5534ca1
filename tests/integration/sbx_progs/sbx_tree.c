/* sbx_tree.c - a process tree three levels deep. Each level tries to delete the
 * protected file with a raw syscall; the grandchild outlives its parent (an orphan)
 * and, after a pause, writes DONE_FILE, so the test can tell that dcg sandbox waited
 * for the last descendant.
 *   sbx_tree PROTECTED DONE_FILE
 * Exit 0 when every level was refused. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int try_delete(const char *p, int level)
{
	long rc = syscall(SYS_unlinkat, AT_FDCWD, p, 0);
	if (rc == 0) {
		fprintf(stderr, "level %d: deleted %s\n", level, p);
		return 1;
	}
	if (errno != EACCES) {
		fprintf(stderr, "level %d: unexpected %s\n", level, strerror(errno));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *prot = argv[1], *done = argv[2];
	int st;

	if (argc != 3)
		return 2;
	if (try_delete(prot, 1))
		return 1;
	pid_t c = fork();
	if (c == 0) {
		if (try_delete(prot, 2))
			_exit(1);
		pid_t g = fork();
		if (g == 0) {
			usleep(300 * 1000); /* our parent is gone by now: we are an orphan */
			int bad = try_delete(prot, 3);
			int fd = open(done, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (fd >= 0) {
				if (write(fd, bad ? "BAD\n" : "DONE\n", bad ? 4 : 5) < 0)
					bad = 1;
				close(fd);
			}
			_exit(bad);
		}
		_exit(g < 0);
	}
	if (waitpid(c, &st, 0) != c || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return 1;
	return 0;
}
