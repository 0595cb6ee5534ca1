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
 * the name, then its options, each a word of the mode and the option, the row ended by
 * an empty word. Modes:
 *   '0' a flag, '1' takes a value (the next word, or after '=', or glued to a short
 *       option): before the subcommand only (git's -C is another thing after `git
 *       grep`; docker's -H after `docker run`)
 *   'f' a flag, 'v' takes a value: wherever it stands before "--" (cobra's persistent
 *       flags, the aws CLI's global options)
 * An option written with one dash and a long name (Go's flag package: -chdir, -address)
 * is also taken with two. Before the subcommand, an option the row does not list is
 * taken for a flag: its arity is unknown, and a flag is what most are. One string, no
 * pointers (policy/README.md: static tables hold none). */
const char sh_gopts[] =
    /* algolia: the profile every command takes */
    "algolia\0"
    "v--profile\0v-p\0f--no-interactive\0\0"
    /* argocd: the persistent flags of argocd's reference */
    "argocd\0"
    "v--server\0v--auth-token\0v--config\0v--port-forward-namespace\0v--header\0"
    "v--kube-context\0v--loglevel\0f--grpc-web\0f--insecure\0f--plaintext\0f--core\0"
    "f--port-forward\0\0"
    /* aws: the global options of the AWS CLI reference, valid anywhere */
    "aws\0"
    "v--profile\0v--region\0v--endpoint-url\0v--output\0v--query\0v--ca-bundle\0"
    "v--cli-read-timeout\0v--cli-connect-timeout\0v--color\0v--cli-binary-format\0"
    "f--debug\0f--no-verify-ssl\0f--no-paginate\0f--no-sign-request\0f--no-cli-pager\0"
    "f--cli-auto-prompt\0f--no-cli-auto-prompt\0\0"
    /* az: global arguments */
    "az\0"
    "v--subscription\0v--output\0v-o\0v--query\0f--debug\0f--verbose\0f--only-show-errors\0\0"
    /* bq: global flags come before the command */
    "bq\0"
    "1--project_id\0"
    "1--location\0"
    "1--dataset_id\0"
    "1--format\0"
    "1--api\0"
    "1--apilog\0"
    "1--api_version\0"
    "1--credential_file\0"
    "0--headless\0"
    "0-q\0"
    "0--quiet\0\0"
    "bw\0"
    "v--session\0f--nointeraction\0f--raw\0f--pretty\0f--quiet\0\0"
    /* cargo: options before the subcommand */
    "cargo\0"
    "1--config\0"
    "1-Z\0"
    "1-C\0"
    "1--color\0"
    "0-v\0"
    "0-q\0"
    "0--frozen\0"
    "0--locked\0"
    "0--offline\0\0"
    /* cdk: the toolkit's global options */
    "cdk\0"
    "v--app\0v-a\0v--context\0v-c\0v--profile\0v--role-arn\0v-r\0v--output\0v-o\0"
    "v--plugin\0v-p\0f--debug\0f--verbose\0f-v\0f--ci\0f--no-color\0\0"
    /* circleci */
    "circleci\0"
    "v--token\0v--host\0f--debug\0f--skip-update-check\0\0"
    /* docker: the daemon options come before the command */
    "docker\0"
    "1-H\0"
    "1--host\0"
    "1-c\0"
    "1--context\0"
    "1--config\0"
    "1-l\0"
    "1--log-level\0"
    "1--tlscacert\0"
    "1--tlscert\0"
    "1--tlskey\0"
    "0-D\0"
    "0--debug\0"
    "0--tls\0"
    "0--tlsverify\0\0"
    "docker-compose\0"
    "1-f\0"
    "1--file\0"
    "1-p\0"
    "1--project-name\0"
    "1--project-directory\0"
    "1--env-file\0"
    "1--profile\0"
    "1-H\0"
    "1--host\0"
    "1--context\0"
    "1-c\0"
    "1--ansi\0"
    "0--verbose\0"
    "0--dry-run\0\0"
    /* doctl: global flags */
    "doctl\0"
    "v--context\0v--access-token\0v-t\0v--api-url\0v--config\0v-c\0v--output\0v-o\0"
    "f--trace\0f--verbose\0f-v\0f--interactive\0\0"
    /* doppler: global and project/config flags */
    "doppler\0"
    "v--token\0v--config-dir\0v--scope\0v--api-host\0v--project\0v-p\0v--config\0v-c\0"
    "f--debug\0f--silent\0f--no-check-version\0\0"
    /* firebase: global options */
    "firebase\0"
    "v--project\0v-P\0v--account\0f--json\0f-j\0f--non-interactive\0f--interactive\0"
    "f--debug\0\0"
    /* fly / flyctl: global flags, and the app every command takes */
    "fly\0"
    "v--access-token\0v-t\0v--app\0v-a\0v--config\0v-c\0f--debug\0f--verbose\0\0"
    "flyctl\0"
    "v--access-token\0v-t\0v--app\0v-a\0v--config\0v-c\0f--debug\0f--verbose\0\0"
    /* gcloud: the gcloud-wide flags */
    "gcloud\0"
    "v--project\0v--account\0v--configuration\0v--billing-project\0"
    "v--impersonate-service-account\0v--verbosity\0v--format\0v--flags-file\0v--flatten\0"
    "v--trace-token\0f--quiet\0f-q\0f--log-http\0f--no-user-output-enabled\0\0"
    /* gh: the repository flag every repository command takes */
    "gh\0"
    "v-R\0v--repo\0v--hostname\0\0"
    /* git: options before the subcommand */
    "git\0"
    "1-C\0"
    "1-c\0"
    "1--git-dir\0"
    "1--work-tree\0"
    "1--namespace\0"
    "1--exec-path\0"
    "1--config-env\0"
    "1--super-prefix\0"
    "1--list-cmds\0"
    "0-p\0"
    "0--paginate\0"
    "0-P\0"
    "0--no-pager\0"
    "0--bare\0"
    "0--no-replace-objects\0"
    "0--literal-pathspecs\0"
    "0--glob-pathspecs\0"
    "0--noglob-pathspecs\0"
    "0--icase-pathspecs\0"
    "0--no-optional-locks\0"
    "0--no-advice\0\0"
    "glab\0"
    "v-R\0v--repo\0\0"
    /* gsutil: top-level options before the command */
    "gsutil\0"
    "1-o\0"
    "1-h\0"
    "1-u\0"
    "1-i\0"
    "0-m\0"
    "0-q\0"
    "0-D\0"
    "0-DD\0"
    "0-d\0\0"
    "hcloud\0"
    "v--context\0v--config\0v--endpoint\0v--poll-interval\0f--debug\0\0"
    /* helm: the flags every helm command takes */
    "helm\0"
    "v--kube-context\0v--namespace\0v-n\0v--kubeconfig\0v--kube-apiserver\0"
    "v--kube-as-user\0v--kube-as-group\0v--kube-ca-file\0v--kube-token\0"
    "v--kube-tls-server-name\0v--registry-config\0v--repository-cache\0"
    "v--repository-config\0v--burst-limit\0v--qps\0f--debug\0"
    "f--kube-insecure-skip-tls-verify\0\0"
    "helmfile\0"
    "v--file\0v-f\0v--environment\0v-e\0v--namespace\0v-n\0v--kube-context\0"
    "v--selector\0v-l\0v--state-values-set\0v--state-values-file\0f--debug\0f-q\0"
    "f--quiet\0\0"
    /* heroku: the app and remote every command takes */
    "heroku\0"
    "v--app\0v-a\0v--remote\0v-r\0\0"
    "infisical\0"
    "v--domain\0v--token\0v--projectId\0v--env\0f--silent\0\0"
    "influx\0"
    "v--host\0v--token\0v-t\0v--org\0v-o\0v--org-id\0v--configs-path\0"
    "v--active-config\0v-c\0f--http-debug\0f--skip-verify\0\0"
    /* jenkins-cli (java -jar jenkins-cli.jar): options before the command */
    "jenkins-cli\0"
    "1-s\0"
    "1-auth\0"
    "1-i\0"
    "1-user\0"
    "1-logger\0"
    "0-webSocket\0"
    "0-http\0"
    "0-ssh\0"
    "0-noCertificateCheck\0"
    "0-noKeyAuth\0\0"
    /* kubectl: kubectl options (kubectl options), valid anywhere */
    "kubectl\0"
    "v--context\0v--cluster\0v--user\0v--namespace\0v-n\0v--kubeconfig\0v--server\0v-s\0"
    "v--token\0v--as\0v--as-group\0v--as-uid\0v--certificate-authority\0"
    "v--client-certificate\0v--client-key\0v--request-timeout\0v--tls-server-name\0"
    "v--cache-dir\0v--username\0v--password\0v-v\0v--v\0v--profile\0v--profile-output\0"
    "v--log-file\0f--insecure-skip-tls-verify\0f--match-server-version\0"
    "f--warnings-as-errors\0\0"
    "ldcli\0"
    "v--access-token\0v--base-uri\0v--output\0v-o\0f--json\0\0"
    "mc\0"
    "v--config-dir\0v-C\0f--json\0f--quiet\0f-q\0f--insecure\0f--debug\0f--no-color\0\0"
    "nats\0"
    "v--server\0v-s\0v--creds\0v--context\0v--user\0v--password\0v--nkey\0v--tlscert\0"
    "v--tlskey\0v--tlsca\0v--timeout\0f--trace\0\0"
    "neonctl\0"
    "v--api-key\0v--project-id\0v--org-id\0v--output\0v-o\0v--config-dir\0"
    "f--no-color\0f--no-analytics\0\0"
    /* nerdctl: global flags */
    "nerdctl\0"
    "1--namespace\0"
    "1-n\0"
    "1--address\0"
    "1-a\0"
    "1-H\0"
    "1--host\0"
    "1--snapshotter\0"
    "1--cgroup-manager\0"
    "1--data-root\0"
    "1--cni-path\0"
    "0--debug\0"
    "0--debug-full\0\0"
    /* oc: kubectl's options */
    "oc\0"
    "v--context\0v--cluster\0v--user\0v--namespace\0v-n\0v--kubeconfig\0v--server\0v-s\0"
    "v--token\0v--as\0v--as-group\0v--certificate-authority\0v--client-certificate\0"
    "v--client-key\0v--request-timeout\0v-v\0v--v\0f--insecure-skip-tls-verify\0\0"
    "oci\0"
    "v--profile\0v--config-file\0v--region\0v--auth\0v--endpoint\0v--output\0"
    "f--debug\0\0"
    /* op (1Password CLI): global flags */
    "op\0"
    "v--account\0v--config\0v--session\0v--format\0v--encoding\0f--cache\0f--debug\0"
    "f--iso-timestamps\0f--no-color\0\0"
    /* platform, upsun: the project and environment every command takes */
    "platform\0"
    "v--project\0v-p\0v--environment\0v-e\0v--app\0v-A\0f--yes\0f-y\0f--no-wait\0\0"
    /* podman: global options before the command */
    "podman\0"
    "1--connection\0"
    "1-c\0"
    "1--url\0"
    "1--identity\0"
    "1--root\0"
    "1--runroot\0"
    "1--storage-driver\0"
    "1--log-level\0"
    "1--cgroup-manager\0"
    "1--events-backend\0"
    "1--tmpdir\0"
    "1--context\0"
    "0--remote\0"
    "0-r\0"
    "0--syslog\0\0"
    "pscale\0"
    "v--org\0v--service-token\0v--service-token-id\0v--api-url\0v--config\0"
    "f--debug\0f--no-color\0\0"
    /* pulumi: the flags every command takes, and the stack */
    "pulumi\0"
    "v--cwd\0v-C\0v--stack\0v-s\0v--color\0v-v\0v--verbose\0f--non-interactive\0"
    "f--logtostderr\0f--emoji\0f--disable-integrity-checking\0\0"
    /* rabbitmqctl: the node and timeout before the command, the virtual host anywhere */
    "rabbitmqctl\0"
    "1-n\0"
    "1--node\0"
    "1-t\0"
    "1--timeout\0"
    "v-p\0v--vhost\0"
    "0-q\0"
    "0--quiet\0"
    "0--longnames\0"
    "0-s\0"
    "0--silent\0\0"
    "railway\0"
    "v--service\0v-s\0v--environment\0v-e\0f--json\0\0"
    /* rclone: the flags that take a value, anywhere */
    "rclone\0"
    "v--config\0v--transfers\0v--checkers\0v--bwlimit\0v--log-file\0v--log-level\0"
    "v--exclude\0v--include\0v--filter\0v--filter-from\0v--exclude-from\0"
    "v--include-from\0v--min-age\0v--max-age\0v--backup-dir\0v--suffix\0"
    "v--max-delete\0f-v\0f-vv\0f-P\0f--progress\0f-q\0\0"
    /* restic: global flags */
    "restic\0"
    "v--repo\0v-r\0v--repository-file\0v--password-file\0v-p\0v--password-command\0"
    "v--cache-dir\0v--key-hint\0v--option\0v-o\0v--limit-upload\0v--limit-download\0"
    "f-q\0f--quiet\0f-v\0f--verbose\0f--no-cache\0f--no-lock\0f--insecure-tls\0"
    "f--json\0\0"
    "rpk\0"
    "v-X\0v--profile\0v--config\0v--brokers\0f-v\0f--verbose\0\0"
    /* sam: the options every command takes */
    "sam\0"
    "v--profile\0v--region\0v--config-env\0v--config-file\0f--debug\0\0"
    "sentry-cli\0"
    "v--auth-token\0v--url\0v--log-level\0v--header\0v--org\0v-o\0v--project\0v-p\0\0"
    "serverless\0"
    "v--stage\0v-s\0v--region\0v-r\0v--aws-profile\0v--config\0v-c\0f--verbose\0"
    "f--debug\0\0"
    "sls\0"
    "v--stage\0v-s\0v--region\0v-r\0v--aws-profile\0v--config\0v-c\0f--verbose\0"
    "f--debug\0\0"
    /* stripe: global flags (--live is left to be seen) */
    "stripe\0"
    "v--api-key\0v--project-name\0v-p\0v--color\0v--log-level\0v--device-name\0\0"
    "supabase\0"
    "v--workdir\0v--profile\0v--output\0f--debug\0f--experimental\0f--yes\0\0"
    /* terraform, tofu: -chdir before the subcommand (Go flags: one dash or two) */
    "terraform\0"
    "1-chdir\0"
    "0-help\0"
    "0-version\0\0"
    "terragrunt\0"
    "v--terragrunt-working-dir\0v--working-dir\0v--terragrunt-config\0"
    "v--terragrunt-log-level\0v--log-level\0f--terragrunt-non-interactive\0"
    "f--non-interactive\0\0"
    "tkn\0"
    "v--namespace\0v-n\0v--context\0v-c\0v--kubeconfig\0v-k\0\0"
    "tofu\0"
    "1-chdir\0"
    "0-help\0"
    "0-version\0\0"
    "upsun\0"
    "v--project\0v-p\0v--environment\0v-e\0v--app\0v-A\0f--yes\0f-y\0f--no-wait\0\0"
    /* vault: the HTTP options every command takes (Go flags: one dash or two) */
    "vault\0"
    "v-address\0v-namespace\0v-ns\0v-ca-cert\0v-ca-path\0v-client-cert\0v-client-key\0"
    "v-tls-server-name\0v-wrap-ttl\0v-mfa\0v-header\0v-agent-address\0v-format\0"
    "f-tls-skip-verify\0f-policy-override\0f-output-curl-string\0"
    "f-output-policy\0f-non-interactive\0\0"
    "velero\0"
    "v--namespace\0v-n\0v--kubeconfig\0v--kubecontext\0\0"
    /* vercel: global options */
    "vercel\0"
    "v--token\0v-t\0v--scope\0v-S\0v--team\0v-T\0v--cwd\0v--local-config\0v-A\0"
    "v--global-config\0v-Q\0f--debug\0f-d\0\0"
    /* wrangler: global flags */
    "wrangler\0"
    "v--config\0v-c\0v--env\0v-e\0v--cwd\0f--experimental-json-config\0\0";
const size_t sh_gopts_len = sizeof(sh_gopts);

const char *sh_gopts_of(const char *name, size_t len)
{
	for (const char *r = sh_gopts; *r;) {
		size_t rl = strlen(r);
		const char *o = r + rl + 1;

		if (rl == len && !memcmp(r, name, len))
			return o;
		if ((unsigned char)r[0] > (unsigned char)name[0])
			return NULL; /* sorted: past it */
		while (*o)
			o += strlen(o) + 1;
		r = o + 1;
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
		int value = o[0] == '1' || o[0] == 'v';

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
