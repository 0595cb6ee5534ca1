/* internal.h - the policy's data, shared by the files of policy/. Not installed. */
#ifndef DCG_POLICY_INTERNAL_H
#define DCG_POLICY_INTERNAL_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdint.h>
#include <sys/types.h>

#include "dcg_policy.h"

/* A path pattern, expanded at load: anchored patterns hold an absolute glob (~ and
 * the project root applied); basename patterns match any component. */
enum { PP_GENERAL = 0, PP_LITERAL, PP_SUFFIX, PP_PREFIX }; /* pol_pathpat.shape */
struct pol_pathpat {
	char *glob;		     /* absolute glob, or the basename glob */
	uint32_t literal_len;	     /* length of glob's prefix free of wildcards */
	uint32_t glob_len;	     /* (a pattern is shorter than PATH_MAX) */
	unsigned char basename_only; /* no '/' but a trailing one: matches a component anywhere */
	unsigned char negate;	     /* leading '!': an exclusion within its list */
	unsigned char shape;	     /* PP_*: fast paths */
};

/* Fills pp from a pattern already expanded (absolute) or a basename pattern. */
void pol_pathpat_classify(struct pol_pathpat *pp);

/* The fields ordered for size (pointers, then numbers, then bytes): a start fills some
 * 300 of these, so each byte is 300 bytes of freshly touched heap (176 bytes each, 240
 * when the counts were size_t and the enums int). */
struct pol_rule {
	char *id;
	char *alias; /* path rules: the positional ID of older versions (scope.kind.N) */
	char *pattern;
	char *reason;
	const char *language; /* static interned name */
	const char *origin;   /* points into pol_policy.files */
	char **suggestions;
	/* regex rules: compiled lazily (or eagerly with POL_LOAD_EAGER) */
	pcre2_code *code;
	char *keyword;	     /* lowercase literal that must appear for a match; NULL: none */
	char *compile_error; /* set when the regex failed to compile */
	char **owners;	     /* path rules: programs that may manage what the rule covers */
	/* path rules: the pattern as expanded, and again with its literal prefix resolved
	 * through symlinks when that differs (so /real/dir is covered when the rule
	 * names a link to it) */
	struct pol_pathpat path;
	struct pol_pathpat path_canon;
	uint32_t n_suggestions;
	uint32_t keyword_len;
	uint32_t n_owners;
	unsigned line;
	int code_index; /* its code in the embedded compiled set (pol_policy.codes_blob), or -1 */
	uint16_t keyword_bigram; /* hash of keyword's first two bytes, for the prefilter */
	/* the enums as bytes: enum pol_rule_kind, pol_severity, pol_decision, pol_path_kind */
	unsigned char kind;
	unsigned char severity;
	unsigned char decision;
	unsigned char path_kind;
	signed char compile_state; /* 0 not yet, 1 compiled, -1 failed (the rule then matches
				    * nothing and a diagnostic was recorded at load) */
	unsigned char enabled;
	/* enabled, after `packs:` and `disable:`: kept by pol_rules_refresh() */
	unsigned char active;
	unsigned char caseless;
	/* command rules whose harm is deleting or overwriting local files: at runtime
	 * (POL_CTX_RUNTIME) the files each call touches decide, not the command's words,
	 * unless the command aims at a catastrophic target (`runtime: paths`) */
	unsigned char runtime_paths;
	/* command rules whose pattern names no redirection (no `<` or `>` but in the
	 * (?<= (?<! (?> (?< group forms): matched on a command's words alone, so that
	 * `2>/dev/null` is not taken for an argument, nor breaks a `$` anchor
	 * (pol_pattern_words_only, pol_unit.words_len) */
	unsigned char words_only;
	unsigned char has_canon;
	/* path globs were expanded at snapshot load: freed even if borrowed (2: the glob
	 * itself is in a block of pol_policy.snap_bufs, only the canonical form is freed) */
	unsigned char path_owned;
	/* id, pattern, reason, suggestions, keyword and globs point into a snapshot buffer
	 * the policy keeps (pol_policy.snap_bufs): not freed */
	unsigned char borrowed;
	/* POL_LOAD_LAZY: the path is not expanded yet (pol_paths_ready) */
	unsigned char path_pending;
	/* POL_LOAD_LAZY: the canonical form (path_canon) is not looked for yet */
	unsigned char canon_pending;
	/* Layering (see pol_load_layers): a guarded rule comes from the system file and
	 * only that file's allow entries and exclusions apply to it, no disable: does;
	 * an untrusted exclusion (from a project file the user has not trusted) lifts
	 * only rules from pol_policy.untrusted_from on. */
	unsigned char guarded;
	unsigned char untrusted;
	/* path rules: an entry of runsLater, which guards what another program will run:
	 * writing, creating, replacing or chmod'ing it plants code; deleting it, moving it
	 * away or linking it elsewhere does not, and is not refused (POL_KINDS_REMOVE) */
	unsigned char plants;
};
_Static_assert(sizeof(struct pol_rule) <= 176, "struct pol_rule grew: 300 of them per start");

