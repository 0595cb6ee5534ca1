/* policy.c - a policy's lifecycle (new, free, home and root, files, diagnostics, notes
 * of ignored entries), its rules (new rules, the ID index, enable/disable, listing,
 * lookup, built-in rules, suggestions for a mistyped ID). */
#include "dcg_policy.h"

#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "shell.h"

/* ---- allocation through the policy's hook, for PCRE2 ------------------------------- */

static void *pcre_alloc(size_t size, void *data)
{
	(void)data;
	return pol_mem_alloc(size);
}

static void pcre_free(void *ptr, void *data)
{
	(void)data;
	pol_mem_free(ptr);
}

/* The rules the engine's code decides (registered by pol_new, after the shell's). */
static const struct pol_builtin core_builtins[] = {
    POL_BUILTIN("input.invalid",
		"the input holds a NUL byte or invalid UTF-8: it cannot be checked",
		POL_SEV_CRITICAL, "Send the command as plain UTF-8 text"),
    POL_BUILTIN("input.too_long", "the input is too long to check (over 4 MiB)", POL_SEV_CRITICAL,
		"Split the work into smaller commands or a script file"),
    POL_BUILTIN("input.path_too_long", "the path is too long to check", POL_SEV_CRITICAL,
		"Use a shorter path"),
    POL_BUILTIN("runtime.mount",
		"mounting, changing the root or a new mount namespace would "
		"rearrange the tree every path rule is written for",
		POL_SEV_CRITICAL, "Run it outside dcg run / dcg sandbox"),
    POL_BUILTIN("sandbox.raw_write",
		"writing to a block device, kernel memory or a kernel hook goes "
		"around every path rule at once",
		POL_SEV_CRITICAL, "Write to a file, not to the device"),
    POL_BUILTIN("runtime.loader",
		"a loader variable (LD_AUDIT, LD_LIBRARY_PATH holding another libc) runs code "
		"before the guard that can take every libc call around it",
		POL_SEV_CRITICAL, "Run it outside dcg run, or unset the variable"),
    POL_BUILTIN("sandbox.mknod_device", "a device node gives raw access to a disk or kernel memory",
		POL_SEV_CRITICAL, "Create a regular file or a FIFO instead"),
    POL_BUILTIN("runtime.core_dump",
		"a core dump is a file the kernel writes for the process, where no path rule "
		"sees it",
		POL_SEV_CRITICAL, "Debug the crash outside dcg run / dcg sandbox"),
    POL_BUILTIN("runtime.tty_inject",
		"typing into the terminal (TIOCSTI) answers the guard's own questions and "
		"runs commands in the user's shell, outside the guard",
		POL_SEV_CRITICAL, "Write to the program's input instead (a pipe, a file)"),
    POL_BUILTIN("shell.analysis_failed", "the command could not be analysed within dcg's limits",
		POL_SEV_CRITICAL, "Write the command more simply, or as a script file"),
};

/* The process's working directory, or "/": its buffer in a frame of its own, not
 * under every call pol_new() makes. */
static __attribute__((noinline)) char *cwd_dup(void)
{
	char cwd[PATH_MAX];

	return strdup(getcwd(cwd, sizeof(cwd)) ? cwd : "/");
}

