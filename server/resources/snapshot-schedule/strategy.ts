// The SnapshotSchedule strategy (snapshot.stowage.io/v1, namespaced): every (an interval of at
// least 5m), keep (1..100) and exactly one target (a claim's name or a label selector on the
// namespace's claims) are required; a class name is never empty; spec.backup, when set,
// needs keep (1..1000) and an optional target name. Status is the controller's.
import type { FieldError } from '../../domain/errors';
import { ageOf } from '../../domain/duration';
import { labelSelectorToSelector, selectorToString, validateLabelSelector } from '../../domain/label-selector';
import { nameIsDNSSubdomain } from '../../domain/names';
import { everyProblem, MAX_KEEP, MIN_KEEP } from '../../domain/snapshot-schedule';
import { ageColumn, column, nameColumn, noColumns } from '../columns';
import { invalid, required } from '../field-errors';
import { keepAllButStatus, keepStatus, keepSystemMetadata, shapeErrors, stripNulls, validateObjectMeta, validateObjectMetaUpdate, validateTypeMeta } from '../metadata';
import type { Strategy } from '../types';
import { SNAPSHOT_SCHEDULE_API_VERSION, snapshotScheduleSchema, type SnapshotSchedule } from './schema';

type Spec = NonNullable<SnapshotSchedule['spec']>;

function validateTarget(target: Spec['target']): FieldError[] {
  if (!target) return [required('spec.target', 'a claimName or a selector')];
  const hasName = target.claimName !== undefined;
  const hasSelector = target.selector !== undefined;
  if (hasName === hasSelector) return [invalid('spec.target', 'object', 'exactly one of claimName and selector must be set')];
  if (hasName) return nameIsDNSSubdomain(target.claimName!, false).map((m) => invalid('spec.target.claimName', target.claimName, m));
  return validateLabelSelector(target.selector, 'spec.target.selector');
}

function validateSpec(spec: Spec): FieldError[] {
  const errs: FieldError[] = [];
  if (spec.every === undefined) errs.push(required('spec.every', 'an interval such as 6h'));
  else {
    const problem = everyProblem(spec.every);
    if (problem) errs.push(invalid('spec.every', spec.every, problem));
  }
  if (spec.keep === undefined) errs.push(required('spec.keep', `how many snapshots to keep per claim (${MIN_KEEP}..${MAX_KEEP})`));
  else if (spec.keep < MIN_KEEP || spec.keep > MAX_KEEP) errs.push(invalid('spec.keep', spec.keep, `must be between ${MIN_KEEP} and ${MAX_KEEP}`));
  errs.push(...validateTarget(spec.target));
  if (spec.snapshotClassName !== undefined) {
    for (const m of nameIsDNSSubdomain(spec.snapshotClassName, false)) errs.push(invalid('spec.snapshotClassName', spec.snapshotClassName, m));
  }
  if (spec.backup) {
    const b = spec.backup;
    if (b.targetName !== undefined) {
      for (const m of nameIsDNSSubdomain(b.targetName, false)) errs.push(invalid('spec.backup.targetName', b.targetName, m));
    }
    if (b.keep === undefined) errs.push(required('spec.backup.keep', `how many backups to keep per claim (${MIN_BACKUP_KEEP}..${MAX_BACKUP_KEEP})`));
    else if (b.keep < MIN_BACKUP_KEEP || b.keep > MAX_BACKUP_KEEP) errs.push(invalid('spec.backup.keep', b.keep, `must be between ${MIN_BACKUP_KEEP} and ${MAX_BACKUP_KEEP}`));
  }
  return errs;
}

/** How many Completed backups per claim a schedule may keep. */
export const MIN_BACKUP_KEEP = 1;
export const MAX_BACKUP_KEEP = 1000;

function validateSchedule(s: SnapshotSchedule): FieldError[] {
  // The name is a label value on every snapshot the schedule takes: a DNS label (63 characters).
  const errs = [...validateTypeMeta(s, SNAPSHOT_SCHEDULE_API_VERSION, 'SnapshotSchedule'), ...validateObjectMeta(s.metadata, { namespaced: true, name: 'dns-label' })];
  return s.spec ? [...errs, ...validateSpec(s.spec)] : [...errs, required('spec')];
}

/** What a schedule snapshots, in one cell: the claim's name or the selector. */
export function scheduleTarget(s: SnapshotSchedule): string {
  const t = s.spec?.target;
  if (t?.claimName !== undefined) return t.claimName;
  if (t?.selector !== undefined) {
    try {
      return selectorToString(labelSelectorToSelector(t.selector)) || '(all claims)';
    } catch {
      return '(invalid selector)';
    }
  }
  return '';
}

/**
 * The LASTSNAPSHOT cell: how long ago the schedule last created a snapshot. Not the slot's
 * start: a new `1d` schedule takes today's snapshot at once, long after 00:00 UTC. A status
 * written before the snapshot time was recorded falls back to the slot's start.
 */
export function lastSnapshotAge(s: SnapshotSchedule, now: Date): string {
  const at = s.status?.lastSnapshotTime ?? s.status?.lastScheduleTime;
  return at ? ageOf(at, now) : '';
}

export const snapshotScheduleStrategy: Strategy<SnapshotSchedule> = {
  kind: 'SnapshotSchedule',
  group: 'snapshot.stowage.io',
  version: 'v1',
  apiVersion: SNAPSHOT_SCHEDULE_API_VERSION,
  plural: 'snapshotschedules',
  singular: 'snapshotschedule',
  shortNames: ['vssched'],
  namespaced: true,
  hasStatus: true,
  fieldSelectors: {},

  validateShape: (obj) => shapeErrors(snapshotScheduleSchema, obj),
  schema: snapshotScheduleSchema,

  applyDefaults(s) {
    stripNulls(s);
  },
  prepareForCreate(s) {
    delete s.status;
  },
  prepareForUpdate(next, prev) {
    keepSystemMetadata(next, prev);
    keepStatus(next, prev);
  },
  prepareForStatusUpdate(next, prev) {
    keepAllButStatus(next, prev);
  },

  validate: validateSchedule,
  // Every field may change: the next slot follows the new interval, pruning the new count.
  validateUpdate: (next, prev) => validateObjectMetaUpdate(next.metadata, prev.metadata),

  columns: (s) => ({ ...noColumns(), claimName: s.spec?.target?.claimName ?? null }),

  table: {
    columns: [
      nameColumn,
      column('Every', 'How often a snapshot is taken of each target claim.'),
      { name: 'Keep', type: 'integer', description: 'How many of its snapshots the schedule keeps per claim; older ones are deleted.', priority: 0 },
      column('Target', 'The claim, or the label selector of the claims, the schedule snapshots.'),
      column('SnapshotClass', 'The VolumeSnapshotClass of the snapshots (the default class when empty).', 1),
      column('LastSnapshot', 'How long ago the schedule last created a snapshot.'),
      column('Suspended', 'Whether taking new snapshots is paused.', 1),
      ageColumn,
    ],
    row: (s, now) => [
      s.metadata?.name ?? '',
      s.spec?.every ?? '',
      s.spec?.keep ?? '',
      scheduleTarget(s),
      s.spec?.snapshotClassName ?? '',
      lastSnapshotAge(s, now),
      s.spec?.suspend ? 'True' : 'False',
      ageOf(s.metadata?.creationTimestamp, now),
    ],
  },
};