struct pol_allow {
	char *rule;
	char *reason;
	char **paths; /* absolute globs */
	size_t n_paths;
	time_t expires; /* 0: never; else the first second after the expiry date */
	const char *origin;
	unsigned line;
};

struct pol_policy {
	unsigned flags;
	char *home;
	char *root;
	/* the rules: read them through pol_rules(), which first makes the records of a
	 * deferred rule image (img_pend) */
	struct pol_rule *rule_tab;
	size_t n_rules, cap_rules;
	/* A lazy load's embedded rules, checked but not yet copied into rule_tab: the
	 * decision of a command unit reads them in the image (pol_image_rule) until a rule
	 * passes its prefilter; anything else makes the records first (snapshot.c). */
	struct pol_img_pend *img_pend;
	/* A lazy load's first rules, the built-ins and dcg's own, not made yet: rules
	 * [0, head_pend->n) (policy.c, pol_head_make) */
	struct pol_head_pend *head_pend;
	struct pol_allow *allows;
	size_t n_allows, cap_allows;
	char **files; /* origins, in load order */
	size_t n_files;
	struct pol_diag *diags;
	size_t n_diags, cap_diags;
	char **enable; /* packs/rules named in `packs:` */
	size_t n_enable;
	char **disable; /* packs/rules named in `disable:` */
	size_t n_disable;
	/* observe mode (DESIGN.md): `mode: observe` and `observe: [ID or pack]` from the
	 * system file (_sys: every rule) or the user's own files (not the system's guarded
	 * rules); `mode: enforce` in the system file forbids the user's */
	char **observe, **observe_sys;
	size_t n_observe, n_observe_sys;
	int observe_all, observe_all_sys, observe_forbidden;
	pcre2_match_context *mctx;   /* limits, shared by every match */
	pcre2_general_context *gctx; /* allocation through pol_mem_alloc */
	pcre2_compile_context *cctx;
	size_t *path_rules; /* indexes of the active path rules, in order (pol_rules_refresh) */
	size_t n_path_rules;
	/* indexes of the active command rules, in order (pol_rules_refresh): what a
	 * command unit is matched against; NULL when it could not be allocated */
	size_t *cmd_rules;
	size_t n_cmd_rules;
	size_t cmd_rules_for; /* n_rules when it was built: a rule added since makes it stale */
	/* The command rules by how a unit's text must start (decide.c, built at the first
	 * command decision through pol_mem_alloc; cmd_index_state: 0 not yet, 1 building,
	 * 2 built, 3 failed: every rule is tried). */
	struct pol_cmd_index *cmd_index;
	int cmd_index_state;
	unsigned cmd_index_wait; /* units decided while it was not built */
	int cmd_index_prebuilt;	 /* it is a sealed rule image's (pol_cmd_index_import) */
	/* Path rules by trigger (pol_path_index_build): a rule is tried only when a path
	 * has what its pattern cannot match without. NULL: every rule is tried. */
	struct pol_path_buckets *buckets;
	/* The embedded rules' regexes, compiled at build time and serialized with
	 * pcre2_serialize_encode(), in a container that gives each code's place
	 * (pol_embedded_code): a rule's code is decoded alone at its first match. */
	const uint32_t *codes_blob;
	const char *embedded_version; /* 'V' record: which default.yaml the rules came from */
	int32_t n_codes;
	uint32_t codes_pending; /* a sealed image's count of codes, not attached yet */
	char **snap_bufs; /* snapshot texts that borrowed rules point into, and pointer pools */
	size_t n_snap_bufs;
	char **snap_pool; /* free room for borrowed rules' suggestions and owners arrays */
	size_t snap_pool_left;
	size_t *id_index; /* open addressing over rule IDs: rule index + 1, 0 empty */
	size_t id_cap;
	/* rules [0, id_indexed) are in id_index; a snapshot's rules wait until another
	 * rule is added or pol_prepare(), and pol_rule_find() looks through them in order */
	size_t id_indexed;
	int scope; /* ID prefix of damage-control entries in the file being loaded */
	int have_zero_access;
	/* POL_LOAD_LAZY: path rules of a portable snapshot wait for pol_paths_ready(),
	 * which expands them with the home and root they were loaded under. */
	int paths_pending;
	int canon_pending; /* some rule's canon_pending is set (pol_paths_ready) */
	/* while some are pending: the groups (pol_rule_group) whose rules are all expanded,
	 * resolved and in the path index; set to 0 wherever a rule is left pending */
	unsigned path_groups_ready;
	/* while some are pending: path decisions made since the path index was dropped
	 * (a lazy load builds it only for a process that makes several) */
	unsigned path_scans_unindexed;
	char *lazy_home, *lazy_root;
	size_t bash_count[5]; /* damage-control numbering per scope */
	size_t path_count[5][3];
	/* Layering: the first rule of the untrusted project file (SIZE_MAX: none), the
	 * loosening parts not applied, and the project file's trust. */
	size_t untrusted_from;
	struct pol_ignored *ignored;
	size_t n_ignored;
	enum pol_trust project_trust;
	const char *project_file; /* an origin */
	char project_why[160];
	/* Facts the decisions read, from the policy's data sections (default.yaml, at
	 * its end): `catastrophic:` (decide.c: words that name the root, the home folder;
	 * prefixes that name a whole disk), `ownerFolders:` (where a program named as a
	 * path rule's owner must live) and `pathReasons:` (the reason and suggestions of
	 * each path kind's rules). Owned strings. A policy loaded without the defaults
	 * has none: no catastrophic target, no named owner, and the short reasons of
	 * pol_path_reason (tests load such policies). The strings are borrowed from a
	 * snapshot (it outlives the policy) or copies listed in fact_owned. */
	const char **cata_words;
	size_t n_cata_words;
	const char **cata_prefixes;
	size_t n_cata_prefixes;
	const char **owner_folders;
	size_t n_owner_folders;
	const char *path_reason[3];
	const char *path_sugg[3][2];
	char **fact_owned;
	size_t n_fact_owned;
};

