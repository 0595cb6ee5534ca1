/* packs.c - the rule packs a policy holds: a pack is the prefix of its rules' IDs
 * (core.git.reset_hard is in core.git), on when any of its rules is active. What each
 * pack guards is said here once, for `dcg packs`. */
#include "dcg_policy.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* What the packs of the embedded policy guard, sorted by name. */
static const struct {
	const char *name, *guards;
} guards[] = {
    {"backups", "backup snapshots and vaults (restic, borg, duplicity, velero, AWS Backup)"},
    {"cdn", "distributions and edge code and storage (CloudFront, Fastly, Cloudflare, Azure CDN)"},
    {"cicd", "CI secrets, variables, runs, releases and pipelines (gh, glab, CircleCI, Argo CD)"},
    {"cloud", "cloud resources, buckets, secrets and projects (aws, gcloud, az, terraform ...)"},
    {"containers", "containers, volumes, namespaces and releases (docker, kubectl, helm)"},
    {"core.filesystem", "trees, disks and files: rm -rf, find -delete, shred, mkfs, dd, rsync"},
    {"core.git", "uncommitted work and shared history: reset --hard, push --force, clean -f"},
    {"database", "databases, tables, collections and keys in every client and framework"},
    {"dns", "DNS records and zones (Route 53, Cloud DNS, Azure DNS, Cloudflare, octoDNS)"},
    {"heredoc.node", "Node code that deletes trees or runs shell commands"},
    {"heredoc.perl", "Perl code that deletes trees or runs shell commands"},
    {"heredoc.php", "PHP code that deletes files or runs shell commands"},
    {"heredoc.python", "Python code that deletes trees, runs shell commands or drops tables"},
    {"heredoc.ruby", "Ruby code that deletes trees or runs shell commands"},
    {"iac", "infrastructure state and workspaces (terraform state, pulumi stacks)"},
    {"kubernetes", "workloads, volumes and nodes of a cluster (kubectl, oc, helm)"},
    {"messaging", "topics, queues and streams (Kafka, RabbitMQ, SQS, SNS, NATS)"},
    {"monitoring", "monitoring data, projects and releases (Sentry, InfluxDB, Prometheus)"},
    {"payments", "customers, subscriptions and live-mode data (Stripe)"},
    {"remote-exec", "downloaded or decoded code run without review"},
    {"secrets", "private keys and credentials printed or exported"},
    {"shell", "commands that cannot be analysed safely"},
    {"shell.parse", "commands that cannot be parsed safely: unterminated, malformed, too deep"},
    {"storage", "volumes, pools and datasets (ZFS, LVM, btrfs, Ceph, HDFS)"},
    {"system", "the machine itself: shutdown, kill -1, crontab, block devices"},
};

static const char *pack_guards(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(guards) / sizeof(guards[0]); i++)
		if (strlen(guards[i].name) == len && !memcmp(guards[i].name, name, len))
			return guards[i].guards;
	return NULL;
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
