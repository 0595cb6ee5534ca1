# tests/e2e/: the real Claude Code client (npm @anthropic-ai/claude-code) against a mock
# model on 127.0.0.1, inside a network namespace with only loopback (unshare -n).
# Needs node/npm (the client is installed into $(DCG_E2E_CACHE), default
# ~/.cache/dcg-e2e) and unshare. Exits non-zero on any failure; 77 when it cannot run.
# The Node the clients run on when the system's is older than 20 (Debian 12 ships 18):
# scripts/install-deps.sh installs one there from the npm registry (tests/e2e/node.sh).
E2E_NODE_DIR ?= /opt/dcg-node/bin
export DCG_E2E_NODE_DIR := $(E2E_NODE_DIR)

.PHONY: e2e
e2e: $(BUILD)/dcg
	@tests/e2e/run.sh $(BUILD)

# What wrapping the agent costs (not a test: timings are not assertions):
# tests/e2e/bench_wrap.sh BUILD ROUNDS, figures in the README's "Wrapping an agent".
.PHONY: e2e-bench
e2e-bench: $(BUILD)/dcg $(BUILD)/libdcg-preload.so
	@tests/e2e/bench_wrap.sh $(BUILD) $(or $(ROUNDS),7)
