/* scan.h - the parts of `dcg scan` (cli/cmd_scan.c): which files hold commands that run
 * later, and the commands each holds, with their place in the file. Internal to cli/.
 *
 * An extractor reads one file's text and adds a snippet for every piece of it that a
 * shell (or exec) will run: the whole of a shell script, one Makefile recipe line, one
 * Dockerfile RUN, one CI step's `run:` ... Each snippet says where its text lies: with
 * `exact`, line k of the text is line `line + k - 1` of the file (the engine's
 * pol_result.cmd_line then names the file's line); otherwise only the span
 * [line, end_line] is known and the finding is placed by searching it.
 *
 * Functions return 0 or a negative errno; on -EINVAL, err holds a short reason
 * ("YAML error at line 3: ...") for the file. Strings are the list's own.
 */
#ifndef DCG_SCAN_H
#define DCG_SCAN_H

#include <stddef.h>
#include <stdio.h>

enum scan_kind {
	SCAN_NONE = 0,
	SCAN_SHELL,   /* a shell script: by extension or by its #! line */
	SCAN_MAKE,    /* Makefile recipes, $(VAR) expanded where the file defines VAR */
	SCAN_DOCKER,  /* Dockerfile / Containerfile RUN: shell and exec forms, heredocs */
	SCAN_GHA,     /* GitHub Actions workflows and composite actions: steps' run: */
	SCAN_GITLAB,  /* GitLab CI: script, before_script, after_script */
	SCAN_NPM,     /* package.json scripts */
	SCAN_COMPOSE, /* docker compose: services' command and entrypoint */
	SCAN_JUST,    /* justfile recipes */
	SCAN_TF,      /* Terraform local-exec provisioners' command */
	SCAN__COUNT
};

/* The kind's name as output shows it ("shell", "makefile", ...). */
const char *scan_kind_name(enum scan_kind k);

/* The kind of file at path (repository-relative, '/'-separated), by its name, else by
 * the first bytes of its content (head, n bytes: a #! line naming a shell). */
enum scan_kind scan_classify(const char *path, const char *head, size_t n);

struct scan_snip {
	char *text; /* malloc'ed; NUL-terminated */
	size_t len;
	int is_argv;	   /* text is argv words, each ended by a NUL (an exec form) */
	unsigned line;	   /* 1-based file line of the text's first line */
	unsigned col;	   /* 1-based column of its first byte, 0 when not known */
	unsigned end_line; /* the last file line it spans */
	int exact;	   /* text line k is file line line + k - 1 */
	char where[80];	   /* what it is: "recipe clean", "job build", "script test" */
};

struct scan_snips {
	struct scan_snip *v;
	size_t n, cap;
	int oom;
};

/* Adds a copy of text (len bytes) as a snippet; returns it, or NULL (oom set). */
struct scan_snip *scan_snip_add(struct scan_snips *s, const char *text, size_t len, unsigned line,
				unsigned col, int exact);
void scan_snips_release(struct scan_snips *s);

/* Adds the snippets of text (len bytes, NUL-terminated, the file's content) by kind. */
int scan_extract(enum scan_kind k, const char *text, size_t len, struct scan_snips *out, char *err,
		 size_t errsz);

/* The YAML kinds (cli/scan_yaml.c, libyaml): GHA, GITLAB, COMPOSE. */
int scan_extract_yaml(enum scan_kind k, const char *text, size_t len, struct scan_snips *out,
		      char *err, size_t errsz);

/* ---- findings and their report (cli/scan_report.c) ---------------------------------- */

/* One finding: a rule the engine applied to a snippet, placed in its file. Strings
 * are the finding's own (malloc'ed) but rule_id, reason and suggestions, which
 * point into the policy (kept until the report is written). */
struct scan_finding {
	char *file; /* repository-relative */
	unsigned line, col;
	int decision; /* enum pol_decision */
	int severity; /* enum pol_severity */
	const char *rule_id, *reason;
	const char *const *suggestions;
	size_t n_suggestions;
	char *matched; /* as the engine cut it; redacted on output off a terminal */
	char where[80];
	enum scan_kind kind;
};

/* A file the analyser could not read whole (a syntax it does not know: bash arrays,
 * arithmetic for loops ...): where first, and how many times. Not a finding: what it
 * could read is judged, and the hook still refuses such a command when an agent runs it. */
struct scan_note {
	char *file;
	unsigned line, count;
	const char *rule_id;
};

struct scan_report {
	struct scan_finding *v;
	size_t n, cap;
	struct scan_note *notes;
	size_t n_notes;
	size_t files, lines, errors; /* files read, their lines, files not checked */
	int tty;		     /* the output is a terminal: no redaction */
};

enum scan_format { SCAN_TEXT = 0, SCAN_JSON, SCAN_SARIF };

/* Adds a note (copies file). Returns 0 or -ENOMEM. */
int scan_report_note(struct scan_report *r, const char *file, unsigned line, unsigned count,
		     const char *rule_id);
/* Adds a finding (copies file and matched). Returns 0 or -ENOMEM. */
int scan_report_add(struct scan_report *r, const struct scan_finding *f);
void scan_report_release(struct scan_report *r);
/* Sorts the findings by file, line, column and writes them to out in the format.
 * Returns 0 or -ENOMEM. */
int scan_report_write(struct scan_report *r, enum scan_format fmt, FILE *out);

/* Limits: a file past SCAN_FILE_MAX bytes is not read (an error), a YAML file past
 * SCAN_YAML_NODES nodes or SCAN_YAML_DEPTH levels is refused, a Makefile variable's
 * expansion stops at SCAN_EXPAND_MAX bytes or SCAN_EXPAND_DEPTH levels. */
#define SCAN_FILE_MAX	  (4u * 1024 * 1024)
#define SCAN_YAML_NODES	  200000
#define SCAN_YAML_DEPTH	  128
#define SCAN_EXPAND_MAX	  (256u * 1024)
#define SCAN_EXPAND_DEPTH 16

#endif /* DCG_SCAN_H */
