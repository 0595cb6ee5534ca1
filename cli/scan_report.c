/* scan_report.c - `dcg scan`'s findings written out: text (one line each, like a
 * compiler's), JSON (cJSON) and SARIF 2.1.0 (cJSON; the structure code-scanning
 * services read: tool.driver with its rules, results with a physical location). */
#include "scan.h"

#include "hook.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

int scan_report_add(struct scan_report *r, const struct scan_finding *f)
{
	struct scan_finding *d;

	if (r->n == r->cap) {
		size_t nc = r->cap ? r->cap * 2 : 32;
		struct scan_finding *nv = realloc(r->v, nc * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		r->v = nv;
		r->cap = nc;
	}
	d = &r->v[r->n];
	*d = *f;
	d->file = strdup(f->file);
	d->matched = strdup(f->matched ? f->matched : "");
	if (!d->file || !d->matched) {
		free(d->file);
		free(d->matched);
		return -ENOMEM;
	}
	r->n++;
	return 0;
}

int scan_report_note(struct scan_report *r, const char *file, unsigned line, unsigned count,
		     const char *rule_id)
{
	struct scan_note *nv = realloc(r->notes, (r->n_notes + 1) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	r->notes = nv;
	nv[r->n_notes].file = strdup(file);
	if (!nv[r->n_notes].file)
		return -ENOMEM;
	nv[r->n_notes].line = line;
	nv[r->n_notes].count = count;
	nv[r->n_notes].rule_id = rule_id;
	r->n_notes++;
	return 0;
}

void scan_report_release(struct scan_report *r)
{
	for (size_t i = 0; i < r->n_notes; i++)
		free(r->notes[i].file);
	free(r->notes);
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].file);
		free(r->v[i].matched);
	}
	free(r->v);
	memset(r, 0, sizeof(*r));
}

static int by_place(const void *a, const void *b)
{
	const struct scan_finding *x = a, *y = b;
	int c = strcmp(x->file, y->file);

	if (c)
		return c;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->col != y->col)
		return x->col < y->col ? -1 : 1;
	return strcmp(x->rule_id, y->rule_id);
}

/* The matched text as shown: one line, valid UTF-8, quoted strings redacted off a
 * terminal (DESIGN.md "Messages"). */
static void shown(const struct scan_report *r, const struct scan_finding *f, char *out, size_t size)
{
	char red[POL_MATCHED_BYTES + 8];
	size_t n = strlen(f->matched);

	if (!r->tty)
		n = pol_redact(f->matched, n, red, sizeof(red));
	else
		n = (size_t)snprintf(red, sizeof(red), "%s", f->matched);
	n = hook_utf8_sanitize(red, n < sizeof(red) ? n : sizeof(red) - 1, out, size);
	for (size_t i = 0; i < n; i++)
		if (out[i] == '\n' || out[i] == '\r' || out[i] == '\t')
			out[i] = ' ';
}

static void write_text(const struct scan_report *r, FILE *out)
{
	char m[POL_MATCHED_BYTES * 2];
	size_t deny = 0, ask = 0, warn = 0;

	for (size_t i = 0; i < r->n; i++) {
		const struct scan_finding *f = &r->v[i];
		shown(r, f, m, sizeof(m));
		fprintf(out, "%s:%u:%u: %s %s: %s\n    %s (%s): %s\n", f->file, f->line, f->col,
			pol_decision_name(f->decision), f->rule_id, f->reason, f->where,
			scan_kind_name(f->kind), m);
		if (f->n_suggestions)
			fprintf(out, "    suggestion: %s\n", f->suggestions[0]);
		deny += f->decision == POL_DENY;
		ask += f->decision == POL_ASK;
		warn += f->decision == POL_WARN;
	}
	fprintf(out, "dcg scan: %zu files, %zu lines: %zu deny, %zu ask, %zu warn%s%s\n", r->files,
		r->lines, deny, ask, warn, r->errors ? " (some files not checked)" : "",
		r->n_notes ? " (some lines not analysed)" : "");
}

/* A file name as JSON may carry it: valid UTF-8 (a bad byte as '?'). */
static void json_name(const char *file, char *out, size_t size)
{
	hook_utf8_sanitize(file, strlen(file), out, size);
}

/* A repository-relative path as a URI reference (RFC 3986): every byte but the
 * unreserved characters and '/' percent-encoded ("my file.sh": "my%20file.sh"). */
