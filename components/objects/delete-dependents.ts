// What deleting a storage class, a snapshot class or a backup target does to what names it,
// said before the delete from the server's counts (objects.dependents): what stays as it is
// and what stops working. Pure.
import { someNames } from '../claims/claim-dependents';
import { plural } from '../format/format';

export interface ReferenceCount {
  kind: string;
  count: number;
  phases: Record<string, number>;
  names: string[];
}

export interface DependentsInput {
  kind: string;
  name: string;
  isDefault: boolean;
  references: ReferenceCount[];
}

export interface DependentsSentences {
  stays: string[];
  stops: string[];
}

/** "a, b and 3 more" from a sample of names and the total. */
export function sampleText(names: string[], total: number, max = 3): string {
  const shown = names.slice(0, max);
  const rest = total - shown.length;
  if (rest <= 0) return someNames(shown, max);
  return `${shown.join(', ')} and ${rest} more`;
}

export function dependentsSentences(d: DependentsInput): DependentsSentences {
  const stays: string[] = [];
  const stops: string[] = [];
  const ref = (kind: string) => d.references.find((r) => r.kind === kind);
  const some = (r: ReferenceCount) => sampleText(r.names, r.count);
  if (d.kind === 'StorageClass') {
    const claims = ref('PersistentVolumeClaim');
    const volumes = ref('PersistentVolume');
    const pending = claims?.phases.Pending ?? 0;
    const others = (claims?.count ?? 0) - pending;
    if (others > 0) stays.push(`${plural(others, 'claim', 'claims')} of this class keep${others === 1 ? 's' : ''} ${others === 1 ? 'its volume' : 'their volumes'}.`);
    if (volumes && volumes.count > 0) stays.push(`Its ${plural(volumes.count, 'volume', 'volumes')} (${some(volumes)}) stay${volumes.count === 1 ? 's' : ''}; each is reclaimed by its own policy when released.`);
    if (pending > 0) stops.push(`${plural(pending, 'Pending claim', 'Pending claims')} of this class will not get a volume: ${pending === 1 ? 'it stays' : 'they stay'} Pending until a class named ${d.name} exists again.`);
    if (d.isDefault) stops.push('It is the default class: new claims that name no class get none (they bind only to volumes without a class) until another class is made the default.');
  } else if (d.kind === 'VolumeSnapshotClass') {
    const snaps = ref('VolumeSnapshot');
    const scheds = ref('SnapshotSchedule');
    if (snaps && snaps.count > 0) stays.push(`${plural(snaps.count, 'snapshot', 'snapshots')} of this class (${some(snaps)}) stay${snaps.count === 1 ? 's' : ''}: ${snaps.count === 1 ? 'its content keeps its' : 'their contents keep their'} own deletion policy.`);
    if (scheds && scheds.count > 0) stops.push(`${plural(scheds.count, 'schedule', 'schedules')} (${some(scheds)}) name${scheds.count === 1 ? 's' : ''} this class: ${scheds.count === 1 ? 'its' : 'their'} next snapshots fail until a class named ${d.name} exists again.`);
    if (d.isDefault) stops.push("It is its driver's default snapshot class: new snapshots that name no class get none until another class is made the default.");
  } else if (d.kind === 'BackupTarget') {
    const backups = ref('VolumeBackup');
    const scheds = ref('SnapshotSchedule');
    if (backups && backups.count > 0) {
      stays.push(`The data of its ${plural(backups.count, 'backup', 'backups')} (${some(backups)}) stays at the target's path.`);
      stops.push(`Those ${plural(backups.count, 'backup', 'backups')} cannot be restored or verified until a target named ${d.name} exists again, and deleting ${backups.count === 1 ? 'it' : 'them'} then leaves ${backups.count === 1 ? 'its' : 'their'} data where it is.`);
    }
    if (scheds && scheds.count > 0) stops.push(`${plural(scheds.count, 'schedule', 'schedules')} (${some(scheds)}) back${scheds.count === 1 ? 's' : ''} up into it: ${scheds.count === 1 ? 'its' : 'their'} backups wait until a target named ${d.name} exists again.`);
    if (d.isDefault) stops.push('It is the default target: backups and schedules that name no target wait until another target is made the default.');
  }
  return { stays, stops };
}
