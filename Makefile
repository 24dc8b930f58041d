# uaevents: top-level build.  CMake builds user space; kernel/Makefile builds the module
# against each test kernel's headers; tests/vm/ boots those kernels under QEMU.
#
#   make demo    set up, build, boot the VM and show UAs flowing into the journal
#   make check   set up, build, run the Check unit tests, checkpatch, KUnit (UML), a short
#                fuzz pass and the VM end-to-end tests
#   make fuzz    fuzz the shared decoder for FUZZ_SECONDS
#   make bench   the cost and the behaviour under load against the stock path, two VMs per
#                kernel: a table, and JSON in build/bench/ (docs/benchmarks.md)
#   make bench-nvme   the NVMe figures alone (in make bench too)
#   make bench-compare OLD=DIR   the figures of build/bench/ against an earlier run's
#   make bench-profile   figure 5's capacity storm under perf in the guest (linux-perf)

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

# Debian packages (uaevents-dkms, libuaevents1, libuaevents-dev, uaevents) in $(BUILD)/deb,
# built by dpkg-buildpackage from a copy of the tree, checked by lintian.
deb: deps
	scripts/build-deb.sh $(BUILD)/deb

# The test kernels are pinned in tests/vm/kernels; this says which newer ones Debian has.
kernel-versions:
	@tests/vm/fetch-kernel.sh --newer

# ---- The test stages ----
# Each stage runs through tests/run-stage.sh, which keeps its log and its counts and
# seconds in $(RESULTS); a stage is a target st-NAME.  'make check' runs them two at a
# time (the machine has two cores, each VM is one TCG thread), longest first, and
# tests/summary.sh counts a stage that never ran (its prerequisite failed) as a failure.
RESULTS     := $(BUILD)/results
STAGE       := tests/run-stage.sh
# Rounds of the loop tests (hot-remove, rmmod, reloads): a few here, 100 in make soak.
CYCLES      ?= 10
export CYCLES
# upgrade.sh upgrades uaevents-dkms too (DKMS compiles under TCG for minutes): make soak.
UAE_UPGRADE_DKMS ?= 0
export UAE_UPGRADE_DKMS
# The module's scenarios (e2e, kernel) run on every kernel; uaeventd's and udev's
# (daemon, udev), which do not depend on the kernel, on USER_KERNELS.
VM_KERNEL_SCRIPTS ?= e2e kernel storm nvme
VM_USER_SCRIPTS ?= daemon udev
USER_KERNELS ?= 6.12
# The systemd guest: Debian 12 with the packages installed with apt (tests/vm/run-guest.sh).
# Its scripts are split in two sets of about the same time (GUEST_SCRIPTS_a, _b), each one
# boot of each kernel of GUEST_KERNELS, so the two run side by side: one boot of them all
# would be the whole run's longest stage.
GUEST_KERNELS ?= 6.12
GUEST_SETS ?= a b
GUEST_SCRIPTS_a ?= journal.sh running.sh rescan.sh removal.sh multipath.sh stack.sh sandbox.sh stale.sh \
	state.sh reconcile.sh
# upgrade.sh installs the same tree built as a newer version over them; purge.sh removes
# the package, so it comes last.
GUEST_SCRIPTS_b ?= readme.sh empty-target.sh floods.sh reuse.sh reload.sh owed.sh upgrade.sh lio.sh metrics.sh \
	python.sh purge.sh
# Seconds before one busybox VM or one systemd guest is stopped: a hang ends as a failure
# with the summary, well inside CI's 90 minutes; the whole run stops at CHECK_TIMEOUT.
VM_TIMEOUT  ?= 900
GUEST_TIMEOUT ?= 1800
CHECK_TIMEOUT ?= 4800

VM_STAGES    = $(foreach k,$(KERNELS),$(foreach s,$(VM_KERNEL_SCRIPTS),vm-$(s)_$(k))) \
	$(foreach k,$(USER_KERNELS),$(foreach s,$(VM_USER_SCRIPTS),vm-$(s)_$(k)))
GUEST_STAGES = $(foreach k,$(GUEST_KERNELS),$(foreach g,$(GUEST_SETS),guest-$(g)_$(k)))
# Longest first: make starts prerequisites in this order.
CHECK_STAGES = $(GUEST_STAGES) deb-build $(foreach k,$(GUEST_KERNELS),rootfs_$(k)) $(VM_STAGES) \
	deb kunit checkpatch \
	$(foreach k,$(sort $(KERNELS) $(USER_KERNELS)),prep_$(k)) \
	fuzz-sense fuzz-event build unit install
QUICK_STAGES = build unit install prep_6.12 vm-e2e_6.12 vm-kernel_6.12 vm-daemon_6.12

# What the machine needs (apt), counted like any stage: a failure still ends in a summary.
st-deps:
	UAE_STAGE_BUILD=1 $(STAGE) deps $(RESULTS) scripts/install-deps.sh

