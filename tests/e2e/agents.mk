# tests/e2e/agents.mk: end-to-end runs of real agent clients (pi, Codex, Gemini CLI)
# against a local mock of their model API inside `unshare -n` (issue 7).
# `make e2e-agents` runs tests/e2e/{pi,codex,gemini}/run.sh; `make e2e` runs them too.

# The pi extension is embedded in the dcg binary (cli/agents/pi.c, .incbin), which
# the compiler's dependency files do not see.
$(BUILD)/cli/agents/pi.o: agents/pi/dcg-damage-control.ts

.PHONY: e2e-agents
e2e-agents: $(BUILD)/dcg
	@fail=0; for t in pi codex gemini; do \
		[ -x tests/e2e/$$t/run.sh ] || continue; \
		echo "== e2e $$t"; \
		DCG_BUILD=$(BUILD) tests/e2e/$$t/run.sh; rc=$$?; \
		if [ $$rc = 77 ]; then echo "== e2e $$t skipped"; \
		elif [ $$rc != 0 ]; then fail=1; fi; \
	done; exit $$fail

e2e: e2e-agents
