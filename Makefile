# dcg: one non-recursive Makefile. Each folder adds its sources in its module.mk.
#   make            the product only: build/dcg, build/libdcgpolicy.a, build/libdcg-preload.so
#                   (no Criterion needed)
#   make tests      everything the tests need (Criterion binaries, helper programs)
#   make test       Criterion unit tests and integration tests
#   make install    PREFIX=/usr/local DESTDIR= (see "Install" in README.md); make uninstall
#   make SAN=1 test the same under AddressSanitizer + UndefinedBehaviorSanitizer (build-san/)
#   make bench      benchmarks (figures as ratios against a baseline of the same run)
#   make demo       dcg's main job on a few commands, with the embedded default policy
#   make e2e        end-to-end tests with real agent clients (needs npm and unshare)
#   make check-style clang-format and the banned-function list

SHELL := /bin/bash
CC ?= cc
PKG_CONFIG ?= pkg-config

ifeq ($(SAN),1)
BUILD ?= build-san
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
OPT := -O1
else
BUILD ?= build
SANFLAGS :=
OPT := -O2
endif

DEPS_PKGS := libpcre2-8 yaml-0.1 libcjson libseccomp
DEPS_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(DEPS_PKGS))
DEPS_LIBS := $(shell $(PKG_CONFIG) --libs $(DEPS_PKGS))
# Only the tests need Criterion: asked for when a test is built, never by plain `make`.
CRITERION_CFLAGS = $(shell $(PKG_CONFIG) --cflags criterion)
CRITERION_LIBS = $(shell $(PKG_CONFIG) --libs criterion)

WARNINGS := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 \
	-Wvla -Wno-unused-parameter -Werror
CFLAGS ?= $(OPT) -g
ALL_CFLAGS := -std=gnu11 $(CFLAGS) $(WARNINGS) -fPIC -fvisibility=hidden \
	-D_GNU_SOURCE -Ipolicy $(DEPS_CFLAGS) $(SANFLAGS) -MMD -MP
ALL_LDFLAGS := $(LDFLAGS) $(SANFLAGS)

.PHONY: all tests test unit integration bench demo e2e check-style clean install uninstall
all:
tests: all
bench:

# The libraries every module may link, named here so that no module depends on the
# order of the includes below (but policy/, whose objects the SAN=1 guard copies).
POLICY_LIB := $(BUILD)/libdcgpolicy.a
SANDBOX_LIB := $(BUILD)/libdcgsandbox.a
CLI_LIB := $(BUILD)/libdcgcli.a

include policy/module.mk
# The runtime core, before the two layers that link it.
-include runtime/module.mk
-include preload/module.mk
-include sandbox/module.mk
-include cli/module.mk
include tests/module.mk
-include $(wildcard tests/*/*.mk)
include install.mk

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/%.o: %.S
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

test: unit integration

demo: $(BUILD)/dcg
	@scripts/demo.sh $(BUILD)/dcg

check-style:
	@scripts/check-style.sh

clean:
	rm -rf build build-san

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
