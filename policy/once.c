/* once.c - allow-once codes: the offers, the grants and their uses (dcg_policy.h).
 *
 * Both files are lines of space-separated fields; a folder and a command are hex, so a
 * line never holds a space or a newline of its own. The runtime side (offer, use) reads
 * a file through one read-only mapping and writes one line with one write() on an
 * O_APPEND descriptor: no stdio, no malloc but pol_mem_alloc(), no lock but the
 * kernel's flock() on the grants file, so the preload may call it between fork and
 * exec. */
#include "dcg_policy.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

static const char once_alphabet[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
static const char hexd[] = "0123456789abcdef";

/* ---- paths ------------------------------------------------------------------------------ */

int pol_once_path(enum pol_once_file which, char *buf, size_t size)
{
	char *slash;
	int rc = pol_trust_path(buf, size);

	if (rc < 0)
		return rc;
	slash = pol_last_slash(buf);
	if (!slash)
		return -ENOENT;
	slash[1] = '\0';
	if (pol_cat3(buf, size, buf, which == POL_ONCE_GRANTS ? "once-grants" : "once-codes", "") >=
	    size)
		return -ENAMETOOLONG;
	return 0;
}

int pol_once_folder(const char *cwd, char *out, size_t size)
{
	char norm[PATH_MAX], probe[PATH_MAX + 8];
	struct stat st;
	size_t n;

	if (!cwd || cwd[0] != '/' || pol_path_normalize(cwd, "/", NULL, norm, sizeof(norm)) < 0)
		return -EINVAL;
	for (n = strlen(norm); n > 0;) {
		memcpy(probe, norm, n);
		memcpy(probe + (n == 1 ? 0 : n), "/.git", 6);
		if (lstat(probe, &st) == 0) {
			if (n + 1 > size)
				return -ENAMETOOLONG;
			memcpy(out, norm, n);
			out[n] = '\0';
			return 0;
		}
		if (n == 1)
			break;
		while (n > 1 && norm[n - 1] != '/')
			n--;
		if (n > 1)
			n--; /* the slash, unless it is the root */
	}
	if (strlen(norm) + 1 > size)
		return -ENAMETOOLONG;
	memcpy(out, norm, strlen(norm) + 1);
	return 0;
}

int pol_once_offerable(const struct pol_policy *p, const struct pol_result *r)
{
	ssize_t k;

	if (!p || !r || r->decision != POL_DENY || !r->rule_id || r->detection == POL_DET_SCOPE)
		return 0;
	if (pol_rule_guards_dcg(r->rule_id))
		return 0;
	k = pol_rule_find(p, r->rule_id);
	return k < 0 || !pol_rules(p)[k].guarded;
}

/* ---- fields ------------------------------------------------------------------------------ */

/* A line of a mapped file: [s, e) without its newline, split into fields. */
#define ONCE_FIELDS 9
struct once_line {
	const char *f[ONCE_FIELDS];
	size_t n[ONCE_FIELDS];
	size_t count;
};

static void split_line(const char *s, const char *e, struct once_line *l)
{
	l->count = 0;
	while (s < e && l->count < ONCE_FIELDS) {
		const char *sp = memchr(s, ' ', (size_t)(e - s));
		const char *end = sp ? sp : e;

		l->f[l->count] = s;
		l->n[l->count++] = (size_t)(end - s);
		s = sp ? sp + 1 : e;
	}
}

static int field_is(const struct once_line *l, size_t i, const char *s)
{
	size_t n = strlen(s);

	return i < l->count && l->n[i] == n && !memcmp(l->f[i], s, n);
}

static long long field_num(const struct once_line *l, size_t i)
{
	long long v = 0;

	for (size_t k = 0; i < l->count && k < l->n[i] && k < 19; k++) {
		if (l->f[i][k] < '0' || l->f[i][k] > '9')
			return -1;
		v = v * 10 + (l->f[i][k] - '0');
	}
	return v;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Does hex field i hold exactly the bytes s[0..n)? */
static int hex_equals(const struct once_line *l, size_t i, const char *s, size_t n)
{
	if (i >= l->count || l->n[i] != 2 * n)
		return 0;
	for (size_t k = 0; k < n; k++) {
		int hi = hexval(l->f[i][2 * k]), lo = hexval(l->f[i][2 * k + 1]);

		if (hi < 0 || lo < 0 || (unsigned char)s[k] != (unsigned)(hi << 4 | lo))
			return 0;
	}
	return 1;
}

/* Is a separator of shell words at byte c (or the command's edge)? */
static int word_edge(int c)
{
	return c < 0 || c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' || c == '|' ||
	       c == '(' || c == ')' || c == '`' || c == '{' || c == '}';
}

/* Does hex field i hold s[0..n) as whole words (a program the command runs)? */
static int hex_holds_words(const struct once_line *l, size_t i, const char *s, size_t n)
{
	size_t total = i < l->count ? l->n[i] / 2 : 0;

	for (size_t at = 0; n && at + n <= total; at++) {
		size_t k = 0;
		int before = -1, after = -1;

		while (k < n) {
			const char *h = l->f[i] + 2 * (at + k);
			if ((unsigned char)s[k] != (unsigned)(hexval(h[0]) << 4 | hexval(h[1])))
				break;
			k++;
		}
		if (k < n)
			continue;
		if (at > 0)
			before = hexval(l->f[i][2 * at - 2]) << 4 | hexval(l->f[i][2 * at - 1]);
		if (at + n < total)
			after =
			    hexval(l->f[i][2 * (at + n)]) << 4 | hexval(l->f[i][2 * (at + n) + 1]);
		if (word_edge(before) && word_edge(after))
			return 1;
	}
	return 0;
}

/* ---- a mapped file ----------------------------------------------------------------------- */

struct once_map {
	const char *s;
	size_t len;
};

/* Maps fd's content read-only (len 0: nothing mapped). 0 or a negative errno. */
static int map_fd(int fd, struct once_map *m)
{
	struct stat st;
	void *a;

	m->s = NULL;
	m->len = 0;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if (st.st_size == 0)
		return 0;
	if ((unsigned long long)st.st_size > POL_ONCE_FILE_MAX)
		return -EFBIG;
	a = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (a == MAP_FAILED)
		return -errno;
	m->s = a;
	m->len = (size_t)st.st_size;
	return 0;
}

static void unmap(struct once_map *m)
{
	if (m->s)
		munmap((void *)m->s, m->len);
	m->s = NULL;
}

/* Calls fn on each whole line (a last line without its newline is not one yet). */
static void each_line(const struct once_map *m, void (*fn)(const struct once_line *, void *),
		      void *arg)
{
	const char *s = m->s, *end = m->s + m->len;

	while (s && s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		struct once_line l;

		if (!nl)
			break;
		split_line(s, nl, &l);
		fn(&l, arg);
		s = nl + 1;
	}
}

/* Appends one line: one write() on an O_APPEND descriptor. 0 or a negative errno. */
static int append_all(int fd, const char *s, size_t n)
{
	ssize_t w = write(fd, s, n);

	if (w < 0)
		return -errno;
	return (size_t)w == n ? 0 : -EIO;
}

/* Opens path to append, making it and its missing folders (mode 0700). */
static int open_append(const char *path)
{
	char dir[PATH_MAX];
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);

	if (fd >= 0 || errno != ENOENT)
		return fd;
	pol_copy_str(dir, sizeof(dir), path);
	for (char *sl = strchr(dir + 1, '/'); sl; sl = strchr(sl + 1, '/')) {
		*sl = '\0';
		if (mkdir(dir, 0700) < 0 && errno != EEXIST)
			return -1;
		*sl = '/';
	}
	return open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
}

/* Builds "TAG CODE A B RULE FOLDERHEX CMDHEX\n" in memory from pol_mem_alloc(). */
static char *record_line(const char *head, const char *folder, const char *cmd, size_t len,
			 size_t *out_len)
{
	size_t hl = strlen(head), fl = strlen(folder);
	size_t n = hl + 1 + 2 * fl + 1 + 2 * len + 2, o = 0;
	char *b = pol_mem_alloc(n);

	if (!b)
		return NULL;
	memcpy(b, head, hl);
	o = hl;
	b[o++] = ' ';
	for (size_t k = 0; k < fl; k++) {
		b[o++] = hexd[(unsigned char)folder[k] >> 4];
		b[o++] = hexd[(unsigned char)folder[k] & 15];
	}
	b[o++] = ' ';
	for (size_t k = 0; k < len; k++) {
		b[o++] = hexd[(unsigned char)cmd[k] >> 4];
		b[o++] = hexd[(unsigned char)cmd[k] & 15];
	}
	b[o++] = '\n';
	*out_len = o;
	return b;
}

/* Decimal digits of v into out (at least 21 bytes); returns out. */
static char *num_str(long long v, char *out)
{
	char t[24];
	size_t n = 0, o = 0;

	if (v < 0)
		v = 0;
	do {
		t[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v && n < sizeof(t));
	while (n)
		out[o++] = t[--n];
	out[o] = '\0';
	return out;
}

/* ---- offers ----------------------------------------------------------------------------- */

struct offer_scan {
	const char *folder, *cmd;
	size_t len;
	time_t now;
	char *code;
	int found;
};

static void offer_line(const struct once_line *l, void *arg)
{
	struct offer_scan *o = arg; /* the latest offer wins: an older one may be spent */
	long long created = field_num(l, 2);

	if (l->count < 6 || !field_is(l, 0, "C") || l->n[1] != POL_ONCE_CODE_CHARS || created < 0 ||
	    created + POL_ONCE_OFFER_TTL <= o->now ||
	    !hex_equals(l, 4, o->folder, strlen(o->folder)) || !hex_equals(l, 5, o->cmd, o->len))
		return;
	memcpy(o->code, l->f[1], POL_ONCE_CODE_CHARS);
	o->code[POL_ONCE_CODE_CHARS] = '\0';
	o->found = 1;
}

static void spent_line(const struct once_line *l, void *arg)
{
	struct offer_scan *o = arg;

	if ((field_is(l, 0, "G") || field_is(l, 0, "X")) &&
	    (field_is(l, 1, o->code) || (field_is(l, 0, "X") && field_is(l, 1, "*"))))
		o->found = 1;
}

/* Has code been redeemed or revoked (a G or X line in the grants)? */
static int code_spent(char *code)
{
	char path[PATH_MAX];
	struct offer_scan o = {NULL, NULL, 0, 0, code, 0};
	struct once_map m;
	int fd;

	if (pol_once_path(POL_ONCE_GRANTS, path, sizeof(path)) < 0 ||
	    (fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
		return 0;
	if (map_fd(fd, &m) == 0) {
		each_line(&m, spent_line, &o);
		unmap(&m);
	}
	close(fd);
	return o.found;
}

/* A new code: 40 bits of getrandom(), 5 bits a character. */
static int new_code(char code[12])
{
	unsigned char r[5];
	unsigned long long v = 0;
	ssize_t got = getrandom(r, sizeof(r), 0);

	if (got != (ssize_t)sizeof(r))
		return got < 0 ? -errno : -EIO;
	for (size_t i = 0; i < sizeof(r); i++)
		v = v << 8 | r[i];
	for (int i = POL_ONCE_CODE_CHARS - 1; i >= 0; i--) {
		code[i] = once_alphabet[v & 31];
		v >>= 5;
	}
	code[POL_ONCE_CODE_CHARS] = '\0';
	return 0;
}

/* The rule ID as a field: its own characters, never a space or a newline. */
static int rule_ok(const char *id)
{
	size_t n = id ? strlen(id) : 0;

	if (!n || n >= 128)
		return 0;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)id[i] <= ' ' || id[i] == 0x7f)
			return 0;
	return 1;
}

int pol_once_offer(const char *folder, const char *cmd, size_t len, const char *rule_id, time_t now,
		   char code[12])
{
	char path[PATH_MAX], head[200], t[24];
	struct offer_scan o = {folder, cmd, len, now ? now : time(NULL), code, 0};
	struct once_map m = {NULL, 0};
	size_t n;
	char *line;
	int fd, rc;

	code[0] = '\0';
	if (!folder || folder[0] != '/' || !cmd || !len || len > POL_ONCE_CMD_MAX ||
	    !rule_ok(rule_id))
		return -EINVAL;
	if ((rc = pol_once_path(POL_ONCE_CODES, path, sizeof(path))) < 0)
		return rc;
	/* read, then append through another descriptor: under dcg sandbox a tracee may
	 * only append to this file, as to the audit log */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd >= 0 && map_fd(fd, &m) == 0) {
		each_line(&m, offer_line, &o);
		unmap(&m);
	}
	if (fd >= 0)
		close(fd);
	if (o.found && code_spent(code))
		o.found = 0; /* redeemed or revoked: a new code */
	if (o.found)
		return 0;
	fd = open_append(path);
	if (fd < 0)
		return -errno;
	if ((rc = new_code(code)) < 0) {
		close(fd);
		return rc;
	}
	pol_cat3(head, sizeof(head), "C ", code, " ");
	pol_cat3(head, sizeof(head), head, num_str((long long)o.now, t), " ");
	pol_cat3(head, sizeof(head), head, rule_id, "");
	line = record_line(head, folder, cmd, len, &n);
	rc = line ? append_all(fd, line, n) : -ENOMEM;
	if (line)
		pol_mem_free(line);
	close(fd);
	if (rc < 0)
		code[0] = '\0';
	return rc;
}

/* ---- uses ----------------------------------------------------------------------------------- */

#define ONCE_CANDIDATES 8

struct use_cand {
	char code[POL_ONCE_CODE_CHARS];
	long long expires;
	unsigned uses, hooks, execs, follows;
	long long last_hook;
	int exact, revoked;
};

struct use_scan {
	const char *folder, *cmd;
	size_t len;
	time_t now;
	int exec;
	struct use_cand c[ONCE_CANDIDATES];
	size_t n;
	int all_revoked;
};

static struct use_cand *cand_of(struct use_scan *u, const struct once_line *l)
{
	for (size_t i = 0; i < u->n; i++)
		if (l->n[1] == POL_ONCE_CODE_CHARS &&
		    !memcmp(u->c[i].code, l->f[1], POL_ONCE_CODE_CHARS))
			return &u->c[i];
	return NULL;
}

static void use_line(const struct once_line *l, void *arg)
{
	struct use_scan *u = arg;
	struct use_cand *c;

	if (l->count >= 8 && field_is(l, 0, "G")) {
		int exact = hex_equals(l, 7, u->cmd, u->len);

		if (u->n == ONCE_CANDIDATES || l->n[1] != POL_ONCE_CODE_CHARS ||
		    !hex_equals(l, 6, u->folder, strlen(u->folder)) ||
		    !(exact || (u->exec && hex_holds_words(l, 7, u->cmd, u->len))) || cand_of(u, l))
			return;
		c = &u->c[u->n++];
		memset(c, 0, sizeof(*c));
		memcpy(c->code, l->f[1], POL_ONCE_CODE_CHARS);
		c->expires = field_num(l, 2);
		c->uses = (unsigned)field_num(l, 3);
		c->exact = exact;
		c->revoked = u->all_revoked;
	} else if (l->count >= 2 && field_is(l, 0, "X")) {
		if (field_is(l, 1, "*")) {
			u->all_revoked = 1;
			for (size_t i = 0; i < u->n; i++)
				u->c[i].revoked = 1;
		} else if ((c = cand_of(u, l))) {
			c->revoked = 1;
		}
	} else if (l->count >= 4 && field_is(l, 0, "U") && (c = cand_of(u, l))) {
		if (field_is(l, 2, "h")) {
			c->hooks++;
			c->last_hook = field_num(l, 3);
		} else if (field_is(l, 2, "e")) {
			c->execs++;
		} else if (field_is(l, 2, "f")) {
			c->follows++;
		}
	}
}

/* Which candidate lets the call pass, and how ('h', 'e' or 'f'); NULL: none. */
static struct use_cand *use_pick(struct use_scan *u, char *how)
{
	for (size_t i = 0; i < u->n; i++) {
		struct use_cand *c = &u->c[i];

		if (c->revoked || c->expires <= (long long)u->now)
			continue;
		if (u->exec && c->hooks && c->follows < c->hooks * POL_ONCE_FOLLOWS &&
		    c->last_hook + POL_ONCE_FOLLOW_SECS > (long long)u->now) {
			*how = 'f';
			return c;
		}
		if (c->exact && c->hooks + c->execs < c->uses) {
			*how = u->exec ? 'e' : 'h';
			return c;
		}
	}
	return NULL;
}

/* Opens the grants file locked; a file replaced meanwhile (compacted) is opened again. */
static int open_grants_locked(const char *path, int write)
{
	for (int tries = 0; tries < 4; tries++) {
		struct stat st;
		int fd =
		    open(path, (write ? O_RDWR | O_APPEND : O_RDONLY) | O_CLOEXEC | O_NOFOLLOW);

		if (fd < 0)
			return -errno;
		if (flock(fd, write ? LOCK_EX : LOCK_SH) < 0 || fstat(fd, &st) < 0) {
			int rc = -errno;
			close(fd);
			return rc;
		}
		if (st.st_nlink > 0)
			return fd;
		close(fd);
	}
	return -EAGAIN;
}

int pol_once_use(const char *folder, const char *cmd, size_t len, enum pol_once_use kind, int dry,
		 time_t now)
{
	char path[PATH_MAX], line[64], t[24];
	struct use_scan u;
	struct once_map m;
	struct use_cand *c;
	char how = 0;
	int fd, rc;

	if (!folder || !cmd || !len || len > POL_ONCE_CMD_MAX)
		return 0;
	if ((rc = pol_once_path(POL_ONCE_GRANTS, path, sizeof(path))) < 0)
		return rc == -ENOENT ? 0 : rc;
	fd = open_grants_locked(path, !dry);
	if (fd < 0)
		return fd == -ENOENT ? 0 : fd;
	memset(&u, 0, sizeof(u));
	u.folder = folder;
	u.cmd = cmd;
	u.len = len;
	u.now = now ? now : time(NULL);
	u.exec = kind == POL_ONCE_USE_EXEC;
	if ((rc = map_fd(fd, &m)) < 0)
		goto out;
	each_line(&m, use_line, &u);
	unmap(&m);
	c = use_pick(&u, &how);
	rc = c != NULL;
	if (!c || dry)
		goto out;
	memcpy(line, "U ", 2);
	memcpy(line + 2, c->code, POL_ONCE_CODE_CHARS);
	line[2 + POL_ONCE_CODE_CHARS] = ' ';
	line[3 + POL_ONCE_CODE_CHARS] = how;
	line[4 + POL_ONCE_CODE_CHARS] = '\0';
	pol_cat3(line, sizeof(line), line, " ", num_str((long long)u.now, t));
	pol_cat3(line, sizeof(line), line, "\n", "");
	if (append_all(fd, line, strlen(line)) < 0)
		rc = -EIO;
out:
	close(fd);
	return rc;
}

enum pol_decision pol_once_exec(const struct pol_policy *p, const char *cmd, const char *cwd,
				int dry, struct pol_result *r, enum pol_decision d)
{
	char folder[PATH_MAX];
	enum pol_decision keep = r->decision;
	size_t len = cmd ? strlen(cmd) : 0;
	int ok;

	if (d < POL_ASK || !cwd || !len || pol_once_folder(cwd, folder, sizeof(folder)) < 0)
		return d;
	r->decision = POL_DENY; /* what a code is offered for */
	ok = pol_once_offerable(p, r);
	r->decision = keep;
	if (!ok)
		return d;
	if (pol_once_use(folder, cmd, len, POL_ONCE_USE_EXEC, dry, 0) == 1) {
		r->decision = POL_ALLOW;
		r->allowed_by_once = 1;
		return POL_ALLOW;
	}
	if (d == POL_DENY)
		pol_once_offer(folder, cmd, len, r->rule_id, 0, r->once_code);
	return d;
}

/* ---- the command line's side: listing, granting, revoking ------------------------------------ */

int pol_once_code_parse(const char *in, char code[12])
{
	size_t n = 0;

	for (const char *c = in; c && *c; c++) {
		char u = (*c >= 'a' && *c <= 'z') ? (char)(*c - 32) : *c;

		if (u == '-' || u == ' ')
			continue;
		if (u == 'I' || u == 'L')
			u = '1';
		else if (u == 'O')
			u = '0';
		if (!strchr(once_alphabet, u) || u == '\0' || n == POL_ONCE_CODE_CHARS)
			return -EINVAL;
		code[n++] = u;
	}
	code[n] = '\0';
	return n == POL_ONCE_CODE_CHARS ? 0 : -EINVAL;
}

static char *unhex(const char *h, size_t n, size_t *out_len)
{
	char *s = malloc(n / 2 + 1);

	if (!s)
		return NULL;
	for (size_t k = 0; k < n / 2; k++) {
		int hi = hexval(h[2 * k]), lo = hexval(h[2 * k + 1]);

		if (hi < 0 || lo < 0) {
			free(s);
			return NULL;
		}
		s[k] = (char)(hi << 4 | lo);
	}
	s[n / 2] = '\0';
	*out_len = n / 2;
	return s;
}

struct load_state {
	struct pol_once_entry *v;
	size_t n, cap;
	int oom, grants;
};

static struct pol_once_entry *entry_of(struct load_state *st, const struct once_line *l)
{
	for (size_t i = 0; i < st->n; i++)
		if (l->n[1] == POL_ONCE_CODE_CHARS &&
		    !memcmp(st->v[i].code, l->f[1], POL_ONCE_CODE_CHARS))
			return &st->v[i];
	return NULL;
}

/* A C or G line: a new entry (or the grant of an offered one). */
static void load_record_line(struct load_state *st, const struct once_line *l, int grant)
{
	size_t base = grant ? 2 : 0; /* G has EXPIRES USES before CREATED */
	struct pol_once_entry *e = entry_of(st, l);
	size_t fl;

	if (!e) {
		if (st->n == st->cap) {
			size_t cap = st->cap ? st->cap * 2 : 16;
			struct pol_once_entry *nv = realloc(st->v, cap * sizeof(*nv));
			if (!nv) {
				st->oom = 1;
				return;
			}
			st->v = nv;
			st->cap = cap;
		}
		e = &st->v[st->n];
		memset(e, 0, sizeof(*e));
		memcpy(e->code, l->f[1], POL_ONCE_CODE_CHARS);
		e->created = (time_t)field_num(l, 2 + base);
		e->expires = e->created + POL_ONCE_OFFER_TTL;
		snprintf(e->rule, sizeof(e->rule), "%.*s", (int)l->n[3 + base], l->f[3 + base]);
		e->folder = unhex(l->f[4 + base], l->n[4 + base], &fl);
		e->cmd = unhex(l->f[5 + base], l->n[5 + base], &e->cmd_len);
		if (!e->folder || !e->cmd) {
			free(e->folder);
			free(e->cmd);
			return; /* a damaged line */
		}
		st->n++;
	}
	if (grant && !e->granted) {
		e->granted = 1;
		e->expires = (time_t)field_num(l, 2);
		e->uses = (unsigned)field_num(l, 3);
	}
}

static void load_line(const struct once_line *l, void *arg)
{
	struct load_state *st = arg;
	struct pol_once_entry *e;

	if (st->oom || l->count < 2 || l->n[0] != 1)
		return;
	if (!st->grants && l->count >= 6 && l->f[0][0] == 'C' && l->n[1] == POL_ONCE_CODE_CHARS) {
		load_record_line(st, l, 0);
	} else if (st->grants && l->count >= 8 && l->f[0][0] == 'G' &&
		   l->n[1] == POL_ONCE_CODE_CHARS) {
		load_record_line(st, l, 1);
	} else if (st->grants && l->f[0][0] == 'X') {
		for (size_t i = 0; i < st->n; i++)
			if (field_is(l, 1, "*") || !memcmp(st->v[i].code, l->f[1], l->n[1]))
				st->v[i].revoked = 1;
	} else if (st->grants && l->f[0][0] == 'U' && l->count >= 4 && (e = entry_of(st, l))) {
		if (field_is(l, 2, "f"))
			e->follows++;
		else
			e->used++;
	}
}

static int load_file(enum pol_once_file which, struct load_state *st, int lock)
{
	char path[PATH_MAX];
	struct once_map m;
	int fd, rc = pol_once_path(which, path, sizeof(path));

	if (rc < 0)
		return rc;
	if (which == POL_ONCE_GRANTS && lock) {
		fd = open_grants_locked(path, 0);
	} else {
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			fd = -errno;
	}
	if (fd < 0)
		return fd == -ENOENT ? 0 : fd;
	rc = map_fd(fd, &m);
	if (rc == 0) {
		st->grants = which == POL_ONCE_GRANTS;
		each_line(&m, load_line, st);
		unmap(&m);
	}
	close(fd);
	return st->oom ? -ENOMEM : rc;
}

/* lock: take the grants' shared lock (not when the caller holds it exclusively). */
static int once_load(struct pol_once_entry **out, size_t *n, int lock)
{
	struct load_state st = {NULL, 0, 0, 0, 0};
	int rc = load_file(POL_ONCE_CODES, &st, lock);

	if (rc == 0)
		rc = load_file(POL_ONCE_GRANTS, &st, lock);
	if (rc < 0) {
		pol_once_list_release(st.v, st.n);
		*out = NULL;
		*n = 0;
		return rc;
	}
	*out = st.v;
	*n = st.n;
	return 0;
}

int pol_once_load(struct pol_once_entry **out, size_t *n)
{
	return once_load(out, n, 1);
}

void pol_once_list_release(struct pol_once_entry *e, size_t n)
{
	for (size_t i = 0; e && i < n; i++) {
		free(e[i].folder);
		free(e[i].cmd);
	}
	free(e);
}

/* Appends text to the grants file under its lock (made when missing). */
static int grants_append(const char *text, size_t n)
{
	char path[PATH_MAX];
	int fd, rc = pol_once_path(POL_ONCE_GRANTS, path, sizeof(path));

	if (rc < 0)
		return rc;
	fd = open_append(path);
	if (fd < 0)
		return -errno;
	close(fd);
	fd = open_grants_locked(path, 1);
	if (fd < 0)
		return fd;
	rc = append_all(fd, text, n);
	close(fd);
	return rc;
}

int pol_once_grant(const struct pol_once_entry *e, time_t expires, unsigned uses)
{
	char head[256];
	size_t n;
	char *line;
	int rc;

	if (!e || !e->folder || !e->cmd || !rule_ok(e->rule) || !uses || uses > POL_ONCE_USES_MAX)
		return -EINVAL;
	snprintf(head, sizeof(head), "G %s %lld %u %lld %s", e->code, (long long)expires, uses,
		 (long long)e->created, e->rule);
	line = record_line(head, e->folder, e->cmd, e->cmd_len, &n);
	if (!line)
		return -ENOMEM;
	rc = grants_append(line, n);
	pol_mem_free(line);
	return rc;
}

int pol_once_revoke(const char *code)
{
	char line[32];

	snprintf(line, sizeof(line), "X %s\n", code ? code : "*");
	return grants_append(line, strlen(line));
}

/* Is a C or G line's code still of use (an offer not expired, not revoked, not granted
 * and used up)? */
static int entry_live(const struct pol_once_entry *e, time_t now)
{
	return !e->revoked && e->expires > now && (!e->granted || e->used < e->uses);
}

struct compact_state {
	const struct pol_once_entry *v;
	size_t n;
	time_t now;
	FILE *out;
};

static void compact_line(const struct once_line *l, void *arg)
{
	struct compact_state *cs = arg;
	const struct pol_once_entry *e = NULL;

	if (l->count < 2)
		return;
	for (size_t i = 0; i < cs->n && !e; i++)
		if (l->n[1] == POL_ONCE_CODE_CHARS &&
		    !memcmp(cs->v[i].code, l->f[1], POL_ONCE_CODE_CHARS))
			e = &cs->v[i];
	if (!e || !entry_live(e, cs->now))
		return; /* and every X line: what they revoked goes with them */
	for (size_t k = 0; k < l->count; k++)
		fprintf(cs->out, "%s%.*s", k ? " " : "", (int)l->n[k], l->f[k]);
	fputc('\n', cs->out);
}

/* Rewrites one file with the lines of live entries only (fd: its descriptor, locked). */
static int compact_file(enum pol_once_file which, int fd, const struct compact_state *base)
{
	char path[PATH_MAX];
	struct compact_state cs = *base;
	struct once_map m;
	char *text = NULL;
	size_t len = 0;
	int rc = pol_once_path(which, path, sizeof(path));

	if (rc < 0 || (rc = map_fd(fd, &m)) < 0)
		return rc;
	cs.out = open_memstream(&text, &len);
	if (!cs.out) {
		unmap(&m);
		return -ENOMEM;
	}
	each_line(&m, compact_line, &cs);
	unmap(&m);
	if (fclose(cs.out) != 0 || !text) {
		free(text);
		return -ENOMEM;
	}
	rc = pol_write_atomic(path, text, len, 0600);
	free(text);
	return rc;
}

int pol_once_compact(time_t now)
{
	char path[PATH_MAX];
	struct pol_once_entry *v;
	size_t n;
	int gfd, cfd, rc;

	if ((rc = pol_once_path(POL_ONCE_GRANTS, path, sizeof(path))) < 0)
		return rc;
	gfd = open_grants_locked(path, 1);
	if (gfd < 0)
		return gfd == -ENOENT ? 0 : gfd;
	rc = once_load(&v, &n, 0); /* under our exclusive lock */
	if (rc == 0) {
		struct compact_state cs = {v, n, now ? now : time(NULL), NULL};

		rc = compact_file(POL_ONCE_GRANTS, gfd, &cs);
		if (rc == 0 && pol_once_path(POL_ONCE_CODES, path, sizeof(path)) == 0 &&
		    (cfd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) >= 0) {
			rc = compact_file(POL_ONCE_CODES, cfd, &cs);
			close(cfd);
		}
		pol_once_list_release(v, n);
	}
	close(gfd);
	return rc;
}
