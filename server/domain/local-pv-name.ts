// The name of a local PV: seed 003 "hash the node name, StorageClass name, and base file
// name". The same function as the upstream static provisioner's GeneratePVName: FNV-1a
// (32 bit) over the UTF-8 bytes of entry name, node name and class name, in that order,
// printed as lower-case hex without leading zeros after "local-pv-". Keeping upstream's
// exact output means PVs created by an existing static provisioner keep their names when
// Stowage takes over. The name is deterministic, so a repeated create fails instead of
// duplicating a volume.
//
// Known property (inherited, documented, tested): the three parts are concatenated without
// a separator, so ("ab", "c", x) and ("a", "bc", x) hash alike; and 32 bits collide by
// chance (about 1 in 10,000 for 1,000 disks). The manager must therefore compare an existing
// PV's spec.local.path and node before treating it as "this disk's PV".

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** FNV-1a 32-bit of the bytes, continuing from `hash`. */
export function fnv1a32(bytes: Uint8Array, hash = FNV_OFFSET): number {
  let h = hash >>> 0;
  for (const b of bytes) {
    h ^= b;
    h = Math.imul(h, FNV_PRIME) >>> 0;
  }
  return h >>> 0;
}

const utf8 = new TextEncoder();

export function localPvName(nodeName: string, className: string, entryName: string): string {
  let h = fnv1a32(utf8.encode(entryName));
  h = fnv1a32(utf8.encode(nodeName), h);
  h = fnv1a32(utf8.encode(className), h);
  return `local-pv-${h.toString(16)}`;
}
