/* str.c - the guest's own string functions (hidden: the guest's calls bind to them,
 * nothing else sees them).
 *
 * A fork child faults in every page of libc's code it runs for the first time, and
 * libc's string functions lie on pages of their own (one per variant): the exec
 * check of a shell's child touched four of them for a few short strings. These work
 * a word at a time (aligned reads past a string's end stay in its last word, so in
 * its page), and stay loops: GCC must not turn them back into the calls they define. */
#include <stddef.h>
#include <stdint.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "guard.h"

#define GUEST_STR \
	__attribute__((visibility("hidden"), optimize("no-tree-loop-distribute-patterns")))

#define ONES 0x0101010101010101ull

GUEST_STR size_t strlen(const char *s);
GUEST_STR size_t strlen(const char *s)
{
	return guard_strnlen(s, SIZE_MAX);
}

GUEST_STR void *memcpy(void *dst, const void *src, size_t n);
GUEST_STR void *memcpy(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;
	uint64_t a, b;
	uint32_t x, y;

	/* whole blocks, then the last block ending at n (overlapping the one before) */
#if defined(__SSE2__)
	if (n >= 16) {
		__m128i last = _mm_loadu_si128((const __m128i *)(const void *)(s + n - 16));

		for (size_t i = 0; i + 16 < n; i += 16)
			_mm_storeu_si128((__m128i *)(void *)(d + i),
					 _mm_loadu_si128((const __m128i *)(const void *)(s + i)));
		_mm_storeu_si128((__m128i *)(void *)(d + n - 16), last);
		return dst;
	}
#else
	if (n >= 16) {
		size_t i = 0;

		__builtin_memcpy(&b, s + n - 8, 8);
		for (; i + 8 < n; i += 8) {
			__builtin_memcpy(&a, s + i, 8);
			__builtin_memcpy(d + i, &a, 8);
		}
		__builtin_memcpy(d + n - 8, &b, 8);
		return dst;
	}
#endif
	if (n >= 8) {
		__builtin_memcpy(&a, s, 8);
		__builtin_memcpy(&b, s + n - 8, 8);
		__builtin_memcpy(d, &a, 8);
		__builtin_memcpy(d + n - 8, &b, 8);
	} else if (n >= 4) {
		__builtin_memcpy(&x, s, 4);
		__builtin_memcpy(&y, s + n - 4, 4);
		__builtin_memcpy(d, &x, 4);
		__builtin_memcpy(d + n - 4, &y, 4);
	} else {
		for (size_t i = 0; i < n; i++)
			d[i] = s[i];
	}
	return dst;
}

GUEST_STR void *memmove(void *dst, const void *src, size_t n);
GUEST_STR void *memmove(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;
	uint64_t w;

	if (d == s || !n)
		return dst;
	if (d < s) { /* forward: a chunk is read before the bytes it overwrites */
		size_t i = 0;

		for (; i + 8 <= n; i += 8) {
			__builtin_memcpy(&w, s + i, 8);
			__builtin_memcpy(d + i, &w, 8);
		}
		for (; i < n; i++)
			d[i] = s[i];
	} else {
		size_t i = n;

		for (; i >= 8; i -= 8) {
			__builtin_memcpy(&w, s + i - 8, 8);
			__builtin_memcpy(d + i - 8, &w, 8);
		}
		for (; i; i--)
			d[i - 1] = s[i - 1];
	}
	return dst;
}

GUEST_STR void *memset(void *dst, int c, size_t n);
GUEST_STR void *memset(void *dst, int c, size_t n)
{
	unsigned char *d = dst;
	uint64_t w = ONES * (unsigned char)c;
	size_t i = 0;

	for (; i + 8 <= n; i += 8)
		__builtin_memcpy(d + i, &w, 8);
	for (; i < n; i++)
		d[i] = (unsigned char)c;
	return dst;
}

GUEST_STR int memcmp(const void *a, const void *b, size_t n);
GUEST_STR int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t u, v;

		__builtin_memcpy(&u, x + i, 8);
		__builtin_memcpy(&v, y + i, 8);
		if (u != v)
			break;
	}
	for (; i < n; i++)
		if (x[i] != y[i])
			return x[i] - y[i];
	return 0;
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