/* The first line of a snapshot (snapshot.c), which names its format. */
#define POL_SNAP_MAGIC "DCGSNAP 3\n"

/* snapshot.c: the pre-split form of a snapshot, made at build time for the embedded
 * defaults: the fields unescaped and NUL-terminated (each distinct string once), with
 * an index of where each record's fields start, and each rule as a record of fixed
 * 32-bit words (string offsets and numbers), so that a process loads it without
 * copying, scanning or parsing it.
 * pol_snapshot_split() turns snapshot text into it (malloc'ed, *len its size; NULL on
 * error); pol_snapshot_load_split() loads it, borrowing its strings where they lie (the
 * blob must outlive the policy). */
#define POL_SPLIT_MAGIC 0x58474344u /* "DCGX" */
void *pol_snapshot_split(const char *text, size_t len, size_t *out_len);
int pol_snapshot_load_split(struct pol_policy *p, const void *blob, size_t len);

/* The rule image of a pre-split snapshot (the embedded one): its rules as a
 * POL_LOAD_LAZY load makes them, struct pol_rule records whose pointers are offsets
 * (into the split form's strings, or into the image's table of suggestion and owner
 * strings), so that a load copies them at once and adds the base to each pointer
 * instead of building each rule field by field. Made at build time by the same
 * compiler as the library (the record is checked by size and by a few field offsets).
 * pol_snapshot_image() makes it from blob (malloc'ed, *out_len its size; NULL with
 * *why a sentence when a rule cannot be put in an image). pol_snapshot_load_image()
 * loads blob with it: 0 or a negative errno as pol_snapshot_load_split(), which it
 * equals; -EAGAIN (nothing loaded) when the image does not fit this load (another
 * blob, not POL_LOAD_LAZY, a home and root too long for its lazy path rules): then
 * load the split form. */
#define POL_IMAGE_MAGIC 0x49474344u /* "DCGI" */
void *pol_snapshot_image(const void *blob, size_t len, size_t *out_len, const char **why);
/* The deferred image's records copied into rule_tab, each pointer made one (checked at
 * load: this cannot fail); pol_rule_materialise() makes rule i alone (a rule of the
 * image that a command unit must try), and the records made stay as they are. */
void pol_rules_materialise(struct pol_policy *p);
struct pol_rule *pol_rule_materialise(struct pol_policy *p, size_t i);
/* Makes the records of a deferred image's path rules (and of any rule with a path
 * pending): the path decisions, after pol_paths_ready(), read p->rule_tab. */
void pol_path_rules_make(const struct pol_policy *p);

/* A deferred image's rules: where they start in rule_tab and their records as built
 * (pointers as offsets + 1 into str), which of them are made already; NULL when
 * nothing is deferred. */
struct pol_img_pend {
	const struct pol_rule *recs;
	const char *str;
	char **pool; /* the suggestions and owners arrays, each filled when made; NULL
		      * until a record needs them (n_pool pointers then) */
	size_t n_pool;
	const uint32_t *ptrs; /* what they hold: offsets into str */
	/* a sealed image's lists (snapshot.c, image_lists): its active command and path
	 * rules and its command index, which pol_rules_refresh() takes as they are; NULL
	 * for an image that is not sealed */
	const uint32_t *lists;
	size_t n_lists;
#define IMG_L_HEAD 6 /* the words before the lists: their counts (snapshot.c) */
	size_t first, n;
	unsigned char made[]; /* n bytes */
};

