/* resolve_memo.c - one readlink() per folder in a pass of canonical paths: the memo
 * pol_paths_ready() keeps while it resolves every path rule's folders (not linked into
 * the preload's guest, which resolves one path at a time with pol_path_resolve). */
#include "dcg_policy.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

/* What one pass of pol_rule_canon_path() over the rules found of each folder it asked
 * readlink() about: most rules share their first folders (the home and its parents,
 * /etc, /usr), and asking again gives the same answer (a folder that changes while one
 * pass runs could as well have changed just after it). A hash picks the slot, the
 * whole path is compared; when the table is full, readlink() is asked as before.
 * A folder asked about for MEMO_LIST_AFTER of its entries (the home: some thirty dot
 * files and folders, most of them missing) is listed instead, once: each entry it
 * holds is known to be a link or not, and a name it does not hold is missing, as
 * readlink() would have said. A folder of more than MEMO_LIST_MAX entries, or one
 * that cannot be read, is not listed. */
#define MEMO_MAX	256
#define MEMO_SLOTS	512 /* a power of two, twice MEMO_MAX */
#define MEMO_LIST_AFTER 8
#define MEMO_LIST_MAX	256
enum { M_PLAIN, M_FAILED, M_LISTED, M_ASK }; /* M_LISTED: plain, every entry known */
struct pol_resolve_memo {
	uint32_t n, used;
	uint16_t slot[MEMO_SLOTS]; /* entry + 1, 0: empty */
	uint32_t off[MEMO_MAX];
	uint16_t len[MEMO_MAX];
	unsigned char state[MEMO_MAX];
	unsigned char asked[MEMO_MAX]; /* a folder's entries asked about, up to 255 */
	const char *first;	       /* a folder listed at the first entry asked (or NULL) */
	size_t first_len;
	/* the paths, one after the other: pages are touched as it fills */
	char text[16384 - MEMO_SLOTS * 2 - MEMO_MAX * 8 - 8 - 16];
};

struct pol_resolve_memo *pol_resolve_memo_new(void)
{
	struct pol_resolve_memo *m = malloc(sizeof(*m));

	if (m) {
		m->n = m->used = 0;
		m->first = NULL;
		memset(m->slot, 0, sizeof(m->slot));
	}
	return m;
}

void pol_resolve_memo_list_first(struct pol_resolve_memo *m, const char *dir)
{
	if (m && dir && dir[0] == '/') {
		m->first = dir;
		m->first_len = strlen(dir);
	}
}

void pol_resolve_memo_free(struct pol_resolve_memo *m)
{
	free(m);
}

/* The slot of path in m: its entry's, or the empty one where it would go. */
static size_t memo_slot(const struct pol_resolve_memo *m, const char *path, size_t len)
{
	/* the slot from the length and the last 8 bytes (folders differ at their end):
	 * two that share them only probe further */
	uint64_t tail = 0;

	if (len >= 8)
		memcpy(&tail, path + len - 8, 8);
	else
		for (size_t i = 0; i < len; i++)
			tail = tail << 8 | (unsigned char)path[i];
	size_t h = (size_t)(((tail ^ len) * 0x9e3779b97f4a7c15ull) >> 54);
	for (size_t k = h & (MEMO_SLOTS - 1);; k = (k + 1) & (MEMO_SLOTS - 1)) {
		unsigned e = m->slot[k];
		if (!e || (m->len[e - 1] == len && !memcmp(m->text + m->off[e - 1], path, len)))
			return k;
	}
}

/* The entry of path, or -1. */
static int memo_find(const struct pol_resolve_memo *m, const char *path, size_t len)
{
	return (int)m->slot[memo_slot(m, path, len)] - 1;
}

/* Adds path (not there yet) in state st: 0, or -1 when full. */
static int memo_put(struct pol_resolve_memo *m, const char *path, size_t len, int st)
{
	size_t k;

	if (m->n == MEMO_MAX || len > UINT16_MAX || len > sizeof(m->text) - m->used)
		return -1;
	k = memo_slot(m, path, len);
	if (m->slot[k])
		return 0;
	if (path != m->text + m->used) /* memo_list() builds it there */
		memcpy(m->text + m->used, path, len);
	m->off[m->n] = m->used;
	m->len[m->n] = (uint16_t)len;
	m->state[m->n] = (unsigned char)st;
	m->asked[m->n++] = 0;
	m->slot[k] = (uint16_t)m->n;
	m->used += (uint32_t)len;
	return 0;
}

