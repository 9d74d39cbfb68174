// PersistentVolume access modes, their bit set (for an indexed column) and the short form
// kubectl prints (upstream GetAccessModesAsString: RWO,ROX,RWX,RWOP in that order, no repeats).

export const ACCESS_MODES = ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod'] as const;
export type AccessMode = (typeof ACCESS_MODES)[number];

const ABBREVIATIONS: Record<AccessMode, string> = {
  ReadWriteOnce: 'RWO',
  ReadOnlyMany: 'ROX',
  ReadWriteMany: 'RWX',
  ReadWriteOncePod: 'RWOP',
};

const isAccessMode = (m: string): m is AccessMode => (ACCESS_MODES as readonly string[]).includes(m);

/** RWO=1, ROX=2, RWX=4, RWOP=8; unknown modes add nothing. */
export function accessModesToBits(modes: string[]): number {
  let bits = 0;
  for (const m of modes) if (isAccessMode(m)) bits |= 1 << ACCESS_MODES.indexOf(m);
  return bits;
}

/** The modes whose bits are set, in the canonical order. */
export function bitsToAccessModes(bits: number): AccessMode[] {
  return ACCESS_MODES.filter((_, i) => (bits & (1 << i)) !== 0);
}

/** "RWO,ROX" as kubectl shows them; unknown modes are not shown. */
export function abbreviateAccessModes(modes: string[]): string {
  return bitsToAccessModes(accessModesToBits(modes))
    .map((m) => ABBREVIATIONS[m])
    .join(',');
}

/** Upstream ContainsAllAccessModes: every wanted mode is among those we have. */
export function containsAccessModes(have: string[], want: string[]): boolean {
  return want.every((m) => have.includes(m));
}