/* POL_LOAD_LAZY: the rules a load adds before the embedded ones, pol_new()'s built-ins
 * and pol_load_layers()' own rules of dcg (pol_add_self_rule), in order, as what their
 * records are made of: a call that reads no rule record (an allowed command) writes
 * none of them. rule_tab already has room for them, so that making them cannot fail;
 * a self rule's block is allocated when it is added. pol_head_make() makes them all
 * (pol_rules(), pol_path_rules_make(), a rule added after them), and frees this. */
struct pol_builtin;
struct self_block;
struct pol_head_self {
	const char *id;		/* a literal */
	struct self_block *blk; /* its pattern (len bytes) and allow suggestion */
	size_t len;
	const char *reason; /* the reason and suggestions of read-only rules when added */
	const char *sugg[2];
	unsigned char dcg_owned;
};
#define POL_RULES_FIRST_CAP 512 /* the built-ins and the embedded policy: about 400 */
#define POL_HEAD_TABS	    2
#define POL_HEAD_SELF	    16
struct pol_head_pend {
	const struct pol_builtin *tab[POL_HEAD_TABS]; /* pol_new()'s two tables */
	size_t n_tab[POL_HEAD_TABS];
	size_t n_self, n; /* n: the rules it holds */
	struct pol_head_self self[POL_HEAD_SELF];
};
void pol_head_make(struct pol_policy *p);
/* load.c: makes self rule s at r, a record just started (as pol_add_self_rule() makes
 * it at once); index: index it by its ID as the last rule (pol_rule_index_add). */
void pol_self_rule_fill(struct pol_policy *p, struct pol_rule *r, const struct pol_head_self *s,
			int index);

static inline struct pol_rule *pol_rules(const struct pol_policy *p)
{
	if (p->img_pend || p->head_pend)
		pol_rules_materialise((struct pol_policy *)p);
	return p->rule_tab;
}

int pol_snapshot_load_image(struct pol_policy *p, const void *blob, size_t len, const void *img,
			    size_t ilen);
/* The build-time check of an image (gen/embed_snapshot.c): every offset and count that
 * pol_snapshot_load_image() checks at each load, checked once; when they hold, the
 * image is marked sealed. 0, or -EAGAIN/-EINVAL (img not marked). */
#define POL_IMAGE_SEALED 0x4c414553u /* "SEAL" */
int pol_snapshot_image_seal(const void *blob, size_t len, void *img, size_t ilen);
/* pol_snapshot_load_image() for the binary's own embedded image only
 * (pol_load_embedded): a sealed image is not checked again at each start, an image
 * not sealed is. Never for bytes from a file: those take pol_snapshot_load_image(),
 * which checks every image, sealed or not. */
int pol_snapshot_load_sealed(struct pol_policy *p, const void *blob, size_t len, const void *img,
			     size_t ilen);

/* compile.c: the two bytes (lowercased, high byte first) a text must start with for
 * pattern to match it, one key per alternative of a leading group (^git\s, ^(?:cp|cat)\b):
 * up to max keys are stored; returns their number, or 0 when the pattern is not anchored
 * that way (or has more than max). Conservative: a pattern it cannot read gives 0. */
size_t pol_pattern_start_keys(const char *pattern, uint16_t *keys, size_t max);

/* decide.c: frees the command index (pol_rules_refresh, pol_free); it is built again
 * after a few more decisions. */
void pol_cmd_index_free(struct pol_policy *p);
/* decide.c: builds the command index now (it is otherwise built after a few command
 * units have been decided without it). */
void pol_cmd_index_build(const struct pol_policy *p);
/* decide.c: the command index of p as it stands, as words (malloc'ed, *n_words their
 * number; NULL when it cannot be made, or a script rule lies before first), for the
 * rule image; pol_cmd_index_import() makes them p's index, the buckets left where they
 * lie (they must outlive p), valid while p->cmd_rules are the ones they were made
 * from and the script rules theirs moved by first. 0, -EINVAL or -ENOMEM. */
uint32_t *pol_cmd_index_export(const struct pol_policy *p, size_t first, size_t *n_words);
int pol_cmd_index_import(struct pol_policy *p, const uint32_t *w, size_t n_words, size_t first);

/* The prefilter's hash of a keyword's first two bytes (at least two bytes). */
static inline uint16_t pol_keyword_bigram(const char *kw)
{
	return (uint16_t)(((unsigned char)kw[0] * 31u + (unsigned char)kw[1]) & 4095u);
}

/* snapshot.c: expands the path rules POL_LOAD_LAZY left pending and builds the path
 * index; a no-op when none is pending. Not thread-safe (see POL_LOAD_LAZY). */
