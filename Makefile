# The two commands a new user needs: `make demo` and `make test`. Both install missing packages first.
BUILD      ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
JOBS       ?= $(shell nproc)
PREFIX     ?= /usr/local
# ccache (installed by install-deps.sh) makes rebuilds, and the three builds of `make test`, cheap.
# Paths are hashed relative to the checkout, so two clones or worktrees share their objects.
CCACHE     := $(shell command -v ccache 2>/dev/null)
LAUNCHER   := $(if $(CCACHE),-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
export CCACHE_BASEDIR ?= $(CURDIR)
export CCACHE_NOHASHDIR ?= 1

.PHONY: all deps build demo test test-asan fuzz test-fuzz bench install clean

all: build

deps:
	@bash scripts/install-deps.sh

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(LAUNCHER)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	@bash scripts/demo.sh $(BUILD)/osearch

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	@$(MAKE) --no-print-directory test-asan
	@$(MAKE) --no-print-directory test-fuzz

# Sanitizer build of the unit and integration tests (ASan + UBSan), at -O1: the sanitizers find the
# same faults, and the suite ran in 780 s against 1,351 s at -O0 here (CI's budget). Debian's libxapian30 deletes an
# object through a pointer of another size inside Database::check (`osearch check`), which ASan
# reports as new-delete-type-mismatch: a bug in the library, so that one check is off.
# The freed-memory quarantine is 64 MB, not ASan's 256 MB: a test process grew to ~970 MB and each fork
# of it (the kill -9 tests) copied its page tables; a use after free is still caught unless 64 MB were
# freed in between. New allocations are filled with garbage up to 512 bytes, not 4 KB (every small object
# whole): together the kill -9 tests run a sixth faster (index_finish_test under ASan 62 -> 52 s).
ASAN_TEST_OPTIONS ?= detect_leaks=1:new_delete_type_mismatch=0:quarantine_size_mb=64:max_malloc_fill_size=512
# Leaks inside Xapian's failed compactions (a library bug too): tests/lsan.supp.
LSAN_TEST_OPTIONS ?= suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0
test-asan: deps
	@if [ "$${OSEARCH_SKIP_ASAN:-0}" = 1 ]; then echo "test-asan: skipped (OSEARCH_SKIP_ASAN=1)"; exit 0; fi; \
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" -DOSEARCH_SANITIZE=ON \
	  -DOSEARCH_BENCH=OFF $(LAUNCHER) >/dev/null && \
	cmake --build $(ASAN_BUILD) -j $(JOBS) && \
	cd $(ASAN_BUILD) && ASAN_OPTIONS=$(ASAN_TEST_OPTIONS) LSAN_OPTIONS=$(LSAN_TEST_OPTIONS) ctest --output-on-failure -j $(JOBS)

# libFuzzer targets (fuzz/, clang + ASan/UBSan): each runs FUZZ_SECONDS; a crash fails the run.
fuzz: deps
	@FUZZ_SECONDS=$(FUZZ_SECONDS) JOBS=$(JOBS) bash fuzz/run.sh $(FUZZ_BUILD)

# The fuzz step of `make test`: every target for 10 s from a fixed seed, so that a red CI run can
# be reproduced; `make fuzz` explores longer from a random seed (FUZZ_SEED=0, FUZZ_SECONDS=60).
test-fuzz: deps
	@if [ "$${OSEARCH_SKIP_FUZZ:-0}" = 1 ]; then echo "test-fuzz: skipped (OSEARCH_SKIP_FUZZ=1)"; exit 0; fi; \
	FUZZ_SECONDS=10 FUZZ_SEED=1 JOBS=$(JOBS) bash fuzz/run.sh $(FUZZ_BUILD)

bench: build
	@bash scripts/bench.sh $(BUILD)

install: build
	install -m 0755 $(BUILD)/osearch $(PREFIX)/bin/osearch
	install -m 0755 $(BUILD)/osearch-serve $(PREFIX)/bin/osearch-serve

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
