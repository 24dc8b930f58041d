# Sourced by the guest scripts that use the kernel's own NVMe target (nvme.sh):
# nvmet with a subsystem, namespace 1 on a file, one port, and the host connected to it.
# Over nvmet's loop transport where the kernel has one (6.12), over TCP on 127.0.0.1
# where it does not (Debian's 6.1 kernels build no nvme-loop).

NQN=nqn.2026-12.org.uaevents:nvme-test
CFG=/sys/kernel/config/nvmet
IMG=/tmp/ns1.img

if [ -e /modules/nvme-loop.deps ]; then
	TRANSPORT=loop
	CONNECT="transport=loop,nqn=$NQN"
else
	TRANSPORT=tcp
	CONNECT="transport=tcp,traddr=127.0.0.1,trsvcid=4420,nqn=$NQN"
fi

# The host's side: nvme_core, nvme-fabrics and the transport (loop's is the target's too:
# loaded with it).
host_load() {
	if [ "$TRANSPORT" = loop ]; then
		[ -d /sys/module/nvme_loop ] || kmod_load nvme-loop
	else
		kmod_load nvme-tcp
	fi
}

# target_teardown: the target's configuration gone, its namespaces disabled first.
target_teardown() {
	rm -f "$CFG/ports/1/subsystems/$NQN"
	for ns in "$CFG/subsystems/$NQN"/namespaces/*; do
		[ -d "$ns" ] || continue
		echo 0 >"$ns/enable" && rmdir "$ns" || return 1
	done
	rmdir "$CFG/subsystems/$NQN" "$CFG/ports/1"
}

# unload_all: host and target modules, nvme_core last (6.12's nvmet needs it too).
unload_all() {
	if [ "$TRANSPORT" = loop ]; then
		rmmod nvme_loop nvmet nvme_fabrics nvme_core
	else
		rmmod nvme_tcp nvmet_tcp nvmet nvme_fabrics nvme_core
	fi
}

# The target: a subsystem with namespace 1 on a file, one port of the transport.
target_setup() {
	# A port's transport must be registered before a subsystem is linked to it.
	if [ "$TRANSPORT" = loop ]; then
		kmod_load nvme-loop || return 1
	else
		ip link set lo up && kmod_load nvmet-tcp || return 1
	fi
	mount -t configfs configfs /sys/kernel/config 2>/dev/null
	# buffered_io: tmpfs opens no file O_DIRECT (6.1 refuses the namespace).
	truncate -s 64M "$IMG" &&
		mkdir "$CFG/subsystems/$NQN" &&
		echo 1 >"$CFG/subsystems/$NQN/attr_allow_any_host" &&
		mkdir "$CFG/subsystems/$NQN/namespaces/1" &&
		echo -n "$IMG" >"$CFG/subsystems/$NQN/namespaces/1/device_path" &&
		echo 1 >"$CFG/subsystems/$NQN/namespaces/1/buffered_io" &&
		echo 1 >"$CFG/subsystems/$NQN/namespaces/1/enable" &&
		mkdir "$CFG/ports/1" || return 1
	if [ "$TRANSPORT" = loop ]; then
		echo loop >"$CFG/ports/1/addr_trtype"
	else
		echo tcp >"$CFG/ports/1/addr_trtype" &&
			echo ipv4 >"$CFG/ports/1/addr_adrfam" &&
			echo 127.0.0.1 >"$CFG/ports/1/addr_traddr" &&
			echo 4420 >"$CFG/ports/1/addr_trsvcid"
	fi || return 1
	ln -s "$CFG/subsystems/$NQN" "$CFG/ports/1/subsystems/$NQN"
}

# The controller connected to our subsystem: "nvme0".
our_ctrl() {
	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/subsysnqn" 2>/dev/null)" = "$NQN" ] && basename "$c" && return 0
	done
	return 1
}

# our_disk [NSID]: its namespace's (1's) block device, the multipath head where there is
# one ("nvme0n1"; a path's hidden disk is "nvme0c0n1").  A head's device is the subsystem,
# a disk without multipath the controller: both name the subsystem's NQN.
our_disk() {
	for d in /sys/block/nvme*n"${1:-1}"; do
		case "${d##*/}" in
		nvme*c*n*) continue ;;
		esac
		[ "$(cat "$d/device/subsysnqn" 2>/dev/null)" = "$NQN" ] && basename "$d" && return 0
	done
	return 1
}

connect() {
	echo "$CONNECT" >/dev/nvme-fabrics || return 1
	wait_for 30 our_ctrl >/dev/null || return 1
	CTRL=$(our_ctrl)
	wait_for 30 our_disk >/dev/null || return 1
	DISK=$(our_disk)
}

disconnect() {
	echo 1 >"/sys/class/nvme/$CTRL/delete_controller" && wait_for 30 gone_ctrl
}
gone_ctrl() { [ ! -e "/sys/class/nvme/$CTRL" ]; }

# nullb_namespace: namespace 2 on a null_blk device whose sectors 2048-2055 are bad, which
# nvmet answers with INTERNAL ERROR and DNR (0x6006: with MORE): the host does not retry.
nullb_namespace() {
	kmod_load null_blk nr_devices=0 || return 1
	# The configfs directory names the disk: /dev/nullb0.
	nb=/sys/kernel/config/nullb/nullb0
	mkdir "$nb" && echo 64 >"$nb/size" && echo 1 >"$nb/memory_backed" &&
		echo +2048-2055 >"$nb/badblocks" && echo 1 >"$nb/power" || return 1
	wait_for 10 test -b /dev/nullb0 || return 1
	mkdir "$CFG/subsystems/$NQN/namespaces/2" &&
		echo -n /dev/nullb0 >"$CFG/subsystems/$NQN/namespaces/2/device_path" &&
		echo 1 >"$CFG/subsystems/$NQN/namespaces/2/enable"
}