struct pol_policy *pol_new(unsigned flags)
{
	struct pol_policy *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->flags = flags;
	p->untrusted_from = SIZE_MAX;
	p->gctx = pcre2_general_context_create(pcre_alloc, pcre_free, NULL);
	p->mctx = pcre2_match_context_create(p->gctx);
	p->cctx = pcre2_compile_context_create(p->gctx);
	if (!p->gctx || !p->mctx || !p->cctx)
		goto out_free;
	/* Limits so that no pattern can hang a decision: a limit hit counts as a match. */
	pcre2_set_match_limit(p->mctx, 200000);
	pcre2_set_depth_limit(p->mctx, 5000);
	pcre2_set_heap_limit(p->mctx, 8 * 1024);
	const char *home = getenv("HOME");
	p->home = strdup(home && home[0] == '/' ? home : "/");
	p->root = flags & POL_NEW_NO_CWD ? strdup("/") : cwd_dup();
	if (!p->home || !p->root)
		goto out_free;
	pol_origin_intern(p, "<builtin>");
	/* A lazy load's first rules wait in head_pend (pol_head_make), their room taken
	 * now: making them later cannot fail. */
	if (flags & POL_LOAD_LAZY) {
		p->rule_tab = malloc(POL_RULES_FIRST_CAP * sizeof(*p->rule_tab));
		p->head_pend = malloc(sizeof(*p->head_pend));
		if (!p->rule_tab || !p->head_pend)
			goto out_free;
		p->cap_rules = POL_RULES_FIRST_CAP;
		memset(p->head_pend, 0, offsetof(struct pol_head_pend, self));
	}
	if (pol_shell_register_builtins(p) < 0 ||
	    pol_rule_add_builtins(p, core_builtins,
				  sizeof(core_builtins) / sizeof(core_builtins[0])) < 0)
		goto out_free;
	return p;

out_free:
	pol_free(p);
	return NULL;
}

void pol_strv_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void pol_rule_finish(struct pol_rule *r)
{
	/* most rules of a snapshot: every string in its text, no code decoded */
	if (r->borrowed && !r->path_owned && !r->code && !r->compile_error)
		return;
	if (!r->borrowed) {
		free(r->id);
		free(r->alias);
		free(r->pattern);
		free(r->reason);
		for (size_t i = 0; i < r->n_suggestions; i++)
			free(r->suggestions[i]);
	}
	if (!r->borrowed || r->path_owned) {
		if (r->path_owned != 2)
			free(r->path.glob);
		free(r->path_canon.glob);
	}
	if (!r->borrowed) { /* else the arrays are in the snapshot's pool */
		for (size_t i = 0; i < r->n_owners; i++)
			free(r->owners[i]);
		free(r->owners);
		free(r->suggestions);
	}
	if (r->code)
		pcre2_code_free(r->code);
	if (!r->borrowed)
		free(r->keyword);
	free(r->compile_error);
}

void pol_free(struct pol_policy *p)
{
	if (!p)
		return;
	/* a deferred image's rules not made own nothing (borrowed, no code) */
	const struct pol_img_pend *q = p->img_pend;
	size_t head = p->head_pend ? p->head_pend->n : 0; /* not made: nothing of their own */

	for (size_t i = head; i < p->n_rules; i++)
		if (!q || i < q->first || q->made[i - q->first])
			pol_rule_finish(&p->rule_tab[i]);
	free(p->rule_tab);
	free(p->img_pend);
	free(p->head_pend);
	for (size_t i = 0; i < p->n_allows; i++) {
		free(p->allows[i].rule);
		free(p->allows[i].reason);
		pol_strv_free(p->allows[i].paths, p->allows[i].n_paths);
	}
	free(p->allows);
	pol_strv_free(p->files, p->n_files);
	free(p->diags);
	free(p->ignored);
	pol_strv_free(p->enable, p->n_enable);
	pol_strv_free(p->disable, p->n_disable);
	pol_strv_free(p->observe, p->n_observe);
	pol_strv_free(p->observe_sys, p->n_observe_sys);
	pol_facts_free(p);
	pcre2_match_context_free(p->mctx);
	pcre2_compile_context_free(p->cctx);
	pcre2_general_context_free(p->gctx);
	free(p->id_index);
	free(p->path_rules);
	free(p->cmd_rules);
	pol_cmd_index_free(p);
	if (p->buckets)
		free(p->buckets->rules);
	free(p->buckets);
	pol_strv_free(p->snap_bufs, p->n_snap_bufs);
	free(p->home);
	free(p->root);
	free(p->lazy_home);
	free(p->lazy_root);
	free(p);
}