void pol_paths_ready(const struct pol_policy *p);

/* Path rule groups: a kind's rules (bit 2 * kind) and its exclusions (bit 2 * kind + 1).
 * A decision reads only the groups of the kinds that may refuse it, and a kind's
 * exclusions only once one of its rules matched: a lazy load readies no more (each
 * rule's folders are read back, a readlink per component, 40 for the embedded policy's
 * certificate stores and system folders). */
#define POL_PG_ALL 0x3fu
static inline unsigned pol_rule_group(const struct pol_rule *r)
{
	return 1u << (2u * r->path_kind + (r->path.negate ? 1u : 0u));
}
/* The rules' groups (not their exclusions') of kinds, a mask of 1 << pol_path_kind. */
static inline unsigned pol_pg_rules(unsigned kinds)
{
	return (kinds & 1u) | (kinds & 2u) << 1 | (kinds & 4u) << 2;
}
/* The groups ready to be read: all of them unless a lazy load left some pending. */
static inline unsigned pol_pg_ready(const struct pol_policy *p)
{
	return p->paths_pending || p->canon_pending ? p->path_groups_ready : POL_PG_ALL;
}
/* pol_paths_ready() for these groups only; the path index then holds the groups ready. */
void pol_paths_ready_for(const struct pol_policy *p, unsigned groups);
/* Path rule i (an index into rule_tab) if its group is one of groups and ready, else
 * NULL: a group ready has every record made, and a record not made is not read. */
static inline const struct pol_rule *pol_path_rule_in(const struct pol_policy *p, size_t i,
						      unsigned groups)
{
	const struct pol_img_pend *q = p->img_pend;

	if (q && i >= q->first && !q->made[i - q->first])
		return NULL;
	return groups & pol_pg_ready(p) & pol_rule_group(&p->rule_tab[i]) ? &p->rule_tab[i] : NULL;
}

/* load.c */
void pol_diag_add(struct pol_policy *p, const char *file, unsigned line, unsigned col,
		  const char *rule, int fatal, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));
struct pol_rule *pol_rule_new(struct pol_policy *p);
const char *pol_origin_intern(struct pol_policy *p, const char *name);
int pol_rule_set_path(struct pol_policy *p, struct pol_rule *r, const char *pattern);
/* Whether a command rule's pattern names no redirection (pol_rule.words_only). */
int pol_pattern_words_only(const char *pattern);
int pol_rule_prepare_regex(struct pol_policy *p, struct pol_rule *r, const char *file,
			   unsigned line, unsigned col);
int pol_rule_is_enabled(const struct pol_policy *p, const struct pol_rule *r);
/* Indexes rule i by its ID (after the ID is set), and every rule before it not yet
 * indexed; returns 0 or -ENOMEM. */
int pol_rule_index_add(struct pol_policy *p, size_t i);
/* Indexes every rule not yet indexed (pol_prepare: before threads share the policy). */
int pol_rule_index_complete(struct pol_policy *p);
/* Recomputes every rule's active flag from enabled, packs and disable. */
void pol_rules_refresh(struct pol_policy *p);
void pol_rule_finish(struct pol_rule *r);
const char *pol_language_intern(const char *name);

/* Records a loosening part that was not applied (what: "disable", "allow",
 * "exclusion"; why: a static reason). */
void pol_ignored_add(struct pol_policy *p, const char *file, unsigned line, const char *what,
		     const char *text, const char *why);

/* dcg's own file or folder (folder: path's folder) where the environment puts it, as
 * a guarded read-only rule with this id (a literal: the rule borrows it); dcg_owned:
 * dcg's own processes may write it (owners :dcg). Paths with glob characters are left
 * out. */
void pol_add_self_rule(struct pol_policy *p, const char *id, const char *path, int folder,
		       int dcg_owned);

/* Loads YAML text as the embedded default policy (origin "<embedded>", IDs default.*). */
int pol_load_buffer_default(struct pol_policy *p, const char *buf, size_t len);
/* Expands a path pattern as written (!, ~, root, **) into pp; 0 or a negative errno. */
int pol_pathpat_expand(const struct pol_policy *p, const char *pat, struct pol_pathpat *pp);
/* The same with the glob written at dst (room bytes) instead of malloc'ed: -ENOSPC
 * when it does not fit there (nothing else differs). */
int pol_pathpat_expand_at(const struct pol_policy *p, const char *pat, struct pol_pathpat *pp,
			  char *dst, size_t room);
/* Sets r->path_canon when the pattern's literal folders resolve elsewhere; m (or
 * NULL) keeps what readlink() said of each folder for the rules after (glob.c). */
struct pol_resolve_memo;
void pol_rule_canon_path(struct pol_rule *r, struct pol_resolve_memo *m);
/* glob.c: pol_path_resolve() asking ask(ctx, path, len, dir_len, buf, size) where it
 * would call readlink(path, buf, size) (path holds len bytes, its folder the first
 * dir_len); ask answers as readlink() would, errno included. */
