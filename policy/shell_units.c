/* shell_units.c - units out to the decision engine: repeated ones once, paths after
 * their command, variables expanded; strings that are shell code parsed again. */
#include "shell_int.h"

#include <errno.h>
#include <string.h>

/* ---- units ------------------------------------------------------------------------ */

/* Repeated units (a command line that runs the same command 100,000 times) are
 * decided once: the table of units already emitted opens after SH_DEDUP_AFTER units,
 * so that ordinary commands pay nothing for it. */
#define SH_DEDUP_AFTER POL_SHELL_DEDUP_AFTER
#define SH_DEDUP_SLOTS 4096

struct sh_seen {
	uint64_t h;
	const struct pol_unit *u; /* a copy in the arena */
};

static uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return h;
}

static uint64_t unit_hash(const struct pol_unit *u)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)u->kind;

	h = hash_bytes(h, u->text, u->len);
	switch (u->kind) {
	case POL_UNIT_COMMAND:
		h = hash_bytes(h, u->word_is_data, u->argc);
		h = hash_bytes(h, u->word_off, u->argc * sizeof(*u->word_off));
		break;
	case POL_UNIT_SCRIPT:
		h = hash_bytes(h, u->language, strlen(u->language));
		h = hash_bytes(h, &u->from_heredoc, sizeof(u->from_heredoc));
		break;
	case POL_UNIT_PATH:
		h = hash_bytes(h, &u->op, sizeof(u->op));
		h = hash_bytes(h, &u->is_dir_op, sizeof(u->is_dir_op));
		break;
	case POL_UNIT_FINDING:
		h = hash_bytes(h, u->rule_id, strlen(u->rule_id));
		break;
	}
	return h;
}

static int unit_same(const struct pol_unit *a, const struct pol_unit *b)
{
	if (a->kind != b->kind || a->len != b->len || memcmp(a->text, b->text, a->len) != 0)
		return 0;
	switch (a->kind) {
	case POL_UNIT_COMMAND:
		return a->argc == b->argc && !memcmp(a->word_is_data, b->word_is_data, a->argc) &&
		       !memcmp(a->word_off, b->word_off, a->argc * sizeof(*a->word_off));
	case POL_UNIT_SCRIPT:
		return !strcmp(a->language, b->language) && a->from_heredoc == b->from_heredoc;
	case POL_UNIT_PATH:
		return a->op == b->op && a->is_dir_op == b->is_dir_op;
	case POL_UNIT_FINDING:
		return !strcmp(a->rule_id, b->rule_id);
	}
	return 0;
}

/* Returns 1 when an identical unit went out before. */
static int seen_before(struct sh_an *P, const struct pol_unit *u)
{
	uint64_t h;
	size_t k;
	struct pol_unit *copy;

	if (++P->n_emitted <= SH_DEDUP_AFTER)
		return 0;
	if (!P->seen) {
		P->seen = pol_arena_alloc(P->a, SH_DEDUP_SLOTS * sizeof(*P->seen));
		if (!P->seen)
			return 0; /* no table: emit everything */
		memset(P->seen, 0, SH_DEDUP_SLOTS * sizeof(*P->seen));
	}
	h = unit_hash(u);
	for (k = h & (SH_DEDUP_SLOTS - 1); P->seen[k].u; k = (k + 1) & (SH_DEDUP_SLOTS - 1))
		if (P->seen[k].h == h && unit_same(P->seen[k].u, u))
			return 1;
	if (P->n_seen >= SH_DEDUP_SLOTS / 2)
		return 0; /* full: emit the rest */
	copy = pol_arena_alloc(P->a, sizeof(*copy));
	if (!copy)
		return 0;
	*copy = *u;
	P->seen[k].h = h;
	P->seen[k].u = copy;
	P->n_seen++;
	return 0;
}

static void emit(struct sh_an *P, const struct pol_unit *u)
{
	int r;

	if (P->abort || seen_before(P, u))
		return;
	r = P->fn(u, P->arg);
	if (r) {
		P->ret = r;
		P->abort = 1;
	}
}

