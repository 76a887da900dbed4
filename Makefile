# Thin wrapper over Meson: the two commands of the README.
#   make run   install missing Debian packages, build, run the quick suite, store and show it
#   make test  build with warnings as errors, run every test, then again under ASan+UBSan

BUILD       ?= build
ASAN_BUILD  ?= build-asan
CROSS_BUILD ?= build-aarch64
MESON_OPTS   = --buildtype=debugoptimized -Dwerror=true
# The ASan+UBSan build at -O1, as AddressSanitizer's documentation suggests:
# it compiled in 102 CPU s instead of 168 at -O2, and its CLI tests took the
# same CPU time (88 s against 89 s, in cpuacct groups).
ASAN_OPTS    = -Doptimization=1 -Ddebug=true -Dwerror=true
# Tests at once. The plain build's tests take about 710 s of CPU time (a
# cpuacct group's count), and two at a time took 489 s on a quiet 2-CPU
# machine: 72% of its CPUs, since a guest test also waits on its boots and
# QEMU's I/O. With three at a time (and the ASan build at -O1) a clean
# clone's make test took 741 s instead of 778 s: less than the idle 28%
# promised, because the guest tests mostly compete for the CPUs.
# The tests that must run alone say so (is_parallel, tests/meson.build).
TEST_JOBS   ?= 3

.PHONY: all build run test test-plain test-asan test-distro bench clean cross static

all: build

$(BUILD)/build.ninja:
	scripts/deps.sh build
	meson setup $(BUILD) $(MESON_OPTS)

build: $(BUILD)/build.ninja
	ninja -C $(BUILD)

run: build
	$(BUILD)/vmbench run --quick

test: test-plain test-asan
	@scripts/test-summary.sh $(BUILD) $(ASAN_BUILD)

# The aarch64 guest's vmbench (x86_64 hosts), as vmbench-aarch64 beside each
# build's vmbench, where `vmbench lab` looks for it.
cross:
	scripts/deps.sh cross
	[ -f $(CROSS_BUILD)/build.ninja ] || meson setup $(CROSS_BUILD) --cross-file cross/aarch64-linux-gnu.ini \
		--buildtype=release -Dwerror=true
	ninja -C $(CROSS_BUILD)
	for b in $(BUILD) $(ASAN_BUILD); do [ ! -d $$b ] || ln -sfn ../$(CROSS_BUILD)/vmbench $$b/vmbench-aarch64; done
	[ ! -f $(CROSS_BUILD)/vmbench-static ] || ln -sfn ../$(CROSS_BUILD)/vmbench-static $(BUILD)/vmbench-static-aarch64

# One file to copy into any VM (README, "Inside any VM"): vmbench with no
# shared library, for x86_64 (this machine's build) and aarch64 (the cross
# build), from Debian's static archives.
static: build cross
	@for f in $(BUILD)/vmbench-static $(CROSS_BUILD)/vmbench-static; do \
		echo "$$f: $$(readelf -h $$f | sed -n 's/ *Machine: *//p'), no shared library"; done

test-plain:
	scripts/deps.sh test
	[ -f $(BUILD)/build.ninja ] || meson setup $(BUILD) $(MESON_OPTS)
	ninja -C $(BUILD)
	[ "$$(uname -m)" != x86_64 ] || $(MAKE) --no-print-directory cross
	meson test -C $(BUILD) --print-errorlogs --num-processes $(TEST_JOBS) --no-suite fuzz || \
		{ scripts/failed-checks.py $(BUILD); exit 1; }

test-asan:
	scripts/deps.sh test
	[ -f $(ASAN_BUILD)/build.ninja ] || meson setup $(ASAN_BUILD) $(ASAN_OPTS) \
		-Db_sanitize=address,undefined -Db_lundef=false
	ninja -C $(ASAN_BUILD)
	[ "$$(uname -m)" != x86_64 ] || $(MAKE) --no-print-directory cross
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		meson test -C $(ASAN_BUILD) --print-errorlogs --num-processes $(TEST_JOBS) --suite unit --suite cli --suite fuzz || \
		{ scripts/failed-checks.py $(ASAN_BUILD); exit 1; }

# The Debian guest (issue 32), outside `make test`'s 15 minutes: its image
# made with debootstrap (minutes with a cold cache, kept in build-lab-cache),
# booted under TCG to its SSH banner and agent, systemd-analyze read.
test-distro:
	scripts/deps.sh distro
	[ -f $(BUILD)/build.ninja ] || meson setup $(BUILD) $(MESON_OPTS)
	ninja -C $(BUILD)
	tests/distro.sh $(BUILD)/vmbench $(CURDIR)

bench: build
	bench/cpu-vs-sysbench.sh
	bench/info-time.sh

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(CROSS_BUILD)
