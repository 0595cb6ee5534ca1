/* libc_versions - for each "NAME @VERSION" or "NAME @@VERSION" (the default version)
 * line on stdin, looks the name up as dlvsym(RTLD_DEFAULT, ...), dlvsym(libc's handle,
 * ...) and, for the default version, dlsym(libc's handle, ...),
 * and prints one line for each lookup whose answer does not lie in an object whose
 * file name contains argv[1] (the guard). Exit 0 when every lookup reached it, 1 when
 * one did not, 2 on a usage error. Run under the preload by test_preload_libc.sh. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static int in_guard(void *p, const char *guard)
{
	Dl_info info;

	return p && dladdr(p, &info) && info.dli_fname && strstr(info.dli_fname, guard);
}

static const char *where(void *p)
{
	Dl_info info;

	if (!p)
		return "(not found)";
	return dladdr(p, &info) && info.dli_fname ? info.dli_fname : "(unknown object)";
}

int main(int argc, char **argv)
{
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	char name[256], version[64];
	int bad = 0, n = 0;

	if (argc != 2 || !libc)
		return 2;
	while (scanf("%255s %63s", name, version) == 2) {
		const char *v = version + strspn(version, "@");
		int dflt = v - version == 2;
		void *a = dlvsym(RTLD_DEFAULT, name, v), *b = dlvsym(libc, name, v),
		     *c = dflt ? dlsym(libc, name) : NULL;

		n++;
		if (!in_guard(a, argv[1]))
			printf("dlvsym(RTLD_DEFAULT, %s, %s): %s\n", name, v, where(a)), bad = 1;
		if (!in_guard(b, argv[1]))
			printf("dlvsym(libc, %s, %s): %s\n", name, v, where(b)), bad = 1;
		if (dflt && !in_guard(c, argv[1]))
			printf("dlsym(libc, %s): %s\n", name, where(c)), bad = 1;
	}
	printf("%d lookups\n", n);
	return bad;
}