void sh_emit_finding(struct sh_an *P, const char *rule, const char *text, size_t len, unsigned line,
		     unsigned depth)
{
	struct pol_unit u;

	if (P->abort)
		return;
	memset(&u, 0, sizeof(u));
	u.kind = POL_UNIT_FINDING;
	u.rule_id = rule;
	u.text = text;
	u.len = len;
	u.line = line;
	u.depth = depth;
	emit(P, &u);
}

void sh_emit_command(struct sh_an *P, const struct vw *v, size_t n, size_t nwords, unsigned line,
		     unsigned depth)
{
	struct pol_unit u;
	size_t total = 0, off = 0;
	char *text, **argv;
	size_t *woff;
	unsigned char *data;

	if (!n || P->abort)
		return;
	for (size_t i = 0; i < n; i++)
		total += v[i].len + 1;
	text = sh_alloc(P, total);
	argv = sh_alloc(P, (n + 1) * sizeof(*argv));
	woff = sh_alloc(P, n * sizeof(*woff));
	data = sh_alloc(P, n);
	if (!text || !argv || !woff || !data)
		return;
	for (size_t i = 0; i < n; i++) {
		woff[i] = off;
		memcpy(text + off, v[i].s, v[i].len);
		argv[i] = text + off;
		off += v[i].len;
		text[off++] = '\0';
		data[i] = v[i].data;
	}
	argv[n] = NULL;
	/* argv[i] are NUL-terminated slices of text; join them with spaces afterwards
	 * would break argv, so text gets its own copy */
	{
		char *joined = sh_alloc(P, total);
		if (!joined)
			return;
		memcpy(joined, text, total);
		for (size_t i = 0; i + 1 < n; i++)
			joined[woff[i + 1] - 1] = ' ';
		memset(&u, 0, sizeof(u));
		u.kind = POL_UNIT_COMMAND;
		u.temp_only = P->unit_temp_only;
		u.dry_run = P->unit_dry_run;
		u.text = joined;
		u.len = total - 1;
		u.words_len = nwords && nwords < n ? woff[nwords] - 1 : u.len;
	}
	u.argv = argv;
	u.argc = n;
	u.word_off = woff;
	u.word_is_data = data;
	u.line = line;
	u.depth = depth;
	emit(P, &u);
}

static const char *lang_name(int lang)
{
	switch (lang) {
	case LANG_SHELL:
		return "bash";
	case LANG_PYTHON:
		return "python";
	case LANG_NODE:
		return "node";
	case LANG_RUBY:
		return "ruby";
	case LANG_PERL:
		return "perl";
	case LANG_PHP:
		return "php";
	default:
		return NULL;
	}
}

void sh_emit_script_unit(struct sh_an *P, int lang, const char *body, size_t len, int heredoc,
			 unsigned line, unsigned depth, const uint32_t *calls, size_t ncalls)
{
	struct pol_unit u;

	memset(&u, 0, sizeof(u));
	u.kind = POL_UNIT_SCRIPT;
	u.text = body;
	u.len = len;
	u.language = lang_name(lang);
	u.from_heredoc = heredoc;
	if (ncalls) { /* the unit outlives the caller's array (a repeated unit's copy) */
		uint32_t *c = sh_alloc(P, 2 * ncalls * sizeof(*c));
		if (!c)
			return;
		memcpy(c, calls, 2 * ncalls * sizeof(*c));
		u.lit_calls = c;
		u.n_lit_calls = ncalls;
	}
	u.line = line;
	u.depth = depth;
	emit(P, &u);
}

/* The value of a variable: HOME from the options, others from assignments seen
 * earlier in the command line (D=~/.ssh; cat $D/id_rsa). NULL when unknown. */
const char *sh_var_value(struct sh_an *P, const char *name, size_t nlen, size_t *vlen)
{
	if (nlen == 4 && !memcmp(name, "HOME", 4)) {
		*vlen = P->home_len;
		return P->home;
	}
	for (size_t i = P->nvars; i-- > 0;)
		if (P->vars[i].nlen == nlen && !memcmp(P->vars[i].name, name, nlen)) {
			*vlen = P->vars[i].vlen;
			return P->vars[i].value;
		}
	if (nlen > 3 && name[nlen - 1] == ']' && name[nlen - 2] != '@')
		return sh_array_value(P, name, nlen, vlen);
	return NULL;
}

