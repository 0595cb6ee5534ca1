# preload/: the runtime guard, two objects (`dcg run` itself, which puts the first in
# LD_PRELOAD, is cli/cmd_run.c):
#   $(BUILD)/libdcg-preload.so  the lean guest every guarded process maps: the wrappers,
#       the environment, the allocator, the compact path index and the argv filter
#       (policy/pathidx.c, argvidx.c and glob.c, runtime/rt.c's helpers; --gc-sections
#       drops what they do not use), its own string functions (str.c). It
#       exports the wrapped libc names only (exports.map, -fvisibility=hidden).
#   $(BUILD)/libdcg-engine.so   the policy engine, dlopen'ed by the guest from its own
#       folder when a process makes a decision the index cannot settle (engine.h): the
#       policy library, PCRE2 and libyaml from their static archives (PIC on Debian),
#       all hidden; it exports dcg_engine_start only (engine.map).
#
# SAN=1: an ASan-instrumented guard would need libasan first in LD_PRELOAD of every
# process it enters; instead the guard and its copy of policy/ are built without the
# sanitizers (into $(BUILD)/preload-nosan/). The unit tests still link the guard's
# helpers (alloc, env, util) with the sanitizers.

PRELOAD_SO := $(BUILD)/libdcg-preload.so
PRELOAD_ENGINE_SO := $(BUILD)/libdcg-engine.so
PRELOAD_SRCS := preload/guard.c preload/alloc.c preload/env.c preload/util.c \
	preload/exec.c preload/open.c preload/unlink.c preload/rename.c preload/meta.c \
	preload/syscall.c preload/tree.c preload/dl.c preload/str.c preload/pin.c \
	preload/door.c preload/walk.c preload/loader.c
# The helpers the unit tests drive directly (no wrappers in them).
PRELOAD_GLUE_OBJS := $(BUILD)/runtime/rt.o $(BUILD)/preload/alloc.o $(BUILD)/preload/env.o $(BUILD)/preload/util.o

# Our own definitions of open() and friends must not meet the fortify inlines; and
# programs do pass NULL where glibc's prototypes say nonnull (the kernel answers
# EFAULT), so the guard's NULL checks must stay.
PRELOAD_CFLAGS := -U_FORTIFY_SOURCE -fno-delete-null-pointer-checks -Wno-nonnull-compare

ifeq ($(SAN),1)
PRELOAD_OBJDIR := $(BUILD)/preload-nosan
PRELOAD_NOSAN_CFLAGS := $(filter-out $(SANFLAGS),$(ALL_CFLAGS)) $(PRELOAD_CFLAGS)
PRELOAD_POLICY_OBJS := $(patsubst $(BUILD)/%,$(PRELOAD_OBJDIR)/%,$(POLICY_OBJS))
$(PRELOAD_OBJDIR)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(PRELOAD_NOSAN_CFLAGS) -c $< -o $@
$(PRELOAD_OBJDIR)/%.o: %.S
	@mkdir -p $(dir $@)
	$(CC) $(PRELOAD_NOSAN_CFLAGS) -c $< -o $@
$(PRELOAD_OBJDIR)/policy/embed.o: policy/embed.S $(EMBED_SNAP)
	@mkdir -p $(dir $@)
	$(CC) $(PRELOAD_NOSAN_CFLAGS) -DEMBED_SNAPSHOT='"$(EMBED_SPLIT)"' \
		-DEMBED_CODES='"$(EMBED_CODES)"' -c $< -o $@
PRELOAD_SO_LDFLAGS := $(filter-out $(SANFLAGS),$(ALL_LDFLAGS))
else
PRELOAD_OBJDIR := $(BUILD)
PRELOAD_POLICY_OBJS := $(POLICY_LIB)
PRELOAD_SO_LDFLAGS := $(ALL_LDFLAGS)
endif
PRELOAD_OBJS := $(PRELOAD_SRCS:%.c=$(PRELOAD_OBJDIR)/%.o)
PRELOAD_ENGINE_OBJS := $(PRELOAD_OBJDIR)/preload/engine.o $(PRELOAD_OBJDIR)/runtime/rt.o
$(PRELOAD_OBJS) $(PRELOAD_ENGINE_OBJS) $(PRELOAD_GLUE_OBJS): ALL_CFLAGS += $(PRELOAD_CFLAGS)

# The guest's own copies of the helpers it shares with the engine, one section per
# function, so that the link keeps only what the guest calls (no policy, no PCRE2).
PRELOAD_GUEST_DIR := $(BUILD)/preload-guest
PRELOAD_GUEST_OBJS := $(PRELOAD_GUEST_DIR)/runtime/rt.o $(PRELOAD_GUEST_DIR)/policy/glob.o \
	$(PRELOAD_GUEST_DIR)/policy/pathidx.o $(PRELOAD_GUEST_DIR)/policy/argvidx.o
PRELOAD_GUEST_CFLAGS := $(filter-out $(SANFLAGS),$(ALL_CFLAGS)) $(PRELOAD_CFLAGS) \
	-ffunction-sections -fdata-sections
$(PRELOAD_GUEST_DIR)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(PRELOAD_GUEST_CFLAGS) -c $< -o $@
-include $(PRELOAD_GUEST_OBJS:.o=.d)

