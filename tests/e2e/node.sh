# tests/e2e/node.sh: the Node.js the agent clients run on. Source it before checking for
# node. The clients (pi, Gemini CLI) need Node >= 20; Debian 12 ships 18. When the node
# on PATH is older, the Node that scripts/install-deps.sh installs from the npm registry
# (DCG_E2E_NODE_DIR, set by tests/e2e/e2e.mk from E2E_NODE_DIR) goes first on PATH.
# Without a Node new enough, e2e_node_ok fails with a reason and the caller skips.
DCG_E2E_NODE_MIN=20

e2e_node_major() {
	local v
	v=$("${1:-node}" -e 'process.stdout.write(process.versions.node.split(".")[0])' 2>/dev/null) || v=
	case $v in '' | *[!0-9]*) echo 0 ;; *) echo "$v" ;; esac
}

# E2E_CLIENT_PATH: the PATH each client runs with (under env -i), the newer Node first
# when the system's is too old: a client started with the system's PATH alone would find
# Debian's Node 18 again ("SyntaxError: Invalid regular expression flags"). Decided on
# the node that PATH finds, not on ours: the scripts source this twice (again inside
# unshare, where our PATH already starts with the newer Node).
E2E_CLIENT_PATH=/usr/local/bin:/usr/bin:/bin
if [ -n "${DCG_E2E_NODE_DIR:-}" ] &&
	[ "$(e2e_node_major "$DCG_E2E_NODE_DIR/node")" -ge "$DCG_E2E_NODE_MIN" ]; then
	if [ "$(e2e_node_major node)" -lt "$DCG_E2E_NODE_MIN" ]; then
		PATH=$DCG_E2E_NODE_DIR:$PATH
		export PATH
	fi
	if [ "$(PATH=$E2E_CLIENT_PATH e2e_node_major node)" -lt "$DCG_E2E_NODE_MIN" ]; then
		E2E_CLIENT_PATH=$DCG_E2E_NODE_DIR:$E2E_CLIENT_PATH
	fi
fi
export E2E_CLIENT_PATH

# 0 when the node on PATH can run the clients; else prints why and returns 1.
e2e_node_ok() {
	local m
	m=$(e2e_node_major node)
	[ "$m" -ge "$DCG_E2E_NODE_MIN" ] && return 0
	echo "node ${m} on PATH is older than $DCG_E2E_NODE_MIN and no newer one is at" \
		"${DCG_E2E_NODE_DIR:-<DCG_E2E_NODE_DIR unset>} (scripts/install-deps.sh installs one)"
	return 1
}
