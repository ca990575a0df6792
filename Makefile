# c2ctui build. Targets: all (default), deps, test, asan, bench, fuzz, install, clean.
# Libraries come from pkg-config; libperf is built into build/libperf by scripts/deps.sh.

PKG_CONFIG ?= pkg-config
CC         ?= cc
PREFIX     ?= /usr/local
BUILD      ?= build
CFLAGS     ?= -O2 -g
SAN        ?=

# Touched once scripts/deps.sh succeeds: an edit of deps.sh (a new package)
# reruns it once, not on every make (libperf.pc, written only when libperf
# is built, used to be the stamp and stayed older than the edited script).
DEPS_STAMP := build/.deps-stamp
export PKG_CONFIG_PATH := $(CURDIR)/build/libperf/lib/pkgconfig$(if $(PKG_CONFIG_PATH),:$(PKG_CONFIG_PATH))

PKGS := libperf ncursesw sqlite3 libtraceevent libdw libelf libbpf libzstd liblzma zlib capstone
# Recursive (=) so pkg-config runs after `deps` has built libperf.
PKG_CFLAGS = $(shell PKG_CONFIG_PATH="$(PKG_CONFIG_PATH)" $(PKG_CONFIG) --cflags $(PKGS))
PKG_LIBS   = $(shell PKG_CONFIG_PATH="$(PKG_CONFIG_PATH)" $(PKG_CONFIG) --libs $(PKGS))

WARN := -Wall -Wextra -Werror -Wshadow -Wmissing-prototypes -Wstrict-prototypes \
        -Wformat=2 -Wwrite-strings -Wno-format-nonliteral
ifeq ($(SAN),1)
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
endif
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS) $(SANFLAGS) -I. $(PKG_CFLAGS) -MMD -MP
ALL_LDFLAGS = $(SANFLAGS) $(LDFLAGS)
LIBS = $(PKG_LIBS) -lpthread -lm

# Each module is split into sub-folders by sub-module (collector/perfdata/,
# store/ingest/, tui/explorer/, ...); the wildcards take every one.
rwildcard = $(sort $(wildcard $(1)/*.c) $(wildcard $(1)/*/*.c))
COLLECTOR_SRC := $(call rwildcard,collector)
STORE_SRC     := $(call rwildcard,store)
TUI_SRC       := $(filter-out tui/cmd/main.c,$(call rwildcard,tui))
GEN_SRC       := $(wildcard tests/gen/*.c)
UNIT_SRC      := $(wildcard tests/unit/*/test_*.c)
TOOL_SRC      := $(wildcard tests/tools/*.c)
WORKLOAD_SRC  := $(wildcard tests/workloads/*.c)

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

LIBCOLLECTOR := $(BUILD)/libcollector.a
LIBSTORE     := $(BUILD)/libstore.a
LIBTUI       := $(BUILD)/libtui.a
LIBGEN       := $(BUILD)/libgen.a
C2CTUI       := $(BUILD)/c2ctui
UNIT_BINS    := $(foreach t,$(UNIT_SRC),$(BUILD)/tests/$(basename $(notdir $(t))))
TOOL_BINS    := $(patsubst tests/tools/%.c,$(BUILD)/tools/%,$(TOOL_SRC))
WORKLOAD_BINS:= $(patsubst tests/workloads/%.c,$(BUILD)/workloads/%,$(WORKLOAD_SRC))
# Link order: front end, then store, then collector (store uses collector types).
CORE_LIBS = $(LIBSTORE) $(LIBCOLLECTOR)

.PHONY: all deps build demo test asan bench fuzz install clean
all: deps
	@$(MAKE) --no-print-directory build

deps: $(DEPS_STAMP)
$(DEPS_STAMP): scripts/deps.sh scripts/kernel-dbg.sh
	./scripts/deps.sh
	@touch $@

build: $(C2CTUI) $(UNIT_BINS) $(TOOL_BINS) $(WORKLOAD_BINS)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(LIBCOLLECTOR): $(call obj,$(COLLECTOR_SRC))
$(LIBSTORE): $(call obj,$(STORE_SRC))
$(LIBTUI): $(call obj,$(TUI_SRC))
$(LIBGEN): $(call obj,$(GEN_SRC))
$(BUILD)/lib%.a:
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(C2CTUI): $(call obj,tui/cmd/main.c) $(LIBTUI) $(CORE_LIBS)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

# Unit tests live in tests/unit/<module>/; their binaries in one folder.
define unit_rule
$(BUILD)/tests/$(basename $(notdir $(1))): $(call obj,$(1)) $(LIBTUI) $(LIBGEN) $(CORE_LIBS)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(ALL_LDFLAGS) -o $$@ $$^ $$(LIBS)
endef
$(foreach t,$(UNIT_SRC),$(eval $(call unit_rule,$(t))))

$(BUILD)/tools/%: $(BUILD)/obj/tests/tools/%.o $(LIBGEN) $(CORE_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

# Workloads are demo programs: plain pthreads, debug info for symbolization.
$(BUILD)/workloads/%: tests/workloads/%.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE $(WARN) -O1 -g -fno-omit-frame-pointer $(SANFLAGS) -o $@ $< -lpthread

# README's first command: record the contention workload here, then explore it.
# Builds only what the demo runs; the session goes under $(BUILD), not the tree.
demo: deps
	@$(MAKE) --no-print-directory $(C2CTUI) $(BUILD)/workloads/contention
	@BUILD=$(BUILD) scripts/demo.sh

# The suite runs on the plain build and again under ASan+UBSan.
test: deps
	@$(MAKE) --no-print-directory build
	@$(MAKE) --no-print-directory BUILD=build-asan SAN=1 build
	@tests/run.sh build build-asan

asan: deps
	@$(MAKE) --no-print-directory BUILD=build-asan SAN=1 build
	@tests/run.sh build-asan

bench: deps
	@$(MAKE) --no-print-directory build
	@bench/run.sh build

FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= fuzz_perfdata fuzz_tracepoint fuzz_session fuzz_cli
fuzz: deps
	@$(MAKE) --no-print-directory build
	@TARGETS="$(FUZZ_TARGETS)" tests/fuzz/run.sh $(FUZZ_SECONDS)

install: all
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(C2CTUI) $(DESTDIR)$(PREFIX)/bin/c2ctui

# Keeps build/libperf, build/linux-source-6.12 and build/cache (the kernel
# DWARF scripts/kernel-dbg.sh downloads): rebuilding them is slow or a fetch.
clean:
	rm -rf build-asan $(BUILD)/obj $(BUILD)/tests $(BUILD)/tools $(BUILD)/workloads $(BUILD)/*.a $(C2CTUI) build/fuzz

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
