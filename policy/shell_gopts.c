/* shell_gopts.c - the global options of the CLIs agents drive, each with its arity, so
 * that a rule written for `TOOL NOUN VERB` sees it however the options are placed:
 * `gh -R o/r repo delete`, `kubectl delete --context prod ns x`, `terraform
 * -chdir=infra destroy`, `aws --profile p --region r s3 rb ...`. The normalized view
 * drops them (the view as written still goes out, for rules that read them); see
 * sh_gopts_strip(). Taken from each tool's own reference of its global (persistent)
 * flags. */
#include "shell_int.h"

#include <string.h>

/* One row per CLI, sorted by name (bytes; test_shell checks the order and the form):
 * the name, then its options, each a word of the mode and the option, the list ended
 * by an empty word. Modes:
 *   'F' a flag, 'V' takes a value (the next word, or after '=', or glued to a short
 *       option): before the subcommand only (git's -C is another thing after `git
 *       grep`; docker's -H after `docker run`)
 *   'f' a flag, 'v' takes a value: wherever it stands before "--" (cobra's persistent
 *       flags, the aws CLI's global options)
 * An option written with one dash and a long name (Go's flag package: -chdir, -address)
 * is also taken with two. Before the subcommand, an option the row does not list is
 * taken for a flag: its arity is unknown, and a flag is what most are. Arrays, no
 * pointers (policy/README.md: static tables hold none), found by binary search. */
