# tests/bench/bench.mk: `make bench-policy`, the policy engine's benchmark (issue 2):
# load + compile times (median of many runs) of the embedded defaults and the
# damage-control fixture, interpreted and JIT; decisions per second over a mixed list
# of commands (tests/corpus/) and paths; hostile 10 MB files. Figures are printed with
# ratios against a baseline (an empty policy) measured in the same run.
#   BENCH_POLICY_RUNS=N        runs per load median (default 301)
#   BENCH_POLICY_NO_HOSTILE=1  skip the 10 MB files
#   BENCH_POLICY_FIXTURE=FILE  the damage-control file to load (default: the shared
#                              fixture $(DC_FIXTURE) when present, else the project's own)
BENCH_POLICY_FIXTURE ?= $(firstword $(wildcard $(DC_FIXTURE)) \
	tests/data/policy/damage-control/patterns.yaml)

$(BUILD)/bench_policy: $(BUILD)/tests/bench/bench_policy.o $(POLICY_LIB)
	$(CC) $(ALL_LDFLAGS) $^ $(DEPS_LIBS) -o $@

.PHONY: bench-policy
bench-policy: $(BUILD)/bench_policy
	$(BUILD)/bench_policy $(BENCH_POLICY_FIXTURE)

bench: bench-policy

# `make bench-scan`: dcg scan over a generated repository of BENCH_SCAN_FILES files
# (10,000: the budget is 5 s on 2 cores), with files and lines per second and the ratio
# to reading every file once (tests/bench/bench_scan.sh).
BENCH_SCAN_FILES ?= 10000
.PHONY: bench-scan
bench-scan: $(BUILD)/dcg
	tests/bench/bench_scan.sh $(BUILD)/dcg $(BENCH_SCAN_FILES)

bench: bench-scan
