# The two commands a new user needs: `make demo` and `make test`. Both install missing packages first.
BUILD      ?= build
ASAN_BUILD ?= build-asan
JOBS       ?= $(shell nproc)
PREFIX     ?= /usr/local

.PHONY: all deps build demo test test-asan bench install clean

all: build

deps:
	@bash scripts/install-deps.sh

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	@bash scripts/demo.sh $(BUILD)/osearch

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	@$(MAKE) --no-print-directory test-asan

# Sanitizer build of the unit and integration tests (ASan + UBSan).
test-asan: deps
	@if [ "$${OSEARCH_SKIP_ASAN:-0}" = 1 ]; then echo "test-asan: skipped (OSEARCH_SKIP_ASAN=1)"; exit 0; fi; \
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DOSEARCH_SANITIZE=ON -DOSEARCH_BENCH=OFF >/dev/null && \
	cmake --build $(ASAN_BUILD) -j $(JOBS) && \
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -j $(JOBS)

bench: build
	@bash scripts/bench.sh $(BUILD)

install: build
	install -m 0755 $(BUILD)/osearch $(PREFIX)/bin/osearch

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
