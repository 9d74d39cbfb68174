// What deleting a claim does to what was made from it, said before the delete: its
// snapshots and backups stay (they restore to a new claim), the schedules that snapshot it
// stop having anything to snapshot (and can be paused first). Pure.

export interface ClaimDependents {
  snapshots: string[];
  schedules: { name: string; suspended: boolean }[];
  backups: string[];
}

export interface DependentsText {
  /** What the delete leaves as it is. */
  stays: string[];
  /** What stops working once the claim is gone. */
  stops: string[];
  /** The schedules worth pausing before the delete. */
  toPause: string[];
}

/** At most `max` names, then how many more: "a, b and 3 more". */
export function someNames(names: string[], max = 3): string {
  if (names.length <= max) return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
  return `${names.slice(0, max).join(', ')} and ${names.length - max} more`;
}

export function dependentsText(d: ClaimDependents): DependentsText {
  const stays: string[] = [];
  const stops: string[] = [];
  if (d.snapshots.length === 1) stays.push(`Snapshot ${d.snapshots[0]} stays: it can still be restored to a new claim.`);
  else if (d.snapshots.length > 1) stays.push(`Its ${d.snapshots.length} snapshots stay (${someNames(d.snapshots)}): each can still be restored to a new claim.`);
  if (d.backups.length === 1) stays.push(`Backup ${d.backups[0]} stays in its target: a new claim can restore from it.`);
  else if (d.backups.length > 1) stays.push(`Its ${d.backups.length} backups stay in their targets (${someNames(d.backups)}): a new claim can restore from them.`);
  const paused = d.schedules.filter((s) => s.suspended).map((s) => s.name);
  const active = d.schedules.filter((s) => !s.suspended).map((s) => s.name);
  if (paused.length > 0) stays.push(`${paused.length === 1 ? `Schedule ${paused[0]} is` : `Schedules ${someNames(paused)} are`} paused and stay${paused.length === 1 ? 's' : ''} so.`);
  if (active.length > 0) {
    stops.push(
      `${active.length === 1 ? `Schedule ${active[0]} stops` : `Schedules ${someNames(active)} stop`}: there is no claim left to snapshot. Pause ${active.length === 1 ? 'it' : 'them'} (or delete ${active.length === 1 ? 'it' : 'them'}) so ${active.length === 1 ? 'it does' : 'they do'} not keep failing; the snapshots already taken stay.`,
    );
  }
  return { stays, stops, toPause: active };
}

/** The dependents of several claims as one (a bulk delete): names once each, in their order. */
export function mergeDependents(all: ClaimDependents[]): ClaimDependents {
  const uniq = (xs: string[]) => [...new Set(xs)];
  const schedules = new Map<string, { name: string; suspended: boolean }>();
  for (const d of all) for (const s of d.schedules) if (!schedules.has(s.name)) schedules.set(s.name, s);
  return {
    snapshots: uniq(all.flatMap((d) => d.snapshots)),
    schedules: [...schedules.values()],
    backups: uniq(all.flatMap((d) => d.backups)),
  };
}
