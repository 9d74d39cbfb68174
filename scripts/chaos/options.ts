// The chaos run's command line (`npm run chaos -- ...`) and its seeded random numbers.

export function args() {
  const a = process.argv.slice(2);
  const num = (name: string, fallback: number) => {
    const i = a.indexOf(`--${name}`);
    if (i < 0) return fallback;
    const n = Number(a[i + 1]);
    if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive whole number`);
    return n;
  };
  const short = a.includes('--short');
  return {
    durationMs: num('duration', short ? 75 : 300) * 1000,
    seed: num('seed', Date.now() % 100_000),
    clients: num('clients', 50),
    short,
    keep: a.includes('--keep'),
    // The "node lost" fault (node-lost.ts): a btrfs pool per node, backups, then one node
    // lost for good after the other faults and their convergence check. In the full run;
    // the short one (CI) has it only when asked for with --node-lost.
    nodeLost: a.includes('--node-lost') || (!short && !a.includes('--no-node-lost')),
    ifPossible: a.includes('--if-possible'),
  };
}


export type ChaosOptions = ReturnType<typeof args>;

/** A small seeded generator, so a run can be repeated (--seed). */
export function rng(seed: number) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 0x1_0000_0000;
  };
}