static void uri_of(const char *file, struct hook_buf *b)
{
	for (const unsigned char *c = (const unsigned char *)file; *c; c++) {
		if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		    (*c >= '0' && *c <= '9') || strchr("-._~/", *c))
			hook_buf_add(b, (const char *)c, 1);
		else
			hook_buf_addf(b, "%%%02X", *c);
	}
}

static cJSON *finding_json(const struct scan_report *r, const struct scan_finding *f)
{
	char name[4096];

	char m[POL_MATCHED_BYTES * 2];
	cJSON *o = cJSON_CreateObject(), *s;

	shown(r, f, m, sizeof(m));
	json_name(f->file, name, sizeof(name));
	cJSON_AddStringToObject(o, "file", name);
	cJSON_AddNumberToObject(o, "line", f->line);
	cJSON_AddNumberToObject(o, "column", f->col);
	cJSON_AddStringToObject(o, "kind", scan_kind_name(f->kind));
	cJSON_AddStringToObject(o, "context", f->where);
	cJSON_AddStringToObject(o, "decision", pol_decision_name(f->decision));
	cJSON_AddStringToObject(o, "rule_id", f->rule_id);
	cJSON_AddStringToObject(o, "severity", pol_severity_name(f->severity));
	cJSON_AddStringToObject(o, "reason", f->reason);
	cJSON_AddStringToObject(o, "matched", m);
	s = cJSON_AddArrayToObject(o, "suggestions");
	for (size_t k = 0; s && k < f->n_suggestions; k++)
		cJSON_AddItemToArray(s, cJSON_CreateString(f->suggestions[k]));
	return o;
}

static cJSON *report_json(const struct scan_report *r)
{
	cJSON *o = cJSON_CreateObject(), *a;

	cJSON_AddStringToObject(o, "version", DCG_VERSION);
	cJSON_AddNumberToObject(o, "files", (double)r->files);
	cJSON_AddNumberToObject(o, "lines", (double)r->lines);
	cJSON_AddNumberToObject(o, "errors", (double)r->errors);
	a = cJSON_AddArrayToObject(o, "findings");
	for (size_t i = 0; a && i < r->n; i++)
		cJSON_AddItemToArray(a, finding_json(r, &r->v[i]));
	a = cJSON_AddArrayToObject(o, "not_analysed");
	for (size_t i = 0; a && i < r->n_notes; i++) {
		cJSON *nt = cJSON_CreateObject();
		char name[4096];
		json_name(r->notes[i].file, name, sizeof(name));
		cJSON_AddStringToObject(nt, "file", name);
		cJSON_AddNumberToObject(nt, "line", r->notes[i].line);
		cJSON_AddNumberToObject(nt, "count", r->notes[i].count);
		cJSON_AddStringToObject(nt, "rule_id", r->notes[i].rule_id);
		cJSON_AddItemToArray(a, nt);
	}
	return o;
}

/* ---- SARIF 2.1.0 --------------------------------------------------------------------- */

static cJSON *sarif_text(const char *text)
{
	cJSON *m = cJSON_CreateObject();

	cJSON_AddStringToObject(m, "text", text);
	return m;
}

/* One reportingDescriptor per rule met: id, shortDescription (the reason), help (the
 * suggestions), the level of its first finding. *index gets each finding's rule. */
static cJSON *sarif_rules(const struct scan_report *r, size_t *index)
{
	cJSON *rules = cJSON_CreateArray();
	const struct scan_finding **met = calloc(r->n + 1, sizeof(*met));
	size_t n = 0;

	for (size_t i = 0; met && i < r->n; i++) {
		size_t k = 0;
		while (k < n && strcmp(met[k]->rule_id, r->v[i].rule_id)) /* the rules met: few */
			k++;
		index[i] = k;
		if (k < n)
			continue;
		const struct scan_finding *f = met[n++] = &r->v[i];
		struct hook_buf help = HOOK_BUF_INIT;
		cJSON *d = cJSON_CreateObject(), *conf = cJSON_CreateObject();
		cJSON_AddStringToObject(d, "id", f->rule_id);
		cJSON_AddItemToObject(d, "shortDescription", sarif_text(f->reason));
		for (size_t s = 0; s < f->n_suggestions; s++)
			hook_buf_addf(&help, "%s- %s", s ? "\n" : "", f->suggestions[s]);
		cJSON_AddItemToObject(d, "help", sarif_text(help.s ? help.s : f->reason));
		hook_buf_release(&help);
		cJSON_AddStringToObject(conf, "level",
					f->decision == POL_DENY ? "error" : "warning");
		cJSON_AddItemToObject(d, "defaultConfiguration", conf);
		cJSON_AddItemToArray(rules, d);
	}
	free(met);
	return rules;
}

