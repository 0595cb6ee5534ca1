/* sbx_dlmopen.c - loads a fresh libc in a new link-map namespace, where no
 * LD_PRELOAD wrapper is bound, and calls its unlink.
 *   sbx_dlmopen PATH
 * Exit 0 when unlink succeeded, 13 when refused with EACCES. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	void *h;
	int (*fn)(const char *);
	int *(*errloc)(void);

	if (argc != 2)
		return 2;
	h = dlmopen(LM_ID_NEWLM, "libc.so.6", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "dlmopen: %s\n", dlerror());
		return 2;
	}
	fn = (int (*)(const char *))dlsym(h, "unlink");
	errloc = (int *(*)(void))dlsym(h, "__errno_location");
	if (!fn || !errloc)
		return 2;
	if (fn(argv[1]) == 0)
		return 0;
	fprintf(stderr, "sbx_dlmopen: %s\n", strerror(*errloc()));
	return *errloc() == EACCES ? 13 : 1;
}