typedef ssize_t (*pol_readlink_fn)(void *ctx, const char *path, size_t len, size_t dir_len,
				   char *buf, size_t size);
int pol_path_resolve_with(const char *abs_path, int nofollow, char *out, size_t size,
			  pol_readlink_fn ask, void *ctx);
/* resolve_memo.c: a pass's memo of folders asked about (malloc'ed; NULL: none, every
 * folder is asked), and pol_path_resolve() with it. */
struct pol_resolve_memo *pol_resolve_memo_new(void);
/* dir (kept by the caller while m lives) is listed at the first entry asked about, as
 * a folder is after MEMO_LIST_AFTER of them: the folder most rules name entries of. */
void pol_resolve_memo_list_first(struct pol_resolve_memo *m, const char *dir);
void pol_resolve_memo_free(struct pol_resolve_memo *m);
int pol_path_resolve_memo(const char *abs_path, int nofollow, char *out, size_t size,
			  struct pol_resolve_memo *m);

/* The embedded codes container (gen/embed_snapshot.c, write_codes): four 32-bit words
 * (POL_CODES_MAGIC, the number of codes n, the length of the serialized set's start,
 * the set's size), n + 1 offsets of each code in the set, then the set. */
#define POL_CODES_MAGIC 0x4b474344u /* "DCGK" */
/* compile.c: code k of a container (words: its words, set: the serialized set after
 * them), decoded alone with gctx (NULL: malloc); NULL when it cannot be (out of range,
 * memory, or a PCRE2 other than the one that built it). The caller frees it. */
pcre2_code *pol_embedded_code(const uint32_t *words, const uint8_t *set, int32_t k,
			      pcre2_general_context *gctx);

/* embedded.c: this build's codes container (NULL when none) and the version of
 * default.yaml it was built from. */
const uint32_t *pol_embedded_codes_get(const char **version);
/* Gives the embedded regex rules loaded since rule first their compiled codes, when the
 * policy's embedded_version is this build's. */
void pol_embedded_attach(struct pol_policy *p, size_t first);
/* The same for rules loaded from the rule image, whose code_index it numbered already
 * (n of them): only the count and the version are checked; when they do not hold,
 * each of those rules gets -1, as pol_embedded_attach() would leave them. */
void pol_embedded_attach_numbered(struct pol_policy *p, size_t first, uint32_t n);
/* A sealed image's codes attach at the first regex decoded (compile.c), not at load: an
 * allowed command that runs none does not read the container. When the count or the
 * version do not hold then, no code is attached and each rule compiles its pattern,
 * as a rule whose code_index is -1 does. pol_prepare() attaches them first. */
void pol_embedded_attach_pending(const struct pol_policy *p);

/* embedded.c: 1 when r is a regex rule of the embedded policy (one of the compiled
 * set, in load order). */
int pol_embedded_regex(const struct pol_rule *r);

/* snapshot.c: portable snapshots keep path patterns as written (no home or root), and
 * are expanded when loaded: the form the embedded default policy is built into. */
char *pol_snapshot_save_opts(const struct pol_policy *p, size_t *len, int portable);

/* regex.c: compiles on first use; returns the code or NULL (failed). */
pcre2_code *pol_rule_code(const struct pol_policy *p, struct pol_rule *r);

/* decide.c: 1 when ctx's exe (a real path) is one of the rule's owners; an owner given
 * by name must live in one of p's owner folders. */
int pol_rule_owned_by(const struct pol_policy *p, const struct pol_rule *r,
		      const struct pol_ctx *ctx);

/* glob.c */
int pol_pathpat_covers(const struct pol_pathpat *pp, const char *abs_path);
/* For the exclusive creation of a new file at abs_path (POL_PATH_CREATE_EXCL): 1 when
 * pp, a positive zero-access pattern of kind `kind` that covers abs_path, is a name
 * pattern (basename_only) that covers no folder above it, so that it names the new
 * file alone and does not refuse its creation; 0 otherwise (it refuses, as ever).
 * decide.c and the guest's path index (pathidx.c) both ask it. */
int pol_pathpat_spares_new_file(const struct pol_pathpat *pp, unsigned kind, const char *abs_path);

/* A summary of a path's components, so that most basename patterns are rejected with
 * one bit test instead of a comparison per component. */
struct pol_path_sig {
	uint64_t literal[16]; /* (length, first byte) of each component */
	uint64_t first2[16];  /* first two bytes */
	uint64_t last2[16];   /* last two bytes */
	/* The index buckets the path selects (pol_path_index_build), gathered in the same
	 * walk; past POL_SIG_BUCKETS the caller tries every rule (overflow set). */
#define POL_SIG_BUCKETS 96
	uint16_t buckets[POL_SIG_BUCKETS];
	unsigned n_buckets;
	int overflow;
};
void pol_path_sig_init(struct pol_path_sig *sig, const char *abs_path);