/* The value of reference k of w, its transformation (${p@Q}) applied. */
static const char *ref_value(struct sh_an *P, const struct sh_word *w, unsigned k, size_t *vl)
{
	const char *v = sh_var_value(P, w->var_name[k], w->var_nlen[k], vl);

	if (v && w->var_op[k])
		v = sh_transform(P, w->var_op[k], v, *vl, vl);
	return v;
}

/* A word with its variable references expanded, after prefix_room free bytes; NULL
 * when a variable is unknown or the word holds another expansion. */
static char *expand_word(struct sh_an *P, const struct sh_word *w, size_t prefix_room,
			 size_t *outlen)
{
	size_t extra = 0, o = prefix_room, k = 0, vl;
	const char *val;
	char *out;

	if (w->flags & (W_UNRESOLVED | W_PROCSUB))
		return NULL;
	const char *vals[SH_MAX_HOME];
	size_t lens[SH_MAX_HOME];

	for (unsigned i = 0; i < w->nhome; i++) {
		if (!(vals[i] = ref_value(P, w, i, &lens[i])))
			return NULL;
		extra += lens[i];
	}
	out = sh_alloc(P, prefix_room + w->len + extra + 1);
	if (!out)
		return NULL;
	for (size_t i = 0; i < w->len;) {
		if (k < w->nhome && w->home_off[k] == i) {
			val = vals[k];
			vl = lens[k];
			memcpy(out + o, val, vl);
			o += vl;
			i += w->home_len[k];
			k++;
			continue;
		}
		out[o++] = w->s[i++];
	}
	out[o] = '\0';
	*outlen = o - prefix_room;
	return out;
}

/* The path form of a word: variables expanded, made relative to a directory entered
 * with cd. NULL when the word cannot name a known path. */
char *sh_path_form(struct sh_an *P, const struct sh_word *w, size_t *outlen)
{
	const char *cwd = sh_scope_cwd(P->walk_scope);
	size_t cl = cwd ? strlen(cwd) : 0, len;
	char *out;

	if (!w->len)
		return NULL;
	out = expand_word(P, w, cl + 1, &len);
	if (!out)
		return NULL;
	if (!cl || out[cl + 1] == '/') { /* absolute, or no cd seen: as written */
		*outlen = len;
		return out + cl + 1;
	}
	memcpy(out, cwd, cl);
	if (out[cl - 1] == '/') {
		*outlen = cl + len;
		memmove(out + cl, out + cl + 1, len + 1);
	} else {
		out[cl] = '/';
		*outlen = cl + 1 + len;
	}
	return out;
}

static void forget_var(struct sh_an *P, const char *name, size_t nlen)
{
	size_t o = 0;

	for (size_t i = 0; i < P->nvars; i++)
		if (!(P->vars[i].nlen == nlen && !memcmp(P->vars[i].name, name, nlen)))
			P->vars[o++] = P->vars[i];
	P->nvars = o;
}

/* NAME=value words of a command that only assigns (or export/declare/local): their
 * values, when known, expand later path arguments. */
void sh_record_assignment(struct sh_an *P, const struct sh_word *w)
{
	const char *eq = memchr(w->s, '=', w->len);
	struct sh_word val;
	size_t nlen, vlen;
	char *v;

	if (!eq || eq == w->s)
		return;
	nlen = (size_t)(eq - w->s);
	sh_sub_word(w, nlen + 1, &val);
	v = expand_word(P, &val, 0, &vlen);
	if (sh_record_array(P, w, v, vlen))
		return;
	if (eq[-1] == '+') { /* a+=b: appended to a known value */
		size_t ol;
		const char *old = sh_var_value(P, w->s, nlen - 1, &ol);
		char *cat = old && v ? sh_alloc(P, ol + vlen + 1) : NULL;
		if (cat) {
			memcpy(cat, old, ol);
			memcpy(cat + ol, v, vlen);
			cat[ol + vlen] = '\0';
		}
		sh_set_var(P, w->s, nlen - 1, cat, cat ? ol + vlen : 0);
		return;
	}
	if (!v && sh_is_mktemp(&val)) { /* D=$(mktemp -d): a new folder in /tmp */
		v = "/tmp/tmp.XXXXXXXXXX";
		vlen = strlen(v);
	}
	sh_set_var(P, w->s, nlen, v, v ? vlen : 0);
}

