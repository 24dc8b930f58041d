# uaevents: top-level build.  CMake builds user space; kernel/Makefile builds the module
# against each test kernel's headers; tests/vm/ boots those kernels under QEMU.
#
#   make demo    set up, build, boot the VM and show UAs flowing into the journal
#   make check   set up, build, run the Check unit tests, checkpatch, KUnit (UML), a short
#                fuzz pass and the VM end-to-end tests
#   make fuzz    fuzz the shared decoder for FUZZ_SECONDS
#   make bench   the cost and the behaviour under load against the stock path, two VMs per
#                kernel: a table, and JSON in build/bench/ (docs/benchmarks.md)
#   make bench-compare OLD=DIR   the figures of build/bench/ against an earlier run's

BUILD       ?= build
USERBIN     := $(BUILD)/user
# Debian 12's kernel, its PREEMPT_RT flavour and its 6.12 backport.
KERNELS     ?= 6.1 6.1-rt 6.12
BENCH_KERNELS ?= 6.1 6.12
DEMO_KERNEL ?= 6.12
FUZZ_SECONDS ?= 300
FUZZ_CHECK_SECONDS ?= 30
JOBS        ?= $(shell nproc)

all: user

deps:
	@scripts/install-deps.sh

PREFIX      ?= /usr

user: deps
	cmake -S . -B $(USERBIN) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DCMAKE_INSTALL_PREFIX=$(PREFIX) -DCMAKE_INSTALL_SYSCONFDIR=/etc >/dev/null
	cmake --build $(USERBIN) -j $(JOBS)

# Install user space (library, tools, daemon, unit, rules, catalog): make install DESTDIR=...
install: user
	DESTDIR=$(DESTDIR) cmake --install $(USERBIN)

# uaevents.ko for each test kernel (fetched into /var/cache/uaevents by tests/vm/).
modules: deps
	@for k in $(KERNELS); do \
		kroot=$$(tests/vm/fetch-kernel.sh $$k) && kver=$$(basename $$kroot) && \
		$(MAKE) -C kernel KDIR=$$kroot/usr/src/linux-headers-$$kver || exit 1; \
	done

unit-check: user
	tests/run-stage.sh unit $(BUILD)/results ctest --test-dir $(USERBIN) -V

install-check: user
	tests/run-stage.sh install $(BUILD)/results tests/install-check.sh $(USERBIN)

# Debian packages (uaevents-dkms, libuaevents1, libuaevents-dev, uaevents) in $(BUILD)/deb,
# built by dpkg-buildpackage from a copy of the tree, checked by lintian.
deb: deps
	scripts/build-deb.sh $(BUILD)/deb

# The packages' contents, lintian, and DKMS building the module for each test kernel.
deb-check: deps
	tests/run-stage.sh deb $(BUILD)/results tests/deb-check.sh $(BUILD)/deb $(KERNELS)

# Debian 12 with systemd as PID 1 and the packages installed with apt (tests/vm/run-guest.sh),
# on Debian's 6.1 and 6.12 kernels, one boot each running every script of tests/vm/systemd/
# in GUEST_SCRIPTS; the packages are those deb-check built.  The kernels' guests run side by
# side (each VM is one TCG thread; the machine has two cores).
GUEST_KERNELS ?= 6.1 6.12
# upgrade.sh installs the same tree built as a newer version over them.
GUEST_SCRIPTS ?= journal.sh running.sh rescan.sh removal.sh multipath.sh sandbox.sh stale.sh state.sh \
	reconcile.sh empty-target.sh floods.sh reuse.sh reload.sh upgrade.sh lio.sh metrics.sh python.sh

guest-check: deps
	@ls $(BUILD)/deb/uaevents_*.changes >/dev/null 2>&1 || scripts/build-deb.sh $(BUILD)/deb
	@scripts/build-deb.sh $(BUILD)/deb-next \
		"$$(dpkg-parsechangelog -l debian/changelog -S Version)+upgrade1" >/dev/null
	@status=0; pids=; for k in $(GUEST_KERNELS); do \
		UAE_UPGRADE_DEBDIR=$(BUILD)/deb-next tests/run-stage.sh guest-$$k $(BUILD)/results \
			tests/vm/run-guest.sh $$k $(BUILD)/deb $(BUILD)/vm/guest-$$k $(GUEST_SCRIPTS) & \
		pids="$$pids $$!"; \
	done; for p in $$pids; do wait $$p || status=1; done; exit $$status