static cJSON *sarif_result(const struct scan_report *r, const struct scan_finding *f,
			   size_t rule_index)
{
	char m[POL_MATCHED_BYTES * 2];
	struct hook_buf msg = HOOK_BUF_INIT;
	cJSON *res = cJSON_CreateObject(), *locs, *loc = cJSON_CreateObject(),
	      *phys = cJSON_CreateObject(), *art = cJSON_CreateObject(),
	      *reg = cJSON_CreateObject();

	shown(r, f, m, sizeof(m));
	cJSON_AddStringToObject(res, "ruleId", f->rule_id);
	cJSON_AddNumberToObject(res, "ruleIndex", (double)rule_index);
	cJSON_AddStringToObject(res, "level", f->decision == POL_DENY ? "error" : "warning");
	hook_buf_addf(&msg, "%s: %s (%s: %s)", pol_decision_name(f->decision), f->reason, f->where,
		      m);
	cJSON_AddItemToObject(res, "message", sarif_text(msg.s ? msg.s : f->reason));
	hook_buf_release(&msg);
	struct hook_buf uri = HOOK_BUF_INIT;
	uri_of(f->file, &uri);
	cJSON_AddStringToObject(art, "uri", uri.s ? uri.s : "");
	hook_buf_release(&uri);
	cJSON_AddStringToObject(art, "uriBaseId", "%SRCROOT%");
	cJSON_AddItemToObject(phys, "artifactLocation", art);
	cJSON_AddNumberToObject(reg, "startLine", f->line);
	cJSON_AddNumberToObject(reg, "startColumn", f->col);
	cJSON_AddItemToObject(phys, "region", reg);
	cJSON_AddItemToObject(loc, "physicalLocation", phys);
	locs = cJSON_AddArrayToObject(res, "locations");
	cJSON_AddItemToArray(locs, loc);
	return res;
}

static cJSON *report_sarif(const struct scan_report *r)
{
	cJSON *log = cJSON_CreateObject(), *runs, *run = cJSON_CreateObject(),
	      *tool = cJSON_CreateObject(), *drv = cJSON_CreateObject(), *results;
	size_t *index = calloc(r->n + 1, sizeof(*index));

	if (!index) {
		cJSON_Delete(log);
		return NULL;
	}
	cJSON_AddStringToObject(log, "version", "2.1.0");
	cJSON_AddStringToObject(log, "$schema", "https://json.schemastore.org/sarif-2.1.0.json");
	runs = cJSON_AddArrayToObject(log, "runs");
	cJSON_AddStringToObject(drv, "name", "dcg");
	cJSON_AddStringToObject(drv, "version", DCG_VERSION);
	cJSON_AddStringToObject(drv, "semanticVersion", DCG_VERSION);
	cJSON_AddItemToObject(drv, "rules", sarif_rules(r, index));
	cJSON_AddItemToObject(tool, "driver", drv);
	cJSON_AddItemToObject(run, "tool", tool);
	cJSON_AddStringToObject(run, "columnKind", "unicodeCodePoints");
	results = cJSON_AddArrayToObject(run, "results");
	for (size_t i = 0; i < r->n; i++)
		cJSON_AddItemToArray(results, sarif_result(r, &r->v[i], index[i]));
	cJSON_AddItemToArray(runs, run);
	free(index);
	return log;
}

int scan_report_write(struct scan_report *r, enum scan_format fmt, FILE *out)
{
	cJSON *o;
	char *s;

	if (r->n)
		qsort(r->v, r->n, sizeof(r->v[0]), by_place);
	if (fmt == SCAN_TEXT) {
		write_text(r, out);
		return 0;
	}
	o = fmt == SCAN_JSON ? report_json(r) : report_sarif(r);
	s = o ? cJSON_Print(o) : NULL;
	cJSON_Delete(o);
	if (!s)
		return -ENOMEM;
	fprintf(out, "%s\n", s);
	free(s);
	return 0;
}