void sh_set_var(struct sh_an *P, const char *name, size_t nlen, const char *v, size_t vlen)
{
	forget_var(P, name, nlen);	 /* an unknown value shadows an older known one */
	if (!v || vlen > SH_MAX_VAR_LEN) /* B=$A$A; C=$B$B ... must not double forever */
		return;
	if (P->nvars == SH_MAX_VARS) { /* forget the oldest */
		memmove(P->vars, P->vars + 1, (SH_MAX_VARS - 1) * sizeof(P->vars[0]));
		P->nvars--;
	}
	P->vars[P->nvars].name = name;
	P->vars[P->nvars].nlen = nlen;
	P->vars[P->nvars].value = v;
	P->vars[P->nvars].vlen = vlen;
	P->nvars++;
}

static int is_pseudo_file(const char *p)
{
	return !strcmp(p, "/dev/null") || !strcmp(p, "/dev/stdout") || !strcmp(p, "/dev/stderr") ||
	       !strcmp(p, "/dev/stdin") || !strcmp(p, "/dev/tty") || !strncmp(p, "/dev/fd/", 8) ||
	       !strncmp(p, "/proc/self/fd/", 14) || !strcmp(p, "-");
}

static void emit_path_str(struct sh_an *P, char *p, size_t plen, enum pol_op op, int is_dir,
			  unsigned line, unsigned depth);

void sh_emit_path(struct sh_an *P, const struct sh_word *w, enum pol_op op, int is_dir, int remote,
		  unsigned depth)
{
	size_t plen;
	char *p;

	if (remote || !w || !w->s || P->abort)
		return;
	if (memmem(w->s, w->len, "{}", 2)) { /* find -exec's placeholder */
		P->placeholders++;
		return;
	}
	p = sh_path_form(P, w, &plen);
	if (p)
		emit_path_str(P, p, plen, op, is_dir, w->line, depth);
	else
		P->paths_unknown++;
}

int sh_path_is_temp(const struct sh_an *P, const char *p)
{
	static const char roots[] = "/tmp/\0"
				    "/var/tmp/\0"
				    "/private/tmp/\0"
				    "/dev/shm/\0";

	/* The home folder is never scratch space, even where it lies in a temporary
	 * folder (a test rig's or a throwaway account's $HOME). */
	if (P->home && P->home_len > 1 && !strncmp(p, P->home, P->home_len) &&
	    (p[P->home_len] == '/' || p[P->home_len] == '\0'))
		return 0;

	for (const char *r = roots; *r; r += strlen(r) + 1) {
		size_t rl = strlen(r);
		if (!strncmp(p, r, rl) && p[rl] && p[rl] != '/') {
			for (const char *d = strstr(p, ".."); d; d = strstr(d + 1, ".."))
				if (d[-1] == '/' && (d[2] == '/' || d[2] == '\0'))
					return 0;
			return 1;
		}
	}
	return 0;
}

/* dir/basename(src): where mv, cp and ln put src when the target is a directory. */
void sh_emit_path_into(struct sh_an *P, const struct sh_word *dir, const struct sh_word *src,
		       enum pol_op op, int remote, unsigned depth)
{
	size_t dl, sl, b, e;
	char *d, *sp, *p;

	if (remote || !dir || !src || P->abort || memmem(src->s, src->len, "{}", 2))
		return;
	d = sh_path_form(P, dir, &dl);
	sp = sh_path_form(P, src, &sl);
	if (!d || !sp)
		return;
	e = sl;
	while (e > 1 && sp[e - 1] == '/')
		e--;
	b = e;
	while (b > 0 && sp[b - 1] != '/')
		b--;
	while (dl > 1 && d[dl - 1] == '/')
		dl--;
	p = sh_alloc(P, dl + 1 + (e - b) + 1);
	if (!p)
		return;
	memcpy(p, d, dl);
	p[dl] = '/';
	memcpy(p + dl + 1, sp + b, e - b);
	p[dl + 1 + e - b] = '\0';
	emit_path_str(P, p, dl + 1 + e - b, op, 0, dir->line, depth);
}