/* Buckets of the path index: component literal (length, first byte), first two bytes,
 * last two bytes, an anchored pattern's first component, and always-tried rules. */
#define POL_PI_LIT     0
#define POL_PI_FIRST2  1024
#define POL_PI_LAST2   2048
#define POL_PI_ANCHOR  3072
#define POL_PI_ALWAYS  3328
#define POL_PI_BUCKETS 3329
/* The bucket a pattern belongs to. */
unsigned pol_pathpat_bucket(const struct pol_pathpat *pp);
/* The path index (decide.c): of POL_PI_BUCKETS buckets, the hundred or so a policy's
 * path rules fill, each of which has a bit in present; rank[w] counts the bits of the
 * words before w, so a bucket's rank among the filled ones is rank[w] and the bits
 * below it in its word; the filled bucket k holds rules[start[k] .. start[k + 1]). */
#define POL_PI_WORDS ((POL_PI_BUCKETS + 63) / 64)
struct pol_path_buckets {
	uint64_t present[POL_PI_WORDS];
	uint16_t rank[POL_PI_WORDS];
	uint32_t *rules;
	uint32_t start[]; /* filled buckets + 1 */
};
/* Builds the path index over p->path_rules; on allocation failure it is left NULL and
 * decisions try every rule. */
void pol_path_index_build(struct pol_policy *p);
/* Frees the path index: decisions try every rule ready until it is built again. */
void pol_path_index_drop(struct pol_policy *p);
/* pol_pathpat_covers() after a cheap rejection through sig (which must describe path). */
int pol_pathpat_covers_sig(const struct pol_pathpat *pp, const char *abs_path,
			   const struct pol_path_sig *sig);

/* policy.c */
void pol_strv_free(char **v, size_t n);

/* json.c: the one JSON writer of policy/. Text goes into b (size bytes) at n; the
 * last reserve bytes stay free for what the caller closes with itself. A piece that
 * does not fit whole is left out and makes the writer full: every later piece is left
 * out too, until the caller clears full (to close, in the room it kept). */
struct pol_json {
	char *b;
	size_t n, size, reserve;
	int full;
};
/* len bytes as they are (a brace, a number). */
void pol_json_raw(struct pol_json *j, const char *s, size_t len);
/* At most max bytes of s, cut on a character boundary, as the inside of a JSON string:
 * quote, backslash and control bytes (DEL too) escaped, bytes that are not UTF-8 (a
 * path is any bytes) as U+FFFD; keep more bytes stay free (a closing quote). */
void pol_json_chars(struct pol_json *j, const char *s, size_t max, size_t keep);
/* A JSON string of at most max bytes of s, or null when s is NULL. */
void pol_json_str(struct pol_json *j, const char *s, size_t max);
/* "k": after a comma unless it is the object's first; left out, and the writer full,
 * when there is no room for it and the smallest value after it. */
void pol_json_key(struct pol_json *j, const char *k);

/* facts.c: the data sections' facts (see struct pol_policy). */
enum pol_fact {
	POL_FACT_CATA_WORD,    /* catastrophic.words: a command word naming the root or home */
	POL_FACT_CATA_PREFIX,  /* catastrophic.prefixes: a word (or of=word) naming a disk */
	POL_FACT_OWNER_FOLDER, /* ownerFolders: an absolute folder ending with '/' */
};
/* Appends a copy of s to the list v of n strings: 0 or -ENOMEM. */
int pol_strv_push(char ***v, size_t *n, const char *s);
/* Adds one fact, copied, or borrowed when borrow is set (a snapshot's string, which
 * outlives p): 0, -EINVAL (empty, or a folder not absolute or not ending with '/') or
 * -ENOMEM. */
int pol_fact_add(struct pol_policy *p, enum pol_fact kind, const char *s, int borrow);
/* Sets the reason and up to two suggestions (NULL: none) of kind's path rules added
 * from now on, replacing what was set, copied or borrowed: 0, -EINVAL or -ENOMEM. */
int pol_fact_path_reason(struct pol_policy *p, enum pol_path_kind kind, const char *reason,
			 const char *sugg0, const char *sugg1, int borrow);
/* The reason of kind's path rules: the data's, else a short built-in fallback. */
const char *pol_path_reason(const struct pol_policy *p, enum pol_path_kind kind);
void pol_facts_free(struct pol_policy *p);
/* Is the command word w a catastrophic target: one of the words, starting with one of
 * the prefixes (also after "of="), or, when any word is set, the home folder itself? */