static int set_str(char **dst, const char *s)
{
	char *d = strdup(s);

	if (!d)
		return -ENOMEM;
	free(*dst);
	*dst = d;
	return 0;
}

int pol_set_home(struct pol_policy *p, const char *home)
{
	return set_str(&p->home, home && home[0] == '/' ? home : "/");
}

int pol_set_root(struct pol_policy *p, const char *root)
{
	char buf[PATH_MAX];
	int rc = pol_path_normalize(root, p->root, p->home, buf, sizeof(buf));

	return rc ? rc : set_str(&p->root, buf);
}

const char *pol_root(const struct pol_policy *p)
{
	return p->root;
}

const char *pol_home(const struct pol_policy *p)
{
	return p->home;
}

const char *pol_origin_intern(struct pol_policy *p, const char *name)
{
	/* the file of the rule before, most of the time */
	if (p->n_files && strcmp(p->files[p->n_files - 1], name) == 0)
		return p->files[p->n_files - 1];
	for (size_t i = 0; i < p->n_files; i++)
		if (strcmp(p->files[i], name) == 0)
			return p->files[i];
	char **nf = realloc(p->files, (p->n_files + 1) * sizeof(*nf));
	if (!nf)
		return "<unknown>";
	p->files = nf;
	p->files[p->n_files] = strdup(name);
	if (!p->files[p->n_files])
		return "<unknown>";
	return p->files[p->n_files++];
}

size_t pol_file_count(const struct pol_policy *p)
{
	return p->n_files > 0 ? p->n_files - 1 : 0; /* "<builtin>" is not a file */
}

const char *pol_file_name(const struct pol_policy *p, size_t i)
{
	return i + 1 < p->n_files ? p->files[i + 1] : NULL;
}

void pol_diag_add(struct pol_policy *p, const char *file, unsigned line, unsigned col,
		  const char *rule, int fatal, const char *fmt, ...)
{
	struct pol_diag *d;
	va_list ap;

	if (p->n_diags == p->cap_diags) {
		size_t cap = p->cap_diags ? p->cap_diags * 2 : 8;
		struct pol_diag *nd;

		if (p->n_diags >= 10000) /* a hostile file cannot fill memory with messages */
			return;
		nd = realloc(p->diags, cap * sizeof(*nd));
		if (!nd)
			return;
		p->diags = nd;
		p->cap_diags = cap;
	}
	d = &p->diags[p->n_diags++];
	memset(d, 0, sizeof(*d));
	pol_copy_str(d->file, sizeof(d->file), file);
	pol_copy_str(d->rule, sizeof(d->rule), rule);
	d->line = line;
	d->col = col;
	d->fatal = fatal;
	va_start(ap, fmt);
	vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
	va_end(ap);
}

size_t pol_diag_count(const struct pol_policy *p)
{
	return p->n_diags;
}

const struct pol_diag *pol_diag_get(const struct pol_policy *p, size_t i)
{
	return i < p->n_diags ? &p->diags[i] : NULL;
}

void pol_ignored_add(struct pol_policy *p, const char *file, unsigned line, const char *what,
		     const char *text, const char *why)
{
	struct pol_ignored *ni;

	if (p->n_ignored >= 1000) /* a hostile file cannot fill memory with notes */
		return;
	ni = realloc(p->ignored, (p->n_ignored + 1) * sizeof(*ni));
	if (!ni)
		return;
	p->ignored = ni;
	ni += p->n_ignored++;
	memset(ni, 0, sizeof(*ni));
	ni->file = pol_origin_intern(p, file);
	ni->line = line;
	ni->what = what;
	ni->why = why;
	pol_copy_str(ni->text, sizeof(ni->text), text);
}

size_t pol_ignored_count(const struct pol_policy *p)
{
	return p->n_ignored;
}

const struct pol_ignored *pol_ignored_get(const struct pol_policy *p, size_t i)
{
	return i < p->n_ignored ? &p->ignored[i] : NULL;
}

