// The cluster's block cleaner: a shell script that zeroes a disk slowly and notes overlapping wipes.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The block cleaner: notes overlapping wipes of one device, zeroes it, takes a couple of seconds. */
export function writeWipeScript(topologyDir: string): void {
  const dir = path.join(topologyDir, 'wipes');
  mkdirSync(dir, { recursive: true });
  const script = path.join(topologyDir, 'wipe.sh');
  writeFileSync(
    script,
    `#!/bin/sh
# Block cleaner of the cluster's disks: zeroes the device in LOCAL_PV_BLKDEVICE, slowly
# enough (about 2 s) that faults land in the middle, and records any second wipe of the
# same device that starts while one still runs (the chaos run checks that file is empty).
set -u
dev=$(readlink -f "$LOCAL_PV_BLKDEVICE")
key=$(basename "$dev")
lock="${dir}/$key.lock"
if ! mkdir "$lock" 2>/dev/null; then
  other=$(cat "$lock/pid" 2>/dev/null || true)
  if [ -n "$other" ] && kill -0 "$other" 2>/dev/null; then
    echo "$(date +%s.%N) $key wiped by $$ while $other still wipes it" >> "${dir}/overlaps.log"
  fi
  rm -rf "$lock"; mkdir -p "$lock"
fi
echo $$ > "$lock/pid"
echo "$(date +%s.%N) start $key $$" >> "${dir}/wipes.log"
sleep 1
size=$(blockdev --getsize64 "$dev")
dd if=/dev/zero of="$dev" bs=1M count=$((size / 1048576)) conv=fsync status=none
sleep 1
echo "$(date +%s.%N) end $key $$" >> "${dir}/wipes.log"
rm -rf "$lock"
`,
  );
  chmodSync(script, 0o755);
}
