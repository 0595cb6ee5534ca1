#!/bin/sh
# Install the Debian packages that dcg's build, tests and benchmarks need.
# Idempotent: packages already present are left alone; apt-get update runs first.
set -eu

PKGS="build-essential pkg-config clang libclang-rt-14-dev clang-format
libpcre2-dev libyaml-dev libcjson-dev libseccomp-dev libcriterion-dev liburing-dev
lld
python3 perl git util-linux iproute2 file
zsh fish"  # zsh and fish: the completion tests parse and run their files
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

if [ -z "$missing" ]; then
	echo "install-deps: all packages present"
	exit 0
fi

if [ "$(id -u)" != 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		SUDO=sudo
	else
		echo "install-deps: not root and no sudo; as root, run:" >&2
		echo "  apt-get update && apt-get install -y$missing" >&2
		exit 1
	fi
else
	SUDO=
fi

echo "install-deps: installing$missing"
$SUDO apt-get update -q
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends $missing