st-build: st-deps
	UAE_STAGE_BUILD=1 $(STAGE) build $(RESULTS) $(MAKE) --no-print-directory user

st-unit: st-build
	$(STAGE) unit $(RESULTS) ctest --test-dir $(USERBIN) -V --no-tests=error

st-install: st-build
	$(STAGE) install $(RESULTS) tests/install-check.sh $(USERBIN)

# The packages, once a run: the release and the same tree as a newer version.
st-deb-build: st-deps
	$(STAGE) deb-build $(RESULTS) tests/deb-build.sh $(BUILD)/deb $(BUILD)/deb-next

st-deb: st-deb-build
	$(STAGE) deb $(RESULTS) tests/deb-check.sh $(BUILD)/deb $(KERNELS)

st-kunit: st-deps
	$(STAGE) kunit $(RESULTS) tests/kunit/run.sh

st-fuzz-%: st-build
	$(STAGE) fuzz-$* $(RESULTS) \
		tests/fuzz/run-fuzz.sh $(BUILD)/fuzz $(USERBIN)/sense $(FUZZ_CHECK_SECONDS) $*

# uaevents.ko, the fault-injection helper and the initramfs, once per kernel.
st-prep_%: st-build
	UAE_STAGE_BUILD=1 $(STAGE) prep_$* $(RESULTS) tests/vm/prep-vm.sh $* $(USERBIN) $(BUILD)/vm/prep-$*

st-checkpatch: $(foreach k,$(KERNELS),st-prep_$(k))
	$(STAGE) checkpatch $(RESULTS) tests/checkpatch.sh $(KERNELS)

# vm-SCRIPT_KERNEL: one boot of KERNEL running tests/vm/guest/SCRIPT.sh.
.SECONDEXPANSION:
st-vm-%: st-prep_$$(lastword $$(subst _, ,$$*))
	UAE_VM_TIMEOUT=$(VM_TIMEOUT) UAE_INITRAMFS=$(BUILD)/vm/prep-$(lastword $(subst _, ,$*))/initramfs.cpio.gz \
	$(STAGE) vm-$* $(RESULTS) tests/vm/run-vm.sh $(lastword $(subst _, ,$*)) \
		$(firstword $(subst _, ,$*)).sh $(USERBIN) $(BUILD)/vm/$*

# The guest's root filesystem (mmdebstrap, cached): a stage of its own, so that on a cold
# cache the other slot works meanwhile instead of a second guest waiting on its lock.
st-rootfs_%: st-deps
	UAE_STAGE_BUILD=1 $(STAGE) rootfs_$* $(RESULTS) tests/vm/mkrootfs.sh $*

# guest-SET_KERNEL: one boot of KERNEL running the scripts of GUEST_SCRIPTS_SET.
st-guest-%: st-deb-build st-rootfs_$$(lastword $$(subst _, ,$$*))
	UAE_VM_TIMEOUT=$(GUEST_TIMEOUT) UAE_UPGRADE_DEBDIR=$(BUILD)/deb-next \
	$(STAGE) guest-$* $(RESULTS) tests/vm/run-guest.sh $(lastword $(subst _, ,$*)) $(BUILD)/deb \
		$(BUILD)/vm/guest-$* $(GUEST_SCRIPTS_$(firstword $(subst _, ,$*)))

# run-stages STAGE...: the stages two at a time, each failure counted and the rest run on,
# then the summary; fails if anything failed.  The stages run in a process group of their
# own (timeout's), so a Ctrl-C or TERM is passed on to it, and the summary still prints.
define run-stages
	@rm -rf $(RESULTS); mkdir -p $(RESULTS); date +%s >$(RESULTS)/started
	+@timeout -k 60 $(CHECK_TIMEOUT) $(MAKE) --no-print-directory -k -j $(JOBS) \
		$(addprefix st-,$(1)) & t=$$!; \
	trap 'kill -TERM $$t 2>/dev/null' INT TERM HUP; \
	wait $$t; status=$$?; [ $$status -le 128 ] || { wait $$t; status=$$?; }; \
	tests/summary.sh $(RESULTS) $$status $(1)
endef

check:
	$(call run-stages,deps $(CHECK_STAGES))

# The inner loop: host tests and one kernel's module and daemon tests.
check-quick:
	$(call run-stages,deps $(QUICK_STAGES))

# Everything on every kernel, the loops at 100 rounds, the systemd guest on 6.1 too:
# before resolving work on the module, the daemon's actions or the tests.
soak:
	@$(MAKE) --no-print-directory check CYCLES=100 UAE_UPGRADE_DKMS=1 USER_KERNELS="$(KERNELS)" \
		GUEST_KERNELS="6.1 6.12" VM_TIMEOUT=1800 GUEST_TIMEOUT=3000 CHECK_TIMEOUT=10800

