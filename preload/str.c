/* str.c - the guest's own string functions (hidden: the guest's calls bind to them,
 * nothing else sees them).
 *
 * A fork child faults in every page of libc's code it runs for the first time, and
 * libc's string functions lie on pages of their own (one per variant): the exec
 * check of a shell's child touched four of them for a few short strings. These loops
 * stay loops (GCC must not turn them back into the calls they define). */
#include <stddef.h>

#define GUEST_STR \
	__attribute__((visibility("hidden"), optimize("no-tree-loop-distribute-patterns")))

GUEST_STR size_t strlen(const char *s);
GUEST_STR size_t strlen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

GUEST_STR int strcmp(const char *a, const char *b);
GUEST_STR int strcmp(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return (unsigned char)*a - (unsigned char)*b;
}

GUEST_STR int strncmp(const char *a, const char *b, size_t n);
GUEST_STR int strncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++)
		if (*a != *b || !*a)
			return (unsigned char)*a - (unsigned char)*b;
	return 0;
}

GUEST_STR char *strchr(const char *s, int c);
GUEST_STR char *strchr(const char *s, int c)
{
	for (;; s++) {
		if (*s == (char)c)
			return (char *)s;
		if (!*s)
			return NULL;
	}
}

GUEST_STR char *strrchr(const char *s, int c);
GUEST_STR char *strrchr(const char *s, int c)
{
	const char *last = NULL;

	for (;; s++) {
		if (*s == (char)c)
			last = s;
		if (!*s)
			return (char *)last;
	}
}

GUEST_STR void *memchr(const void *s, int c, size_t n);
GUEST_STR void *memchr(const void *s, int c, size_t n)
{
	const unsigned char *p = s;

	for (; n; n--, p++)
		if (*p == (unsigned char)c)
			return (void *)p;
	return NULL;
}

GUEST_STR int memcmp(const void *a, const void *b, size_t n);
GUEST_STR int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;

	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x - *y;
	return 0;
}

GUEST_STR void *memmove(void *dst, const void *src, size_t n);
GUEST_STR void *memmove(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if (d < s)
		for (size_t i = 0; i < n; i++)
			d[i] = s[i];
	else
		for (size_t i = n; i; i--)
			d[i - 1] = s[i - 1];
	return dst;
}

GUEST_STR void *memcpy(void *dst, const void *src, size_t n);
GUEST_STR void *memcpy(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	for (size_t i = 0; i < n; i++)
		d[i] = s[i];
	return dst;
}

GUEST_STR void *memset(void *dst, int c, size_t n);
GUEST_STR void *memset(void *dst, int c, size_t n)
{
	unsigned char *d = dst;

	for (size_t i = 0; i < n; i++)
		d[i] = (unsigned char)c;
	return dst;
}