kunit-check: deps
	tests/run-stage.sh kunit $(BUILD)/results tests/kunit/run.sh

# libFuzzer over the shared decoder: 'make fuzz' for FUZZ_SECONDS, 'make check' briefly.
fuzz: user
	tests/fuzz/run-fuzz.sh $(BUILD)/fuzz $(USERBIN)/sense $(FUZZ_SECONDS)

fuzz-check: user
	tests/run-stage.sh fuzz $(BUILD)/results \
		tests/fuzz/run-fuzz.sh $(BUILD)/fuzz $(USERBIN)/sense $(FUZZ_CHECK_SECONDS)

checkpatch: modules
	tests/run-stage.sh checkpatch $(BUILD)/results tests/checkpatch.sh

# Each test kernel boots once per guest script: e2e.sh (the pipeline to the journal) and
# kernel.sh (the module: errors, identity, coalescing, burst and replay, robustness) and
# daemon.sh (uaeventd: journal and catalog, rescans, hooks, crash and restart, fallback),
# udev.sh (the rules under a real systemd-udevd, beside libstoragemgmt's).
VM_SCRIPTS ?= e2e kernel daemon udev

vm-check: user
	@status=0; for k in $(KERNELS); do for s in $(VM_SCRIPTS); do \
		tests/run-stage.sh vm-$$s-$$k $(BUILD)/results \
			tests/vm/run-vm.sh $$k $$s.sh $(USERBIN) $(BUILD)/vm/$$s-$$k || status=1; \
	done; done; exit $$status

check: deps
	@rm -rf $(BUILD)/results
	@status=0; \
	$(MAKE) --no-print-directory unit-check || status=1; \
	$(MAKE) --no-print-directory install-check || status=1; \
	$(MAKE) --no-print-directory deb-check || status=1; \
	$(MAKE) --no-print-directory checkpatch || status=1; \
	$(MAKE) --no-print-directory kunit-check || status=1; \
	$(MAKE) --no-print-directory fuzz-check || status=1; \
	$(MAKE) --no-print-directory vm-check || status=1; \
	$(MAKE) --no-print-directory guest-check || status=1; \
	tests/summary.sh $(BUILD)/results; \
	exit $$status

# The benchmarks, two VMs per kernel (bench.sh, and bench-scale.sh with 2,048 paths): each
# figure against the stock path in the same VM.
bench: user
	@mkdir -p $(BUILD)/bench; \
	for k in $(BENCH_KERNELS); do \
		tests/vm/run-vm.sh $$k bench.sh $(USERBIN) $(BUILD)/vm/bench-$$k >/dev/null || true; \
		UAE_VM_MEM=4096 UAE_VM_TIMEOUT=5400 tests/vm/run-vm.sh $$k bench-scale.sh $(USERBIN) \
			$(BUILD)/vm/bench-scale-$$k >/dev/null || true; \
		tests/bench/report.sh $$k $(BUILD)/bench/$$k.json $(BUILD)/vm/bench-$$k/tap.log \
			$(BUILD)/vm/bench-scale-$$k/tap.log; \
		echo; \
	done

# make bench-compare OLD=DIR: build/bench/KERNEL.json against DIR/KERNEL.json.
bench-compare:
	@test -n "$(OLD)" || { echo "usage: make bench-compare OLD=DIR (an earlier build/bench)"; exit 2; }
	@for k in $(BENCH_KERNELS); do \
		tests/bench/report.sh --compare $(OLD)/$$k.json $(BUILD)/bench/$$k.json; echo; \
	done

# The packages installed with apt in the Debian 12 guest, systemd as PID 1 (run-guest.sh).
demo: deps
	@ls $(BUILD)/deb/uaevents_*.changes >/dev/null 2>&1 || scripts/build-deb.sh $(BUILD)/deb
	UAE_CONSOLE=1 tests/vm/run-guest.sh $(DEMO_KERNEL) $(BUILD)/deb $(BUILD)/vm/demo demo.sh

clean:
	rm -rf $(BUILD)

.PHONY: all deps user modules unit-check deb deb-check guest-check kunit-check fuzz fuzz-check checkpatch vm-check \
	check bench bench-compare demo install install-check clean