const struct sh_gopts_row sh_gopts[] = {
    /* algolia: the profile every command takes */
    {"algolia", "v--profile\0v-p\0f--no-interactive\0"},
    /* argocd: the persistent flags of argocd's reference */
    {"argocd", "v--server\0v--auth-token\0v--config\0v--port-forward-namespace\0v--header\0"
	       "v--kube-context\0v--loglevel\0f--grpc-web\0f--insecure\0f--plaintext\0"
	       "f--core\0f--port-forward\0"},
    /* aws: the global options of the AWS CLI reference, valid anywhere */
    {"aws", "v--profile\0v--region\0v--endpoint-url\0v--output\0v--query\0v--ca-bundle\0"
	    "v--cli-read-timeout\0v--cli-connect-timeout\0v--color\0"
	    "v--cli-binary-format\0f--debug\0f--no-verify-ssl\0f--no-paginate\0"
	    "f--no-sign-request\0f--no-cli-pager\0f--cli-auto-prompt\0"
	    "f--no-cli-auto-prompt\0"},
    /* az: global arguments */
    {"az", "v--subscription\0v--output\0v-o\0v--query\0f--debug\0f--verbose\0"
	   "f--only-show-errors\0"},
    /* bq: global flags come before the command */
    {"bq", "V--project_id\0V--location\0V--dataset_id\0V--format\0V--api\0V--apilog\0"
	   "V--api_version\0V--credential_file\0F--headless\0F-q\0F--quiet\0"},
    {"bw", "v--session\0f--nointeraction\0f--raw\0f--pretty\0f--quiet\0"},
    /* cargo: options before the subcommand */
    {"cargo", "V--config\0V-Z\0V-C\0V--color\0F-v\0F-q\0F--frozen\0F--locked\0F--offline\0"},
    /* cdk: the toolkit's global options */
    {"cdk", "v--app\0v-a\0v--context\0v-c\0v--profile\0v--role-arn\0v-r\0v--output\0"
	    "v-o\0v--plugin\0v-p\0f--debug\0f--verbose\0f-v\0f--ci\0f--no-color\0"},
    /* circleci */
    {"circleci", "v--token\0v--host\0f--debug\0f--skip-update-check\0"},
    /* docker: the daemon options come before the command */
    {"docker", "V-H\0V--host\0V-c\0V--context\0V--config\0V-l\0V--log-level\0V--tlscacert\0"
	       "V--tlscert\0V--tlskey\0F-D\0F--debug\0F--tls\0F--tlsverify\0"},
    {"docker-compose", "V-f\0V--file\0V-p\0V--project-name\0V--project-directory\0V--env-file\0"
		       "V--profile\0V-H\0V--host\0V--context\0V-c\0V--ansi\0F--verbose\0"
		       "F--dry-run\0"},
    /* doctl: global flags */
    {"doctl", "v--context\0v--access-token\0v-t\0v--api-url\0v--config\0v-c\0v--output\0"
	      "v-o\0f--trace\0f--verbose\0f-v\0f--interactive\0"},
    /* doppler: global and project/config flags */
    {"doppler", "v--token\0v--config-dir\0v--scope\0v--api-host\0v--project\0v-p\0"
		"v--config\0v-c\0f--debug\0f--silent\0f--no-check-version\0"},
    /* firebase: global options */
    {"firebase", "v--project\0v-P\0v--account\0f--json\0f-j\0f--non-interactive\0"
		 "f--interactive\0f--debug\0"},
    /* fly / flyctl: global flags, and the app every command takes */
    {"fly", "v--access-token\0v-t\0v--app\0v-a\0v--config\0v-c\0f--debug\0f--verbose\0"},
    {"flyctl", "v--access-token\0v-t\0v--app\0v-a\0v--config\0v-c\0f--debug\0f--verbose\0"},
    /* gcloud: the gcloud-wide flags */
    {"gcloud", "v--project\0v--account\0v--configuration\0v--billing-project\0"
	       "v--impersonate-service-account\0v--verbosity\0v--format\0v--flags-file\0"
	       "v--flatten\0v--trace-token\0f--quiet\0f-q\0f--log-http\0"
	       "f--no-user-output-enabled\0"},
    /* gh: the repository flag every repository command takes */
    {"gh", "v-R\0v--repo\0v--hostname\0"},
    /* git: options before the subcommand */
    {"git", "V-C\0V-c\0V--git-dir\0V--work-tree\0V--namespace\0V--exec-path\0"
	    "V--config-env\0V--super-prefix\0V--list-cmds\0F-p\0F--paginate\0F-P\0"
	    "F--no-pager\0F--bare\0F--no-replace-objects\0F--literal-pathspecs\0"
	    "F--glob-pathspecs\0F--noglob-pathspecs\0F--icase-pathspecs\0"
	    "F--no-optional-locks\0F--no-advice\0"},
    {"glab", "v-R\0v--repo\0"},
    /* gsutil: top-level options before the command */
    {"gsutil", "V-o\0V-h\0V-u\0V-i\0F-m\0F-q\0F-D\0F-DD\0F-d\0"},
    {"hcloud", "v--context\0v--config\0v--endpoint\0v--poll-interval\0f--debug\0"},
    /* helm: the flags every helm command takes */
    {"helm", "v--kube-context\0v--namespace\0v-n\0v--kubeconfig\0v--kube-apiserver\0"
	     "v--kube-as-user\0v--kube-as-group\0v--kube-ca-file\0v--kube-token\0"
	     "v--kube-tls-server-name\0v--registry-config\0v--repository-cache\0"
	     "v--repository-config\0v--burst-limit\0v--qps\0f--debug\0"
	     "f--kube-insecure-skip-tls-verify\0"},
    {"helmfile", "v--file\0v-f\0v--environment\0v-e\0v--namespace\0v-n\0v--kube-context\0"
		 "v--selector\0v-l\0v--state-values-set\0v--state-values-file\0f--debug\0"
		 "f-q\0f--quiet\0"},
    /* heroku: the app and remote every command takes */
    {"heroku", "v--app\0v-a\0v--remote\0v-r\0"},
    {"infisical", "v--domain\0v--token\0v--projectId\0v--env\0f--silent\0"},
    {"influx", "v--host\0v--token\0v-t\0v--org\0v-o\0v--org-id\0v--configs-path\0"
	       "v--active-config\0v-c\0f--http-debug\0f--skip-verify\0"},
    /* jenkins-cli (java -jar jenkins-cli.jar): options before the command */
    {"jenkins-cli", "V-s\0V-auth\0V-i\0V-user\0V-logger\0F-webSocket\0F-http\0F-ssh\0"
		    "F-noCertificateCheck\0F-noKeyAuth\0"},
    /* kubectl: kubectl options (kubectl options), valid anywhere */
    {"kubectl", "v--context\0v--cluster\0v--user\0v--namespace\0v-n\0v--kubeconfig\0"
		"v--server\0v-s\0v--token\0v--as\0v--as-group\0v--as-uid\0"
		"v--certificate-authority\0v--client-certificate\0v--client-key\0"
		"v--request-timeout\0v--tls-server-name\0v--cache-dir\0v--username\0"
		"v--password\0v-v\0v--v\0v--profile\0v--profile-output\0v--log-file\0"
		"f--insecure-skip-tls-verify\0f--match-server-version\0"
		"f--warnings-as-errors\0"},
    {"ldcli", "v--access-token\0v--base-uri\0v--output\0v-o\0f--json\0"},
    {"mc", "v--config-dir\0v-C\0f--json\0f--quiet\0f-q\0f--insecure\0f--debug\0"
	   "f--no-color\0"},
    {"nats", "v--server\0v-s\0v--creds\0v--context\0v--user\0v--password\0v--nkey\0"
	     "v--tlscert\0v--tlskey\0v--tlsca\0v--timeout\0f--trace\0"},
    {"neonctl", "v--api-key\0v--project-id\0v--org-id\0v--output\0v-o\0v--config-dir\0"
		"f--no-color\0f--no-analytics\0"},
    /* nerdctl: global flags */
    {"nerdctl", "V--namespace\0V-n\0V--address\0V-a\0V-H\0V--host\0V--snapshotter\0"
		"V--cgroup-manager\0V--data-root\0V--cni-path\0F--debug\0F--debug-full\0"},
    /* oc: kubectl's options */
    {"oc", "v--context\0v--cluster\0v--user\0v--namespace\0v-n\0v--kubeconfig\0"
	   "v--server\0v-s\0v--token\0v--as\0v--as-group\0v--certificate-authority\0"
	   "v--client-certificate\0v--client-key\0v--request-timeout\0v-v\0v--v\0"
	   "f--insecure-skip-tls-verify\0"},
    {"oci", "v--profile\0v--config-file\0v--region\0v--auth\0v--endpoint\0v--output\0"
	    "f--debug\0"},
    /* op (1Password CLI): global flags */
    {"op", "v--account\0v--config\0v--session\0v--format\0v--encoding\0f--cache\0"
	   "f--debug\0f--iso-timestamps\0f--no-color\0"},
    /* platform, upsun: the project and environment every command takes */
    {"platform", "v--project\0v-p\0v--environment\0v-e\0v--app\0v-A\0f--yes\0f-y\0"
		 "f--no-wait\0"},
    /* podman: global options before the command */
    {"podman", "V--connection\0V-c\0V--url\0V--identity\0V--root\0V--runroot\0"
	       "V--storage-driver\0V--log-level\0V--cgroup-manager\0V--events-backend\0"
	       "V--tmpdir\0V--context\0F--remote\0F-r\0F--syslog\0"},
    {"pscale", "v--org\0v--service-token\0v--service-token-id\0v--api-url\0v--config\0"
	       "f--debug\0f--no-color\0"},
    /* pulumi: the flags every command takes, and the stack */
    {"pulumi", "v--cwd\0v-C\0v--stack\0v-s\0v--color\0v-v\0v--verbose\0f--non-interactive\0"
	       "f--logtostderr\0f--emoji\0f--disable-integrity-checking\0"},
    /* rabbitmqctl: the node and timeout before the command, the virtual host anywhere */
    {"rabbitmqctl", "V-n\0V--node\0V-t\0V--timeout\0v-p\0v--vhost\0F-q\0F--quiet\0F--longnames\0"
		    "F-s\0F--silent\0"},
    {"railway", "v--service\0v-s\0v--environment\0v-e\0f--json\0"},
    /* rclone: the flags that take a value, anywhere */
    {"rclone", "v--config\0v--transfers\0v--checkers\0v--bwlimit\0v--log-file\0"
	       "v--log-level\0v--exclude\0v--include\0v--filter\0v--filter-from\0"
	       "v--exclude-from\0v--include-from\0v--min-age\0v--max-age\0v--backup-dir\0"
	       "v--suffix\0v--max-delete\0f-v\0f-vv\0f-P\0f--progress\0f-q\0"},
    /* restic: global flags */
    {"restic", "v--repo\0v-r\0v--repository-file\0v--password-file\0v-p\0"
	       "v--password-command\0v--cache-dir\0v--key-hint\0v--option\0v-o\0"
	       "v--limit-upload\0v--limit-download\0f-q\0f--quiet\0f-v\0f--verbose\0"
	       "f--no-cache\0f--no-lock\0f--insecure-tls\0f--json\0"},
    {"rpk", "v-X\0v--profile\0v--config\0v--brokers\0f-v\0f--verbose\0"},
    /* sam: the options every command takes */
    {"sam", "v--profile\0v--region\0v--config-env\0v--config-file\0f--debug\0"},
    {"sentry-cli", "v--auth-token\0v--url\0v--log-level\0v--header\0v--org\0v-o\0v--project\0"
		   "v-p\0"},
    {"serverless", "v--stage\0v-s\0v--region\0v-r\0v--aws-profile\0v--config\0v-c\0f--verbose\0"
		   "f--debug\0"},
    {"sls", "v--stage\0v-s\0v--region\0v-r\0v--aws-profile\0v--config\0v-c\0f--verbose\0"
	    "f--debug\0"},
    /* stripe: global flags (--live is left to be seen) */
    {"stripe", "v--api-key\0v--project-name\0v-p\0v--color\0v--log-level\0v--device-name\0"},
    {"supabase", "v--workdir\0v--profile\0v--output\0f--debug\0f--experimental\0f--yes\0"},
    /* terraform, tofu: -chdir before the subcommand (Go flags: one dash or two) */
    {"terraform", "V-chdir\0F-help\0F-version\0"},
    {"terragrunt", "v--terragrunt-working-dir\0v--working-dir\0v--terragrunt-config\0"
		   "v--terragrunt-log-level\0v--log-level\0f--terragrunt-non-interactive\0"
		   "f--non-interactive\0"},
    {"tkn", "v--namespace\0v-n\0v--context\0v-c\0v--kubeconfig\0v-k\0"},
    {"tofu", "V-chdir\0F-help\0F-version\0"},
    {"upsun", "v--project\0v-p\0v--environment\0v-e\0v--app\0v-A\0f--yes\0f-y\0"
	      "f--no-wait\0"},
    /* vault: the HTTP options every command takes (Go flags: one dash or two) */
    {"vault", "v-address\0v-namespace\0v-ns\0v-ca-cert\0v-ca-path\0v-client-cert\0"
	      "v-client-key\0v-tls-server-name\0v-wrap-ttl\0v-mfa\0v-header\0"
	      "v-agent-address\0v-format\0f-tls-skip-verify\0f-policy-override\0"
	      "f-output-curl-string\0f-output-policy\0f-non-interactive\0"},
    {"velero", "v--namespace\0v-n\0v--kubeconfig\0v--kubecontext\0"},
    /* vercel: global options */
    {"vercel", "v--token\0v-t\0v--scope\0v-S\0v--team\0v-T\0v--cwd\0v--local-config\0v-A\0"
	       "v--global-config\0v-Q\0f--debug\0f-d\0"},
    /* wrangler: global flags */
    {"wrangler", "v--config\0v-c\0v--env\0v-e\0v--cwd\0f--experimental-json-config\0"},
};
const size_t sh_ngopts = sizeof(sh_gopts) / sizeof(sh_gopts[0]);