static void emit_path_str(struct sh_an *P, char *p, size_t plen, enum pol_op op, int is_dir,
			  unsigned line, unsigned depth)
{
	struct pol_unit u;

	if (is_pseudo_file(p))
		return;
	memset(&u, 0, sizeof(u));
	u.kind = POL_UNIT_PATH;
	u.path = p;
	u.text = p;
	u.len = plen;
	u.op = op;
	u.is_dir_op = is_dir;
	u.line = line;
	u.depth = depth;
	if (P->defer) {
		struct sh_pq *q = sh_alloc(P, sizeof(*q));
		if (!q)
			return;
		q->u = u;
		q->next = NULL;
		if (P->pq_tail)
			P->pq_tail->next = q;
		else
			P->pq_head = q;
		P->pq_tail = q;
		return;
	}
	emit(P, &u);
}

/* Emits the path units queued after mark (NULL: all) and drops them from the queue. */
void sh_flush_paths(struct sh_an *P, struct sh_pq *mark)
{
	struct sh_pq *q = mark ? mark->next : P->pq_head;

	for (; q; q = q->next)
		emit(P, &q->u);
	if (mark)
		mark->next = NULL;
	else
		P->pq_head = NULL;
	P->pq_tail = mark;
}

/* ---- analysing strings that are code -------------------------------------------- */

void sh_analyze_string(struct sh_an *P, const char *s, size_t len, unsigned depth, unsigned line,
		       int remote)
{
	struct sh_lex L;

	if (P->abort)
		return;
	if (depth > SH_MAX_NEST) {
		sh_emit_finding(P, "shell.parse.too_complex", s, len < 80 ? len : 80, line, depth);
		P->abort = 1;
		return;
	}
	if (sh_lex_init(P, &L, s, len, line, depth, remote))
		return;
	{
		/* a new shell, started by the command being walked */
		struct sh_scope *save = P->cur_scope;
		P->cur_scope = sh_new_scope(P, P->walk_scope);
		if (P->cur_scope) {
			/* it starts in the directory of now; its commands are walked later */
			const char *now = sh_scope_cwd(P->walk_scope);
			P->cur_scope->cwd = now ? now : ""; /* "": the caller's */
			sh_parse_list(P, &L, 0);
		}
		P->cur_scope = save;
	}
	/* the new commands were appended to the list: the walk reaches them in turn */
}

/* Words joined by spaces: what ssh, watch and eval hand to a shell. */
char *sh_join_words(struct sh_an *P, struct sh_word **v, size_t n, size_t *outlen)
{
	size_t total = 0, o = 0;
	char *s;

	for (size_t i = 0; i < n; i++)
		total += v[i]->len + 1;
	s = sh_alloc(P, total + 1);
	if (!s)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (i)
			s[o++] = ' ';
		memcpy(s + o, v[i]->s, v[i]->len);
		o += v[i]->len;
	}
	s[o] = '\0';
	*outlen = o;
	return s;
}

static char *expand_word(struct sh_an *P, const struct sh_word *w, size_t prefix_room,
			 size_t *outlen);

/* Like join_words, with variables whose values are known put in. */
char *sh_join_expanded(struct sh_an *P, struct sh_word **v, size_t n, size_t *outlen)
{
	size_t total = 0, o = 0, l;
	char **parts = sh_alloc(P, n * sizeof(*parts));
	size_t *lens = sh_alloc(P, n * sizeof(*lens));
	char *s;

	if (!parts || !lens)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		parts[i] = v[i]->nhome ? expand_word(P, v[i], 0, &l) : NULL;
		lens[i] = parts[i] ? l : v[i]->len;
		if (!parts[i])
			parts[i] = v[i]->s;
		total += lens[i] + 1;
	}
	s = sh_alloc(P, total + 1);
	if (!s)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (i)
			s[o++] = ' ';
		memcpy(s + o, parts[i], lens[i]);
		o += lens[i];
	}
	s[o] = '\0';
	*outlen = o;
	return s;
}