# Each deliberate fault of tests/mutants/list, alone in a copy of the tree, must turn its
# named stage red: the tests notice the regressions that would hurt users most.
mutants: deps
	tests/mutants/run.sh $(BUILD)/mutants $(MUTANTS)

# Parts of make check, each with its summary.
unit-check:
	$(call run-stages,deps build unit)
install-check:
	$(call run-stages,deps build install)
deb-check:
	$(call run-stages,deps deb-build deb)
kunit-check:
	$(call run-stages,deps kunit)
fuzz-check:
	$(call run-stages,deps build fuzz-sense fuzz-event)
checkpatch:
	$(call run-stages,deps build $(foreach k,$(KERNELS),prep_$(k)) checkpatch)
vm-check:
	$(call run-stages,deps build $(foreach k,$(sort $(KERNELS) $(USER_KERNELS)),prep_$(k)) $(VM_STAGES))
guest-check:
	$(call run-stages,deps deb-build $(foreach k,$(GUEST_KERNELS),rootfs_$(k)) $(GUEST_STAGES))

# make fuzz: fuzz the shared decoder for FUZZ_SECONDS.
fuzz: user
	tests/fuzz/run-fuzz.sh $(BUILD)/fuzz $(USERBIN)/sense $(FUZZ_SECONDS)

# The benchmarks, three VMs per kernel (bench.sh, bench-scale.sh with 2,048 paths, and
# bench-nvme.sh): each figure against the stock path in the same VM.  bench.sh's and
# bench-nvme.sh's guest clocks count instructions (UAE_VM_ICOUNT): their ratios are what
# the guest executed, whatever else the host runs.
bench: user
	@mkdir -p $(BUILD)/bench; \
	for k in $(BENCH_KERNELS); do \
		UAE_VM_ICOUNT=1 tests/vm/run-vm.sh $$k bench.sh $(USERBIN) $(BUILD)/vm/bench-$$k \
			>/dev/null || true; \
		UAE_VM_MEM=4096 UAE_VM_TIMEOUT=5400 tests/vm/run-vm.sh $$k bench-scale.sh $(USERBIN) \
			$(BUILD)/vm/bench-scale-$$k >/dev/null || true; \
		UAE_VM_ICOUNT=1 tests/vm/run-vm.sh $$k bench-nvme.sh $(USERBIN) \
			$(BUILD)/vm/bench-nvme-$$k >/dev/null || true; \
		tests/bench/report.sh $$k $(BUILD)/bench/$$k.json $(BUILD)/vm/bench-$$k/tap.log \
			$(BUILD)/vm/bench-scale-$$k/tap.log $(BUILD)/vm/bench-nvme-$$k/tap.log; \
		echo; \
	done

# make bench-nvme: the NVMe figures alone, one VM per kernel (build/bench/nvme-KERNEL.json).
bench-nvme: user
	@mkdir -p $(BUILD)/bench; \
	for k in $(BENCH_KERNELS); do \
		UAE_VM_ICOUNT=1 tests/vm/run-vm.sh $$k bench-nvme.sh $(USERBIN) \
			$(BUILD)/vm/bench-nvme-$$k >/dev/null || true; \
		tests/bench/report.sh $$k $(BUILD)/bench/nvme-$$k.json \
			$(BUILD)/vm/bench-nvme-$$k/tap.log; \
		echo; \
	done

# make bench-profile: where the CPU goes in figure 5's capacity storm, by perf in the guest
# (256 LUs: PROFILE_APPEND changes it), with a frame-pointer build for whole call chains.
PROFILE_APPEND ?= uae.scale_tgts=4 uae.scale_luns=64
PROFILE_KERNEL ?= 6.12
bench-profile: deps
	@command -v perf >/dev/null || { echo "make bench-profile needs perf: apt install linux-perf"; exit 2; }
	cmake -S . -B $(BUILD)/user-fp -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DCMAKE_C_FLAGS=-fno-omit-frame-pointer >/dev/null
	cmake --build $(BUILD)/user-fp -j $(JOBS)
	UAE_VM_PERF=1 UAE_VM_MEM=2048 UAE_VM_TIMEOUT=5400 UAE_VM_APPEND="uae.perf $(PROFILE_APPEND)" \
		tests/vm/run-vm.sh $(PROFILE_KERNEL) bench-scale.sh $(BUILD)/user-fp \
		$(BUILD)/vm/bench-profile >/dev/null || true
	@grep -E '# (perf: |uaeventd.s entries|BENCH .*scale-(capacity-sec|index-walks|uaeventd-cpu|jobs-cpu))' \
		$(BUILD)/vm/bench-profile/tap.log | sed 's/^\[[^]]*\] # //'

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
	rm -rf --one-file-system $(BUILD)

.PHONY: all deps user modules unit-check deb deb-check guest-check kunit-check fuzz fuzz-check checkpatch vm-check \
	check check-quick soak mutants kernel-versions bench bench-profile bench-nvme bench-compare demo install install-check clean