# PCRE2 and libyaml from their archives when present, else shared.
PRELOAD_STATIC_ARCHIVES := $(wildcard $(shell $(CC) -print-file-name=libpcre2-8.a) \
	$(shell $(CC) -print-file-name=libyaml.a))
ifeq ($(words $(PRELOAD_STATIC_ARCHIVES)),2)
PRELOAD_LIBS := $(PRELOAD_STATIC_ARCHIVES) -Wl,--as-needed \
	$(filter-out -lpcre2-8 -lyaml,$(DEPS_LIBS)) -Wl,--no-as-needed
else
PRELOAD_LIBS := -Wl,--as-needed $(DEPS_LIBS) -Wl,--no-as-needed
endif

# -Bsymbolic: the object's references to its own exported wrappers (the dlsym table of
# dl.c) bind at link time, not by a symbol lookup in every process that maps it (111
# lookups; callgrind of /bin/true with the object preloaded: 236 k -> 179 k
# instructions); the table is meant to name these wrappers, whatever else is preloaded.
#
# The objects of an exec check come first, so that their code lies together: a fork
# child faults in each 64 KB window of the guest's code it runs (fault-around).
#
# -nostartfiles: without the C run-time's start files (crti, crtbeginS, crtendS, crtn),
# whose code registers transactional-memory clones and runs __cxa_finalize at
# unload: four symbol lookups at every start (_ITM_*, __gmon_start__, weak and
# absent, searched in every object; __cxa_finalize), and the _init/_fini calls. The
# guest has no C++ and no destructor, is never unloaded, and its constructor is in
# .init_array, which the loader runs itself; .eh_frame_hdr still indexes its unwind
# tables.
PRELOAD_HOT := exec guard env util str
PRELOAD_LINK_OBJS := $(PRELOAD_HOT:%=$(PRELOAD_OBJDIR)/preload/%.o) $(PRELOAD_GUEST_OBJS) \
	$(filter-out $(PRELOAD_HOT:%=$(PRELOAD_OBJDIR)/preload/%.o),$(PRELOAD_OBJS))
$(PRELOAD_SO): $(PRELOAD_OBJS) $(PRELOAD_GUEST_OBJS) preload/exports.map
	$(CC) -shared $(PRELOAD_SO_LDFLAGS) -o $@ $(PRELOAD_LINK_OBJS) \
		-ldl -Wl,--version-script=preload/exports.map -Wl,--gc-sections \
		-Wl,-z,defs -Wl,-Bsymbolic -nostartfiles

# The engine calls libc through the guest's wrappers (which pass its calls on), like
# any other library of the process.
$(PRELOAD_ENGINE_SO): $(PRELOAD_ENGINE_OBJS) $(PRELOAD_POLICY_OBJS) preload/engine.map
	$(CC) -shared $(PRELOAD_SO_LDFLAGS) -o $@ $(PRELOAD_ENGINE_OBJS) \
		$(PRELOAD_POLICY_OBJS) $(PRELOAD_LIBS) -Wl,--version-script=preload/engine.map \
		-Wl,--exclude-libs,ALL -Wl,--gc-sections -Wl,-z,defs

all: $(PRELOAD_SO) $(PRELOAD_ENGINE_SO)

# The preload unit tests link the guard's helpers.
$(BUILD)/tests/test_preload: $(PRELOAD_GLUE_OBJS)
$(BUILD)/tests/test_preload: TEST_LINK = $(PRELOAD_GLUE_OBJS) $(CLI_LIB) $(POLICY_LIB)

# Small programs the integration tests run under the guard.
PRELOAD_PROGS := $(patsubst tests/integration/progs/%.c,$(BUILD)/progs/%,\
	$(wildcard tests/integration/progs/*.c))
$(BUILD)/progs/%: tests/integration/progs/%.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE -pthread $< -o $@
tests: $(PRELOAD_PROGS)

# The benchmark's floor: an empty preloaded object; and a static spawner (no preload
# in itself) to time what the object costs processes that make no guarded call.
$(BUILD)/preload/bench/libdcg-empty.so: preload/bench/empty.c
	@mkdir -p $(dir $@)
	$(CC) -shared -fPIC -O2 $< -o $@
$(BUILD)/preload/bench/spawn: preload/bench/spawn.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -Wall -Wextra -Werror -static $< -o $@
# The exec check alone in fresh fork children (execve refused by seccomp after it).
$(BUILD)/preload/bench/execcheck: preload/bench/execcheck.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -Wall -Wextra -Werror $< -o $@

.PHONY: bench-preload
bench-preload: $(PRELOAD_SO) $(PRELOAD_ENGINE_SO) $(BUILD)/dcg $(BUILD)/progs/openloop \
		$(BUILD)/preload/bench/libdcg-empty.so $(BUILD)/preload/bench/spawn \
		$(BUILD)/preload/bench/execcheck
	@preload/bench.sh $(BUILD)
bench: bench-preload

# Where the page faults of a shell's children go under dcg run (a count, perf needed).
.PHONY: bench-preload-faults
bench-preload-faults: $(PRELOAD_SO) $(PRELOAD_ENGINE_SO) $(BUILD)/dcg
	@preload/bench/faults.sh $(BUILD)

# The inventory of every function libc exports, classified by preload/libc-rules.tsv
# (tests/integration/test_preload_libc.sh checks it against the running libc).
.PHONY: libc-inventory
libc-inventory:
	preload/libc-inventory.sh > preload/libc.tsv