static int prefix_ver(const char *name, size_t len, const char *stem)
{
	size_t sl = strlen(stem);

	if (len < sl || memcmp(name, stem, sl) != 0)
		return 0;
	for (size_t i = sl; i < len; i++)
		if (!((name[i] >= '0' && name[i] <= '9') || name[i] == '.'))
			return 0;
	return 1;
}

/* The language an interpreter name runs: python3.11, nodejs, perl5.36 ... */
int sh_lang_from_name(const char *name, size_t len)
{
	static const char shells[] = "bash\0"
				     "sh\0"
				     "zsh\0"
				     "dash\0"
				     "ksh\0"
				     "ash\0"
				     "mksh\0"
				     "rbash\0"
				     "yash\0"
				     "fish\0"
				     "busybox-sh\0";
	for (const char *sh = shells; *sh; sh += strlen(sh) + 1)
		if (len == strlen(sh) && !memcmp(name, sh, len))
			return LANG_SHELL;
	if (prefix_ver(name, len, "python") || prefix_ver(name, len, "pypy"))
		return LANG_PYTHON;
	if (prefix_ver(name, len, "node") || (len == 6 && !memcmp(name, "nodejs", 6)) ||
	    (len == 4 && !memcmp(name, "deno", 4)) || (len == 3 && !memcmp(name, "bun", 3)) ||
	    (len == 3 && !memcmp(name, "tsx", 3)) || (len == 7 && !memcmp(name, "ts-node", 7)))
		return LANG_NODE;
	if (prefix_ver(name, len, "ruby"))
		return LANG_RUBY;
	if (prefix_ver(name, len, "perl"))
		return LANG_PERL;
	if (prefix_ver(name, len, "php"))
		return LANG_PHP;
	return LANG_NONE;
}

/* The language named by a script's first line (#!/usr/bin/env python3), or NONE. */
int sh_lang_from_shebang(const char *s, size_t len)
{
	size_t e = 2, b, k;

	if (len < 3 || s[0] != '#' || s[1] != '!')
		return LANG_NONE;
	while (e < len && s[e] != '\n')
		e++;
	b = 2;
	while (b < e && (s[b] == ' ' || s[b] == '\t'))
		b++;
	k = b;
	while (k < e && s[k] != ' ' && s[k] != '\t')
		k++;
	/* basename of the interpreter */
	size_t nb = b;
	for (size_t i = b; i < k; i++)
		if (s[i] == '/')
			nb = i + 1;
	if (k - nb == 3 && !memcmp(s + nb, "env", 3)) {
		b = k;
		for (;;) {
			while (b < e && (s[b] == ' ' || s[b] == '\t'))
				b++;
			k = b;
			while (k < e && s[k] != ' ' && s[k] != '\t')
				k++;
			if (b < e && s[b] == '-') {
				b = k;
				continue;
			}
			break;
		}
		nb = b;
		for (size_t i = b; i < k; i++)
			if (s[i] == '/')
				nb = i + 1;
	}
	return sh_lang_from_name(s + nb, k - nb);
}

/* A heredoc body as the consumer sees it (<<- strips leading tabs). */
const char *sh_heredoc_text(struct sh_an *P, const struct sh_heredoc *h, size_t *len)
{
	char *out;
	size_t o = 0;
	int bol = 1;

	if (!h->strip) {
		*len = h->len;
		return h->body;
	}
	out = sh_alloc(P, h->len + 1);
	if (!out)
		return NULL;
	for (size_t i = 0; i < h->len; i++) {
		if (bol && h->body[i] == '\t')
			continue;
		bol = h->body[i] == '\n';
		out[o++] = h->body[i];
	}
	out[o] = '\0';
	*len = o;
	return out;
}

/* Code in a language: shell is analysed here, others become SCRIPT units. */
void sh_run_code(struct sh_an *P, int lang, const char *s, size_t len, int how, unsigned line,
		 unsigned depth, int remote)
{
	if (!s || P->abort)
		return;
	if (lang == LANG_SHELL)
		sh_analyze_string(P, s, len, depth + 1, line, remote);
	else if (lang != LANG_NONE)
		sh_script_units(P, lang, s, len, how, line, depth, remote);
}
