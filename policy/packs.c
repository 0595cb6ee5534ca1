/* packs.c - the rule packs a policy holds: a pack is the prefix of its rules' IDs
 * (core.git.reset_hard is in core.git), on when any of its rules is active. What each
 * pack guards is said here once, for `dcg packs`. */
#include "dcg_policy.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* What the packs of the embedded policy guard, sorted by name: each pack's name, then
 * what it guards, each ended by a NUL. One string, not a table of pointers, which the
 * loader would relocate at every start of dcg (cli/README.md, "cost"). */
static const char guards[] =
    "backups\0"
    "backup snapshots and vaults (restic, borg, duplicity, velero, AWS Backup)\0"
    "cdn\0"
    "distributions and edge code and storage (CloudFront, Fastly, Cloudflare, Azure CDN)\0"
    "cicd\0"
    "CI secrets, variables, runs, releases and pipelines (gh, glab, CircleCI, Argo CD)\0"
    "cloud\0"
    "cloud resources, buckets, secrets and projects (aws, gcloud, az, terraform ...)\0"
    "containers\0"
    "containers, volumes, namespaces and releases (docker, kubectl, helm)\0"
    "core.filesystem\0"
    "trees, disks and files: rm -rf, find -delete, shred, mkfs, dd, rsync\0"
    "core.git\0"
    "uncommitted work and shared history: reset --hard, push --force, clean -f\0"
    "database\0"
    "databases, tables, collections and keys in every client and framework\0"
    "disks\0"
    "partition tables, RAID members, LUKS headers, device-mapper tables, secure erase\0"
    "dns\0"
    "DNS records and zones (Route 53, Cloud DNS, Azure DNS, Cloudflare, octoDNS)\0"
    "email\0"
    "mail queues and e-mail services' domains, templates and lists (postsuper, SendGrid, Mailgun "
    "...)\0"
    "flags\0"
    "feature flags, projects and environments (LaunchDarkly, ConfigCat, Unleash, Flagsmith, "
    "Split)\0"
    "heredoc.node\0"
    "Node code that deletes trees or runs shell commands\0"
    "heredoc.perl\0"
    "Perl code that deletes trees or runs shell commands\0"
    "heredoc.php\0"
    "PHP code that deletes files or runs shell commands\0"
    "heredoc.python\0"
    "Python code that deletes trees, runs shell commands or drops tables\0"
    "heredoc.ruby\0"
    "Ruby code that deletes trees or runs shell commands\0"
    "hosting\0"
    "add-ons, volumes, databases, functions and domains of hosted apps (Heroku, Fly, Vercel, "
    "Firebase ...)\0"
    "http\0"
    "raw HTTP APIs: DELETE requests and bulk-destroying endpoints (curl, wget, httpie, xh, gh "
    "api)\0"
    "iac\0"
    "infrastructure state and workspaces (terraform state, pulumi stacks)\0"
    "kubernetes\0"
    "workloads, volumes and nodes of a cluster (kubectl, oc, helm)\0"
    "messaging\0"
    "topics, queues and streams (Kafka, RabbitMQ, SQS, SNS, NATS)\0"
    "monitoring\0"
    "monitoring data, projects and releases (Sentry, InfluxDB, Prometheus)\0"
    "payments\0"
    "customers, subscriptions and live-mode data (Stripe)\0"
    "registry\0"
    "published versions, releases and images (gem yank, nuget delete, gh release delete, crane "
    "...)\0"
    "remote\0"
    "copies that delete on another machine (rsync --delete to HOST:, lftp mirror -R --delete)\0"
    "remote-exec\0"
    "downloaded or decoded code run without review\0"
    "search\0"
    "search indexes, documents and snapshots (Elasticsearch, OpenSearch, Meilisearch, Algolia "
    "...)\0"
    "secrets\0"
    "private keys and credentials printed or exported\0"
    "shell\0"
    "commands that cannot be analysed safely\0"
    "shell.parse\0"
    "commands that cannot be parsed safely: unterminated, malformed, too deep\0"
    "storage\0"
    "volumes, pools and datasets (ZFS, LVM, btrfs, Ceph, HDFS)\0"
    "system\0"
    "the machine itself: shutdown, kill -1, crontab, block devices\0"
    "unknown\0"
    "tools without a pack asked to delete, destroy, drop, purge or revoke something by name\0";

static const char *pack_guards(const char *name, size_t len)
{
	for (const char *g = guards; *g;) {
		const char *what = g + strlen(g) + 1;

		if (strlen(g) == len && !memcmp(g, name, len))
			return what;
		g = what + strlen(what) + 1;
	}
	return NULL;
}

/* Does a rule before rule i hold the pack of id (its first len bytes)? */
static int seen_before(const struct pol_policy *p, size_t i, const char *id, size_t len)
{
	for (size_t j = 0; j < i; j++) {
		const struct pol_rule *r = &pol_rules(p)[j];
		const char *dot = strrchr(r->id, '.');

		if (r->kind != POL_RULE_PATH && dot && (size_t)(dot - r->id) == len &&
		    !memcmp(r->id, id, len))
			return 1;
	}
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct pol_pack_info *)a)->name,
		      ((const struct pol_pack_info *)b)->name);
}

size_t pol_pack_list(const struct pol_policy *p, struct pol_pack_info *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < p->n_rules; i++) {
		const struct pol_rule *r = &pol_rules(p)[i];
		const char *dot = strrchr(r->id, '.');
		size_t len, k;

		if (r->kind == POL_RULE_PATH || !dot)
			continue;
		len = (size_t)(dot - r->id);
		for (k = 0; k < n && k < max; k++)
			if (strlen(out[k].name) == len && !memcmp(out[k].name, r->id, len))
				break;
		if (k == max && n >= max) {
			/* past the room given: counted once, at its first rule, not written */
			n += !seen_before(p, i, r->id, len);
			continue;
		}
		if (k == n) {
			if (n < max) {
				char *name = pol_mem_alloc(len + 1);
				if (!name)
					break;
				memcpy(name, r->id, len);
				name[len] = '\0';
				out[n].name = name;
				out[n].rules = out[n].active = 0;
				out[n].guards = pack_guards(r->id, len);
				if (!out[n].guards)
					out[n].guards = r->reason;
			}
			n++;
			if (k >= max)
				continue;
		}
		out[k].rules++;
		out[k].active += r->active != 0;
	}
	if (n <= max)
		qsort(out, n, sizeof(out[0]), by_name);
	return n;
}

void pol_pack_list_release(struct pol_pack_info *packs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		pol_mem_free((void *)packs[i].name);
}