int pol_catastrophic_word(const struct pol_policy *p, const char *w);
/* Adds a suggestion (copied) to r; the allow suggestion is "If intentional: dcg allow
 * ID -r \"reason\"", which every rule ends with. 0 or -ENOMEM. */
int pol_rule_add_suggestion(struct pol_rule *r, const char *s);
int pol_rule_add_allow_suggestion(struct pol_rule *r);

/* load.c: the layers of a policy, whose IDs say where a rule comes from */
enum pol_scope {
	POL_SCOPE_DEFAULT = 0,
	POL_SCOPE_USER,
	POL_SCOPE_PROJECT,
	POL_SCOPE_POLICY,
	POL_SCOPE_SYSTEM
};
/* Loads one policy file as scope (trust_file: the project's trust record, or NULL).
 * Returns 0, -ENOENT, -EINVAL (diagnostics added) or another negative errno. */
int pol_load_file_scoped(struct pol_policy *p, const char *path, int scope, const char *trust_file);

/* util.c */
char *pol_strdup(const char *s);
char *pol_strndup(const char *s, size_t n);
void pol_copy_matched(struct pol_result *r, const char *text, size_t len);
void pol_copy_str(char *dst, size_t size, const char *src);
/* a, b and c one after the other in dst (size bytes), cut and NUL-terminated as
 * snprintf "%s%s%s" would cut them; returns the length of the whole (>= size: cut).
 * dst may lie in the same area as the arguments, after them. Not snprintf: the hook
 * calls it at every start, and snprintf's code is two more pages of libc to fault in. */
size_t pol_cat3(char *dst, size_t size, const char *a, const char *b, const char *c);
/* The last '/' of s, or NULL. Not strrchr: the hook's lookups upwards (the project, the
 * intents file) were its only callers on a call's way, and each libc function a call
 * meets first costs a lazy binding. */
char *pol_last_slash(const char *s);

/* The path rule kinds (a bit per enum pol_path_kind) that refuse op on a path with the
 * POL_PATH_* flags: the one table decide.c and the guest's path index (pathidx.c) both
 * read. A file made during the session (POL_PATH_SESSION_NEW) may be deleted or renamed
 * away, or replace a name, in a no-delete folder (an atomic save); an unknown op is
 * refused by every kind. Inline, because the lean guest links pathidx.c alone. */
/* With the kinds of pol_op_refusing_kinds(), in a path decision's own mask: the
 * operation only takes a name away (delete, rename from, the source of a link), which
 * rules that guard against planting (pol_rule.plants) never refuse. */
#define POL_KINDS_REMOVE (1u << 8)

static inline unsigned pol_op_refusing_kinds(enum pol_op op, unsigned flags)
{
	enum {
		ZA_ = 1u << POL_PATH_ZERO_ACCESS,
		RO_ = 1u << POL_PATH_READ_ONLY,
		ND_ = 1u << POL_PATH_NO_DELETE,
	};
	/* Four bits an operation, in one constant rather than a table in .rodata: the
	 * guest asks this in every fork child that checks an exec, and a table's page is
	 * one more page fault there. */
#define POL_KINDS_OF(op, k) ((uint64_t)(k) << (4 * (op)))
	const uint64_t by_op =
	    POL_KINDS_OF(POL_OP_READ, ZA_) | POL_KINDS_OF(POL_OP_WRITE, ZA_ | RO_) |
	    POL_KINDS_OF(POL_OP_CREATE, ZA_ | RO_) | POL_KINDS_OF(POL_OP_TRUNCATE, ZA_ | RO_) |
	    POL_KINDS_OF(POL_OP_DELETE, ZA_ | RO_ | ND_) |
	    POL_KINDS_OF(POL_OP_RENAME_FROM, ZA_ | RO_ | ND_) |
	    POL_KINDS_OF(POL_OP_RENAME_TO, ZA_ | RO_ | ND_) |
	    POL_KINDS_OF(POL_OP_CHMOD, ZA_ | RO_) | POL_KINDS_OF(POL_OP_EXEC, ZA_) |
	    POL_KINDS_OF(POL_OP_LIST, ZA_) | POL_KINDS_OF(POL_OP_LINK_FROM, ZA_ | RO_);
#undef POL_KINDS_OF
	_Static_assert(POL_OP__COUNT <= 16 && (ZA_ | RO_ | ND_) <= 0xf, "four bits an operation");
	unsigned kinds = (unsigned)op < POL_OP__COUNT
			     ? (unsigned)(by_op >> (4 * (unsigned)op)) & 0xfu
			     : ZA_ | RO_ | ND_;

	if ((flags & POL_PATH_SESSION_NEW) &&
	    (op == POL_OP_DELETE || op == POL_OP_RENAME_FROM || op == POL_OP_RENAME_TO))
		kinds &= ~(unsigned)ND_;
	return kinds;
}

#endif /* DCG_POLICY_INTERNAL_H */