/* Lists folder dir (entry e of m, dlen bytes, not NUL-terminated) into m: each entry a
 * link or unknown kind (readlink asks it) or not a link; e then says that what it does
 * not hold is missing. Nothing is marked when it cannot be read whole. */
static void memo_list(struct pol_resolve_memo *m, int e, const char *dir, size_t dlen)
{
	/* each path is built where memo_put() keeps it, past the paths kept so far (dir is
	 * the walk's, not the memo's): no PATH_MAX buffer, a heap page nothing else writes */
	char *buf = malloc(8192), *path = m->text + m->used;
	size_t got = 0, n = 0, plen = dlen + (dlen > 1);
	ssize_t r;
	int fd = -1, ok = 0;

	if (!buf || dlen + 2 >= PATH_MAX || dlen + 1 > sizeof(m->text) - m->used)
		goto out;
	memcpy(path, dir, dlen);
	path[dlen] = '\0';
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		goto out;
	/* the whole folder in one buffer, or not at all */
	while ((r = getdents64(fd, buf + got, 8192 - got)) > 0)
		got += (size_t)r;
	if (r < 0 || got == 8192)
		goto out;
	for (size_t o = 0; o < got; o += ((struct dirent64 *)(void *)(buf + o))->d_reclen)
		n++;
	if (n > MEMO_LIST_MAX + 2)
		goto out;
	ok = 1;
	for (size_t o = 0; o < got && ok; o += ((struct dirent64 *)(void *)(buf + o))->d_reclen) {
		const struct dirent64 *d = (const void *)(buf + o);
		size_t nl = strlen(d->d_name);

		if ((nl == 1 && d->d_name[0] == '.') ||
		    (nl == 2 && d->d_name[0] == '.' && d->d_name[1] == '.'))
			continue;
		if (plen + nl >= PATH_MAX || plen + nl > sizeof(m->text) - m->used) {
			ok = 0;
			break;
		}
		path = m->text + m->used;
		memcpy(path, dir, dlen);
		path[dlen] = '/'; /* overwritten by the name under "/" */
		memcpy(path + plen, d->d_name, nl);
		ok =
		    memo_put(m, path, plen + nl,
			     d->d_type == DT_LNK || d->d_type == DT_UNKNOWN ? M_ASK : M_PLAIN) == 0;
	}
out:
	if (fd >= 0)
		close(fd);
	/* a folder that could not be listed is not tried again */
	m->state[e] = ok ? M_LISTED : m->state[e];
	m->asked[e] = 255;
	free(buf);
}

/* readlink(out) through m: out holds olen bytes, its folder the first plen. */
static ssize_t memo_readlink(void *ctx, const char *out, size_t olen, size_t plen, char *link,
			     size_t size)
{
	struct pol_resolve_memo *m = ctx;
	int e, pe;
	ssize_t n;

	/* the folder most rules name entries of (the home): listed before its first entry
	 * is asked about, not after MEMO_LIST_AFTER of them */
	if (m->first && plen == m->first_len && !memcmp(out, m->first, plen)) {
		pe = memo_find(m, out, plen);
		if (pe >= 0 && m->state[pe] == M_PLAIN && m->asked[pe] < 255)
			memo_list(m, pe, out, plen);
	}
	e = memo_find(m, out, olen);
	if (e >= 0 && m->state[e] != M_ASK) {
		errno = m->state[e] == M_FAILED ? ENOENT : EINVAL;
		return -1;
	}
	if (e >= 0) /* a link (or of an unknown kind) its folder's listing holds */
		return readlink(out, link, size);
	pe = plen > 1 ? memo_find(m, out, plen) : -1;
	if (pe >= 0 && m->state[pe] == M_LISTED) { /* not in its folder */
		memo_put(m, out, olen, M_FAILED);
		errno = ENOENT;
		return -1;
	}
	n = readlink(out, link, size);
	if (n >= 0)
		return n; /* a link is not kept: its target is walked again each time */
	int err = errno;
	memo_put(m, out, olen, err != EINVAL ? M_FAILED : M_PLAIN);
	if (pe >= 0 && m->state[pe] == M_PLAIN && m->asked[pe] < 255 &&
	    ++m->asked[pe] == MEMO_LIST_AFTER)
		memo_list(m, pe, out, plen);
	errno = err;
	return -1;
}

int pol_path_resolve_memo(const char *abs_path, int nofollow, char *out, size_t size,
			  struct pol_resolve_memo *m)
{
	if (!m)
		return pol_path_resolve(abs_path, nofollow, out, size);
	return pol_path_resolve_with(abs_path, nofollow, out, size, memo_readlink, m);
}
