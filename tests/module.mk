# tests/: Criterion unit tests (tests/test_*.c, one binary each) and integration
# scripts (tests/integration/test_*.sh).
TEST_SRCS := $(wildcard tests/test_*.c)
TEST_BINS := $(TEST_SRCS:tests/%.c=$(BUILD)/tests/%)
TEST_LINK := $(CLI_LIB) $(SANDBOX_LIB) $(POLICY_LIB)

$(BUILD)/tests/%.o: ALL_CFLAGS += $(CRITERION_CFLAGS)
$(BUILD)/tests/%: $(BUILD)/tests/%.o $(TEST_LINK)
	$(CC) $(ALL_LDFLAGS) $< $(TEST_LINK) $(DEPS_LIBS) $(CRITERION_LIBS) -o $@

# The shared damage-control fixture (damage-control's own default patterns.yaml) lives
# beside the repository, not in it: the tests that need it read its path from
# DCG_DC_FIXTURE and are skipped, saying so, when it is absent. Every clone still tests
# the compatibility path with tests/data/policy/damage-control/patterns.yaml.
DC_FIXTURE ?= ../shared/fixtures/damage-control-patterns.yaml

# Each binary runs from the repository root, so data files are found as tests/...
# The snapshots the tests' `dcg run`s write go to a folder of this run, removed after.
unit: $(TEST_BINS)
	@fail=0; rt=$$(mktemp -d "$${TMPDIR:-/tmp}/dcg-unit-run.XXXXXX") || exit 1; \
	for t in $(TEST_BINS); do \
		echo "== $$t"; \
		XDG_RUNTIME_DIR=$$rt DCG_BUILD=$(BUILD) DCG_DC_FIXTURE=$(DC_FIXTURE) \
			LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp $$t --jobs 2 || fail=1; \
	done; rm -rf "$$rt"; exit $$fail

integration: all tests
	@tests/integration/run.sh $(BUILD)

tests: $(TEST_BINS)