const char *sh_gopts_of(const char *name, size_t len)
{
	size_t lo = 0, hi = sh_ngopts;

	if (len >= sizeof(sh_gopts[0].name))
		return NULL;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strncmp(name, sh_gopts[mid].name, len);

		if (c == 0 && sh_gopts[mid].name[len])
			c = -1; /* a prefix of the row's name sorts before it */
		if (c == 0)
			return sh_gopts[mid].opts;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/* How many words option word w (with the next word present when more) takes per the
 * row: 0 when the row does not list it. *mode gets the option's mode. */
static size_t takes(const char *row, const struct sh_word *w, int more, char *mode)
{
	for (const char *o = row; *o; o += strlen(o) + 1) {
		const char *opt = o + 1;
		size_t ol = strlen(opt), skip = 0;
		int value = o[0] == 'V' || o[0] == 'v';

		/* -chdir also as --chdir (Go's flag package takes both) */
		if (opt[1] != '-' && ol > 2 && w->len > 2 && w->s[1] == '-')
			skip = 1;
		if (w->len - skip < ol || memcmp(w->s + skip, opt, ol) != 0)
			continue;
		*mode = o[0];
		if (w->len - skip == ol)
			return value && more ? 2 : 1;
		/* --opt=value, -opt=value; a short option's value glued to it: -Rowner/repo */
		if (value && (w->s[skip + ol] == '=' || (ol == 2 && opt[1] != '-')))
			return 1;
	}
	return 0;
}

size_t sh_gopts_strip(const char *row, struct sh_word **v, size_t n, struct sh_word **out)
{
	size_t i = 1, o = 1, dropped = 0;
	char mode = 0;

	out[0] = v[0];
	/* before the subcommand: every option (an unknown one as a flag) */
	while (i < n && v[i]->s[0] == '-' && v[i]->len > 1 && !weq(v[i], "--")) {
		size_t t = takes(row, v[i], i + 1 < n, &mode);

		t = t ? t : 1;
		i += t;
		dropped += t;
	}
	/* after it: the options valid anywhere, up to "--" */
	for (; i < n; i++) {
		size_t t = 0;

		if (weq(v[i], "--")) {
			while (i < n)
				out[o++] = v[i++];
			break;
		}
		if (v[i]->s[0] == '-')
			t = takes(row, v[i], i + 1 < n, &mode);
		if (t && (mode == 'f' || mode == 'v')) {
			i += t - 1;
			dropped += t;
			continue;
		}
		out[o++] = v[i];
	}
	return dropped && o > 1 ? o : n;
}
