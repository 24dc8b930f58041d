#!/bin/bash
# make mutants: each deliberate fault of tests/mutants/list, applied alone to a copy of the
# tree, must turn the stage named beside it red.  Prints which checks caught each fault;
# fails if one survives (the tests would not notice that regression) or does not apply.
#
#   run.sh OUTDIR [NAME...]     (default: every mutant of the list)
#
# list: "NAME STAGE EXPECT"; NAME.patch applies with patch -p1 at the top; STAGE is a
# make check stage (unit, vm-kernel_6.12, ...) or guest_KERNEL:SCRIPT[,SCRIPT] (the systemd
# guest running only those scripts); a failed check of the stage must contain the text
# EXPECT (make check shows the same stage green without the fault).  Two mutants at a time.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=$(realpath -m "$1")
shift
mkdir -p "$out"
names=${*:-$(awk '!/^#/ && NF { print $1 }' "$here/list")}

# one NAME: copy, patch, run the stage; writes $out/NAME.verdict.
one() {
	name=$1
	line=$(awk -v n="$name" '$1 == n' "$here/list")
	stage=$(echo "$line" | awk '{ print $2 }')
	expect=$(echo "$line" | cut -d' ' -f3-)
	copy=$out/$name
	rm -rf --one-file-system "$copy"
	mkdir -p "$copy"
	(cd "$top" && tar --exclude=./build --exclude=./.git -cf - .) | tar -xf - -C "$copy"
	if ! patch -s -p1 -d "$copy" <"$here/$name.patch" >"$out/$name.log" 2>&1; then
		echo "ERROR $name: the patch does not apply" >"$out/$name.verdict"
		return
	fi
	case "$stage" in
	guest_*:*)
		# A guest set of its own, m, with only those scripts.
		k=${stage%%:*}
		k=${k#guest_}
		target=st-guest-m_$k
		scripts=$(echo "${stage#*:}" | tr ',' ' ')
		set -- GUEST_SETS=m GUEST_SCRIPTS_m="$scripts" ;;
	*)
		target=st-$stage
		set -- ;;
	esac
	# The copy's own build folder, whatever BUILD= this make was given.
	env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -C "$copy" --no-print-directory \
		BUILD="$copy/build" "$target" "$@" >>"$out/$name.log" 2>&1
	rc=$?
	stagename=${target#st-}
	caught=$(sed -E 's/^\[[^]]*\] //; s/^[0-9]+: //' "$copy/build/results/$stagename.log" 2>/dev/null |
		grep -E '^not ok |:[0-9]+:[EF]:' | grep -F -- "$expect" | head -n 5)
	if [ "$rc" -ne 0 ] && [ -n "$caught" ]; then
		{ echo "caught $name by $stage:"; echo "$caught" | sed 's/^/    /'; } >"$out/$name.verdict"
	elif [ "$rc" -ne 0 ]; then
		echo "ERROR $name: $stage failed, but no failed check says '$expect' (see $out/$name.log)" >"$out/$name.verdict"
	else
		echo "SURVIVED $name: $stage passed with the fault in" >"$out/$name.verdict"
	fi
	rm -rf --one-file-system "$copy/build/vm" "$copy/build/deb" "$copy/build/deb-next"
}

running=0
for name in $names; do
	[ -f "$here/$name.patch" ] || { echo "ERROR $name: no $name.patch" >"$out/$name.verdict"; continue; }
	one "$name" &
	running=$((running + 1))
	if [ "$running" -ge 2 ]; then
		wait -n
		running=$((running - 1))
	fi
done
wait

status=0
for name in $names; do
	cat "$out/$name.verdict"
	grep -q '^caught ' "$out/$name.verdict" || status=1
done
n=$(echo "$names" | wc -w)
caught=$(for name in $names; do cat "$out/$name.verdict"; done | grep -c '^caught ')
echo "mutants: $caught passed, $((n - caught)) failed"
exit $status