enum pol_trust pol_project_trust(const struct pol_policy *p, const char **file, const char **why)
{
	if (file)
		*file = p->project_trust ? p->project_file : NULL;
	if (why)
		*why = p->project_trust ? p->project_why : NULL;
	return p->project_trust;
}

int pol_rule_add_suggestion(struct pol_rule *r, const char *s)
{
	char **ns = realloc(r->suggestions, (r->n_suggestions + 1) * sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	r->suggestions = ns;
	r->suggestions[r->n_suggestions] = strdup(s);
	if (!r->suggestions[r->n_suggestions])
		return -ENOMEM;
	r->n_suggestions++;
	return 0;
}

/* Every rule ends with the way to let it pass on purpose. */
int pol_rule_add_allow_suggestion(struct pol_rule *r)
{
	static const char head[] = "If intentional: dcg allow ", tail[] = " -r \"reason\"";
	char buf[300];
	size_t n = strlen(r->id);

	if (n > sizeof(buf) - sizeof(head) - sizeof(tail))
		n = sizeof(buf) - sizeof(head) - sizeof(tail); /* as snprintf cut it */
	memcpy(buf, head, sizeof(head) - 1);
	memcpy(buf + sizeof(head) - 1, r->id, n);
	memcpy(buf + sizeof(head) - 1 + n, tail, sizeof(tail));
	return pol_rule_add_suggestion(r, buf);
}

/* A record as pol_rule_new() starts it. */
static void rule_start(struct pol_rule *r)
{
	memset(r, 0, sizeof(*r));
	r->enabled = 1;
	r->active = 1;
	r->code_index = -1;
	r->origin = "<builtin>";
}

struct pol_rule *pol_rule_new(struct pol_policy *p)
{
	/* the deferred records first (the head, an image's): they come before this one */
	(void)pol_rules(p);
	if (p->n_rules == p->cap_rules) {
		/* room at once for the built-ins and the embedded policy (about 300 rules):
		 * no copy when the embedded snapshot is loaded after them, and pages are
		 * touched only as rules fill them */
		size_t cap = p->cap_rules ? p->cap_rules * 2 : POL_RULES_FIRST_CAP;
		struct pol_rule *nr = realloc(p->rule_tab, cap * sizeof(*nr));

		if (!nr)
			return NULL;
		p->rule_tab = nr;
		p->cap_rules = cap;
	}
	struct pol_rule *r = &pol_rules(p)[p->n_rules++];
	rule_start(r);
	return r;
}

/* A built-in's record, as pol_rule_add_builtins() makes it: the strings borrowed. */
static void builtin_fill(struct pol_rule *r, const struct pol_builtin *b)
{
	r->borrowed = 1;
	r->kind = POL_RULE_BUILTIN;
	r->id = (char *)(uintptr_t)b->id;
	r->reason = (char *)(uintptr_t)b->reason;
	r->severity = b->sev;
	r->decision = b->sev >= POL_SEV_HIGH	 ? POL_DENY
		      : b->sev == POL_SEV_MEDIUM ? POL_ASK
						 : POL_LOG;
	r->suggestions = (char **)(uintptr_t)b->sugg;
	r->n_suggestions = 2;
}

void pol_head_make(struct pol_policy *p)
{
	struct pol_head_pend *h = p->head_pend;
	size_t i = 0;

	if (!h)
		return;
	p->head_pend = NULL;
	/* in the room pol_new() took (rules_room() keeps it): not indexed by ID, as
	 * pol_rule_index_add() left them (at most ID_LINEAR_MAX) */
	for (int k = 0; k < POL_HEAD_TABS; k++)
		for (size_t j = 0; j < h->n_tab[k]; j++) {
			rule_start(&p->rule_tab[i]);
			builtin_fill(&p->rule_tab[i++], &h->tab[k][j]);
		}
	for (size_t j = 0; j < h->n_self; j++) {
		rule_start(&p->rule_tab[i]);
		pol_self_rule_fill(p, &p->rule_tab[i++], &h->self[j], 0);
	}
	free(h);
}

const char *pol_language_intern(const char *name)
{
	static const char langs[][7] = {"bash", "sh",  "zsh",  "python", "node", "ruby",
					"perl", "php", "deno", "bun",	 "shell"};

	if (!name)
		return NULL;
	for (size_t i = 0; i < sizeof(langs) / sizeof(langs[0]); i++)
		if (strcmp(name, langs[i]) == 0)
			return langs[i];
	return NULL;
}

/* Does entry e (a rule ID or a pack prefix) name rule id? A first byte that differs
 * settles most entries without a scan: a refresh asks this of every rule and entry. */
static int names_rule(const char *e, const char *id)
{
	size_t n;

	if (e[0] != id[0])
		return 0;
	n = strlen(e);
	/* equal n bytes: id has at least n bytes before its NUL */
	return strncmp(id, e, n) == 0 && (id[n] == '\0' || id[n] == '.');
}

int pol_rule_is_enabled(const struct pol_policy *p, const struct pol_rule *r)
{
	int on = r->enabled;

	if (!p->n_enable && (!p->n_disable || r->guarded))
		return on;
	/* `packs:` enables, `disable:` disables, by rule ID or pack prefix. */
	for (size_t i = 0; i < p->n_enable && !on; i++)
		on = names_rule(p->enable[i], r->id);
	for (size_t i = 0; i < p->n_disable && on && !r->guarded; i++)
		on = !names_rule(p->disable[i], r->id);
	return on;
}

static size_t id_hash(const char *s)
{
	size_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static int index_put(size_t *tab, size_t cap, const struct pol_rule *rules, size_t i)
{
	size_t h = id_hash(rules[i].id) & (cap - 1);

	while (tab[h]) {
		if (strcmp(rules[tab[h] - 1].id, rules[i].id) == 0)
			return 0; /* the first rule with an ID keeps it */
		h = (h + 1) & (cap - 1);
	}
	tab[h] = i + 1;
	return 0;
}

static int index_grow(struct pol_policy *p, size_t n_rules)
{
	if ((n_rules + 1) * 2 > p->id_cap) {
		size_t cap = p->id_cap ? p->id_cap * 2 : 256;
		size_t *tab;

		while (cap < (n_rules + 1) * 2)
			cap *= 2;
		tab = calloc(cap, sizeof(*tab));
		if (!tab)
			return -ENOMEM;
		for (size_t k = 0; k < p->id_cap; k++)
			if (p->id_index[k])
				index_put(tab, cap, pol_rules(p), p->id_index[k] - 1);
		free(p->id_index);
		p->id_index = tab;
		p->id_cap = cap;
	}
	return 0;
}

int pol_rule_index_complete(struct pol_policy *p)
{
	if (p->id_indexed >= p->n_rules)
		return 0;
	if (index_grow(p, p->n_rules) < 0)
		return -ENOMEM;
	for (; p->id_indexed < p->n_rules; p->id_indexed++)
		if (pol_rules(p)[p->id_indexed].id)
			index_put(p->id_index, p->id_cap, pol_rules(p), p->id_indexed);
	return 0;
}

/* Rules not indexed that pol_rule_find() reads one by one before an index is made:
 * the built-ins and dcg's own rules, all a hook call adds before the embedded rules
 * (their index, a 2 KB table, cost more than the lookups it saved). */
#define ID_LINEAR_MAX 32

int pol_rule_index_add(struct pol_policy *p, size_t i)
{
	(void)i; /* the last rule: indexed with those loaded before it */
	if (!p->id_cap && p->n_rules - p->id_indexed <= ID_LINEAR_MAX)
		return 0;
	return pol_rule_index_complete(p);
}

/* Can id be an old positional ID (scope.kind.N)? Only those are looked for among the
 * aliases: the look reads every rule, which a pack's name in disable: (containers) or
 * an unknown ID would otherwise pay at every start. */
static int may_be_alias(const char *id)
{
	const char *dot = strrchr(id, '.');

	if (!dot || !dot[1])
		return 0;
	for (const char *c = dot + 1; *c; c++)
		if (*c < '0' || *c > '9')
			return 0;
	return 1;
}

/* Allow and disable entries naming a path rule by its old positional ID
 * (default.zero_access.18) name it by its ID from now on: the aliases are read for a
 * while, so that existing policy files keep working. */
static void resolve_aliases(struct pol_policy *p)
{
	for (size_t i = 0; i < p->n_allows; i++) {
		ssize_t k;
		char *id;
		if (!may_be_alias(p->allows[i].rule) || pol_rule_find(p, p->allows[i].rule) >= 0 ||
		    (k = pol_rule_find_alias(p, p->allows[i].rule)) < 0 ||
		    !(id = strdup(pol_rules(p)[k].id)))
			continue;
		free(p->allows[i].rule);
		p->allows[i].rule = id;
	}
	for (size_t i = 0; i < p->n_disable; i++) {
		ssize_t k;
		char *id;
		if (!may_be_alias(p->disable[i]) || pol_rule_find(p, p->disable[i]) >= 0 ||
		    (k = pol_rule_find_alias(p, p->disable[i])) < 0 ||
		    !(id = strdup(pol_rules(p)[k].id)))
			continue;
		free(p->disable[i]);
		p->disable[i] = id;
	}
}

void pol_rules_refresh(struct pol_policy *p)
{
	size_t *pr, *cr;

	resolve_aliases(p);
	/* a sealed image's lists say how many there are: no room for every rule */
	const struct pol_img_pend *lq = p->img_pend;
	size_t npr = p->n_rules + 1, ncr = p->n_rules + 1;
	if (lq && lq->lists && lq->first + lq->n == p->n_rules && !p->n_enable && !p->n_disable) {
		npr = lq->first + lq->lists[1] + 1;
		ncr = lq->first + lq->lists[0] + 1;
	}
	pr = realloc(p->path_rules, npr * sizeof(*pr));
	cr = realloc(p->cmd_rules, ncr * sizeof(*cr));

	if (pr)
		p->path_rules = pr;
	if (cr) {
		p->cmd_rules = cr;
	} else {
		free(p->cmd_rules); /* stale: decide.c then tries every rule */
		p->cmd_rules = NULL;
	}
	p->n_path_rules = p->n_cmd_rules = 0;
	/* a deferred image's rules are read in the image, where active is enabled: with
	 * packs: or disable: they are made into records first (and the head's) */
	if ((p->img_pend || p->head_pend) && (p->n_enable || p->n_disable))
		pol_rules_materialise(p);
	const struct pol_img_pend *q = p->img_pend;
	const struct pol_head_pend *h = p->head_pend;
	size_t made = q ? q->first : p->n_rules, n_walk = p->n_rules, before = 0;
	/* the head's: the built-ins, then dcg's own path rules, all on */
	size_t head = h ? h->n : 0, head_builtins = h ? h->n - h->n_self : 0;
	/* a sealed image that ends the rules, without packs: or disable:, brings its lists */
	const uint32_t *lists = q && q->lists && q->first + q->n == p->n_rules && !p->n_enable &&
					!p->n_disable && pr && cr
				    ? q->lists
				    : NULL;

	if (lists)
		n_walk = made;
	for (size_t i = 0; i < n_walk; i++) {
		unsigned char active, kind;

		if (i < head) {
			active = 1;
			kind = i < head_builtins ? POL_RULE_BUILTIN : POL_RULE_PATH;
		} else if (i < made) {
			struct pol_rule *r = &p->rule_tab[i];
			/* without packs: and disable: a rule is on as loaded (pol_rule_is_enabled's
			 * first test, without a call per rule at every start) */
			r->active = !p->n_enable && !p->n_disable
					? r->enabled
					: (unsigned char)pol_rule_is_enabled(p, r);
			active = r->active;
			kind = r->kind;
		} else {
			active = q->recs[i - made].enabled;
			kind = q->recs[i - made].kind;
		}
		if (pr && active && kind == POL_RULE_PATH)
			pr[p->n_path_rules++] = i;
		if (cr && active && kind == POL_RULE_COMMAND)
			cr[p->n_cmd_rules++] = i;
		before += active && (kind == POL_RULE_COMMAND || kind == POL_RULE_SCRIPT);
	}
	if (lists) {
		const uint32_t *c = lists + IMG_L_HEAD, *pp = c + lists[0];

		for (uint32_t t = 0; t < lists[0]; t++)
			cr[p->n_cmd_rules++] = made + c[t];
		for (uint32_t t = 0; t < lists[1]; t++)
			pr[p->n_path_rules++] = made + pp[t];
	}
	p->cmd_rules_for = p->n_rules;
	pol_cmd_index_free(p); /* built again at the next command decision */
	/* or the image's, when its command and script rules are all there are */
	if (lists && !before) {
		size_t used =
		    IMG_L_HEAD + (size_t)lists[0] + lists[1] + lists[3] + lists[4] + lists[5];
		pol_cmd_index_import(p, lists + used, q->n_lists - used, made);
	}
	pol_path_index_build(p);
}

/* ---- rules: listing and lookup ------------------------------------------------------ */

size_t pol_rule_count(const struct pol_policy *p)
{
	return p->n_rules;
}

int pol_rule_get(const struct pol_policy *p, size_t i, struct pol_rule_info *info)
{
	const struct pol_rule *r;

	if (i >= p->n_rules)
		return -ERANGE;
	r = &pol_rules(p)[i];
	memset(info, 0, sizeof(*info));
	info->id = r->id;
	info->kind = r->kind;
	info->pattern = r->pattern;
	info->reason = r->reason;
	info->language = r->language;
	info->severity = r->severity;
	info->decision = r->active && r->compile_state >= 0 ? r->decision : POL_ALLOW;
	info->path_kind = r->path_kind;
	info->origin = r->origin;
	info->line = r->line;
	info->suggestions = (const char *const *)r->suggestions;
	info->n_suggestions = r->n_suggestions;
	info->alias = r->alias;
	info->active = r->active;
	return 0;
}

ssize_t pol_rule_find(const struct pol_policy *p, const char *id)
{
	/* the index holds only rules before a deferred image (indexing makes its records) */
	if (p->id_cap)
		for (size_t h = id_hash(id) & (p->id_cap - 1); p->id_index[h];
		     h = (h + 1) & (p->id_cap - 1))
			if (strcmp(p->rule_tab[p->id_index[h] - 1].id, id) == 0)
				return (ssize_t)(p->id_index[h] - 1);
	/* The rules a snapshot loaded since the index was brought up to date, in order:
	 * the index holds only rules before them, so the first with the ID wins still.
	 * A deferred image's IDs are read in the image. */
	const struct pol_img_pend *q = p->img_pend;
	const struct pol_head_pend *h = p->head_pend;
	size_t made = q ? q->first : p->n_rules, i = p->id_indexed;

	if (h) { /* the head's IDs where they are (nothing is indexed while it waits) */
		for (int k = 0; k < POL_HEAD_TABS; k++)
			for (size_t j = 0; j < h->n_tab[k]; j++, i++)
				if (h->tab[k][j].id[0] == id[0] && !strcmp(h->tab[k][j].id, id))
					return (ssize_t)i;
		for (size_t j = 0; j < h->n_self; j++, i++)
			if (!strcmp(h->self[j].id, id))
				return (ssize_t)i;
	}
	for (; i < p->n_rules; i++) {
		const char *rid =
		    i < made ? p->rule_tab[i].id : q->str + (uintptr_t)q->recs[i - made].id - 1;
		if (rid && rid[0] == id[0] && strcmp(rid, id) == 0)
			return (ssize_t)i;
	}
	return -ENOENT;
}

ssize_t pol_rule_find_alias(const struct pol_policy *p, const char *id)
{
	ssize_t i = pol_rule_find(p, id);

	for (size_t k = 0; i < 0 && k < p->n_rules; k++)
		if (pol_rules(p)[k].alias && !strcmp(pol_rules(p)[k].alias, id))
			i = (ssize_t)k;
	return i;
}

ssize_t pol_rule_add_builtin(struct pol_policy *p, const char *id, const char *reason,
			     enum pol_severity sev, const char *suggestion)
{
	ssize_t have = pol_rule_find(p, id);
	struct pol_rule *r;

	if (have >= 0)
		return have;
	r = pol_rule_new(p);
	if (!r)
		return -ENOMEM;
	r->kind = POL_RULE_BUILTIN;
	r->id = strdup(id);
	r->reason = strdup(reason);
	r->severity = sev;
	r->decision = sev >= POL_SEV_HIGH ? POL_DENY : sev == POL_SEV_MEDIUM ? POL_ASK : POL_LOG;
	r->origin = "<builtin>";
	if (!r->id || !r->reason) {
		p->n_rules--;
		pol_rule_finish(r);
		return -ENOMEM;
	}
	if (suggestion)
		pol_rule_add_suggestion(r, suggestion);
	pol_rule_add_allow_suggestion(r);
	/* Active from now on; a later file's disable: list is applied by the refresh at
	 * the end of its load (a refresh here, once per built-in, cost more than the
	 * rest of start-up). */
	pol_rule_index_add(p, p->n_rules - 1);
	return (ssize_t)(p->n_rules - 1);
}

int pol_rule_add_builtins(struct pol_policy *p, const struct pol_builtin *b, size_t n)
{
	/* pol_new()'s two tables, into a policy with no other rule: their IDs are distinct
	 * (test_rule_ids), no lookup needed */
	struct pol_head_pend *h = p->head_pend;

	if (h && h->n == p->n_rules && !h->n_self)
		for (int k = 0; k < POL_HEAD_TABS; k++)
			if (!h->n_tab[k]) { /* made when something reads them */
				h->tab[k] = b;
				h->n_tab[k] = n;
				h->n += n;
				p->n_rules += n;
				return 0;
			}
	for (size_t i = 0; i < n; i++) {
		struct pol_rule *r = pol_rule_new(p);

		if (!r)
			return -ENOMEM;
		builtin_fill(r, &b[i]);
		pol_rule_index_add(p, p->n_rules - 1);
	}
	return 0;
}

static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), prev[129], cur[129];

	if (la > 128)
		la = 128;
	if (lb > 128)
		lb = 128;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
			size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
			cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
		}
		memcpy(prev, cur, (lb + 1) * sizeof(size_t));
	}
	return prev[lb];
}

size_t pol_rule_suggest(const struct pol_policy *p, const char *id, const char **out, size_t max)
{
	size_t n = 0, dist[16];

	if (max > 16)
		max = 16;
	for (size_t i = 0; i < p->n_rules; i++) {
		size_t d = edit_distance(id, pol_rules(p)[i].id);
		/* A rule whose ID contains the text is a good guess too. */
		if (strstr(pol_rules(p)[i].id, id))
			d = d < 2 ? d : 2;
		size_t k = n;

		while (k > 0 && dist[k - 1] > d)
			k--;
		if (k >= max)
			continue;
		if (n < max)
			n++;
		for (size_t j = n - 1; j > k; j--) {
			dist[j] = dist[j - 1];
			out[j] = out[j - 1];
		}
		dist[k] = d;
		out[k] = pol_rules(p)[i].id;
	}
	return n;
}
