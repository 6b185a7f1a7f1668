#!/bin/bash
# Runs inside the VM KernelVM boots (as root, the host's root file system read-only, OUTDIR
# writable): every Tests/Kernel/scenarios/*.sh in name order, each with OUT=OUTDIR/NAME,
# PLUMB and ROOT set, its stdout+stderr in $OUT/log and its exit status in $OUT/status.
# Loads no module itself: each scenario loads what it drives and removes it at its end.
# Usage: run-in-vm.sh OUTDIR PLUMB [SECONDS_PER_SCENARIO]
set -u
OUTDIR=$1
export PLUMB=$2
LIMIT=${3:-150}
export ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$OUTDIR" || exit 1
# GStreamer's registry and any other cache in the writable folder (the home is read-only),
# seeded from the host's so the VM does not scan every plugin again under emulation.
export XDG_CACHE_HOME=$OUTDIR/.cache XDG_RUNTIME_DIR=$OUTDIR/.run HOME=$OUTDIR/.home
mkdir -p "$XDG_CACHE_HOME" "$XDG_RUNTIME_DIR" "$HOME"
chmod 700 "$XDG_RUNTIME_DIR"
[ -n "${HOST_GST_REGISTRY:-}" ] && [ -r "$HOST_GST_REGISTRY" ] && export GST_REGISTRY=$HOST_GST_REGISTRY GST_REGISTRY_UPDATE=no
echo "kernel $(uname -r), $(nproc) cpus, booted in $(cut -d' ' -f1 /proc/uptime) s" > "$OUTDIR/vm.txt"
for script in "$ROOT"/Tests/Kernel/scenarios/*.sh; do
	[ -n "${KERNEL_SCENARIOS:-}" ] && ! [[ $(basename "$script") =~ ${KERNEL_SCENARIOS} ]] && continue
	name=$(basename "$script" .sh)
	export OUT=$OUTDIR/$name
	mkdir -p "$OUT"
	start=$(cut -d' ' -f1 /proc/uptime)
	timeout --kill-after=5 "$LIMIT" bash "$script" > "$OUT/log" 2>&1
	echo $? > "$OUT/status"
	echo "$name: status $(cat "$OUT/status"), $(awk -v s="$start" '{ printf "%.1f", $1 - s }' /proc/uptime) s" >> "$OUTDIR/vm.txt"
done
echo "done after $(cut -d' ' -f1 /proc/uptime) s" >> "$OUTDIR/vm.txt"
