#!/bin/sh
# Boot a Debian test kernel under QEMU with the whole uaevents pipeline and run a guest
# script in it.
#
#   run-vm.sh SERIES SCRIPT USERBIN OUTDIR [--console]
#     SERIES   6.1 or 6.12          SCRIPT   e2e.sh, kernel.sh, ... (tests/vm/guest/)
#     USERBIN  the CMake build folder with uaectl and uaeventd
#     OUTDIR   where console.log and tap.log go
#     --console  show the guest console here (to watch a run) instead of logging it
#   CYCLES: rounds of the loop tests (uae.cycles=; lib.sh's default when unset)
#   UAE_VM_TIMEOUT: seconds before QEMU is stopped (a hang ends as a failure)
#   UAE_VM_ICOUNT: N runs the guest's clock by instructions, 2^N ns each (QEMU's -icount,
#     no sleeping while idle): what the guest times is then what it executed, not how fast
#     the emulator went (make bench)
#   UAE_VM_SMP: virtual CPUs (1 unless set: every figure then counts all the CPU spent)
#
# For test scripts, prints the guest's TAP and exits non-zero unless every test passed.
set -eu

series=$1 script=$2 userbin=$(cd "$3" && pwd) out=$4
mode=${5:-}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)

kroot=$("$here/fetch-kernel.sh" "$series")
kver=$(basename "$kroot")
mkdir -p "$out"
out=$(cd "$out" && pwd)

# UAE_INITRAMFS: the image prep-vm.sh built for this kernel (make check builds it once per
# kernel); otherwise build one here.
initramfs=${UAE_INITRAMFS:-}
[ -n "$initramfs" ] || initramfs=$("$here/prep-vm.sh" "$series" "$userbin" "$out")

if [ "$mode" = --console ]; then
	console="-serial stdio"
	append="quiet"
else
	console="-serial file:$out/console.log"
	append=""
fi
rm -f "$out/tap.log" "$out/console.log"

# kernel.sh gets a virtio-scsi disk that QEMU serves at one I/O per second: slow commands
# on a driver that resets their timer.
extra=""
if [ "$script" = kernel.sh ]; then
	truncate -s 8M "$out/slow.img"
	extra="-object throttle-group,id=slow,x-iops-total=1
		-blockdev driver=file,node-name=slowfile,filename=$out/slow.img
		-blockdev driver=throttle,node-name=slowdisk,throttle-group=slow,file=slowfile
		-device virtio-scsi-pci,id=vscsi
		-device scsi-hd,drive=slowdisk,bus=vscsi.0,product=uae-slow"
fi

# nvme.sh gets QEMU's NVMe controller, whose SMART critical warning only the host can set:
# through QMP, as the guest asks on its third serial port (qmp-requests.py; in --console
# mode too).
qmp_pid=""
if [ "$script" = nvme.sh ]; then
	truncate -s 16M "$out/nvme.img"
	rm -f "$out/qmp.sock" "$out/qmp-requests.log"
	extra="-drive file=$out/nvme.img,if=none,id=nvmdrv,format=raw
		-device nvme,serial=uae-smart,drive=nvmdrv,id=nvme0
		-qmp unix:$out/qmp.sock,server=on,wait=off
		-serial file:$out/qmp-requests.log"
	"$here/qmp-requests.py" "$out/qmp.sock" "$out/qmp-requests.log" >"$out/qmp.log" 2>&1 &
	qmp_pid=$!
fi

# TCG only: this machine has no KVM.  The guest powers itself off when the script ends.
# --foreground: QEMU stays in the stage's process group, so make check's time limit and a
# Ctrl-C stop it too.
# shellcheck disable=SC2086
timeout --foreground -k 30 "${UAE_VM_TIMEOUT:-1200}" qemu-system-x86_64 \
	-machine pc -accel tcg -m "${UAE_VM_MEM:-1024}" -smp "${UAE_VM_SMP:-1}" \
	-kernel "$kroot/boot/vmlinuz-$kver" -initrd "$initramfs" \
	-append "console=ttyS0 panic=-1 oops=panic uae.script=$script ${CYCLES:+uae.cycles=$CYCLES} $append ${UAE_VM_APPEND:-}" \
	-display none -monitor none -nic none -no-reboot \
	${UAE_VM_ICOUNT:+-icount shift=$UAE_VM_ICOUNT,sleep=off} \
	$console -serial "file:$out/tap.log" $extra || {
	echo "run-vm: QEMU failed or timed out (kernel $kver)" >&2
}
[ -z "$qmp_pid" ] || kill "$qmp_pid" 2>/dev/null || true

[ "$mode" = --console ] && exit 0

exec "$here/judge-tap.sh" "$out" "$kver" "$script"
