// The BackupTarget strategy (stowage.io/v1, cluster-scoped): spec.path is required, absolute
// and clean; spec.default optional (at most one default target: the ObjectService refuses a
// second, naming the current one, since that needs the other targets). Status is the controller's.
import type { FieldError } from '../../domain/errors';
import { ageOf } from '../../domain/duration';
import { ageColumn, column, nameColumn, noColumns } from '../columns';
import { invalid, required } from '../field-errors';
import { keepAllButStatus, keepStatus, keepSystemMetadata, shapeErrors, stripNulls, validateObjectMeta, validateObjectMetaUpdate, validateTypeMeta } from '../metadata';
import type { Strategy } from '../types';
import { BACKUP_API_VERSION, backupTargetSchema, type BackupTarget } from './schema';

const MAX_PATH = 4096;

/** Why a target's path is not usable, in words (undefined when it is). */
export function targetPathProblem(path: string): string | undefined {
  if (!path.startsWith('/')) return 'must be an absolute path';
  if (path.length > MAX_PATH) return `must be no more than ${MAX_PATH} characters`;
  if (path.includes('\0')) return 'must not contain a NUL character';
  if (path.split('/').some((seg) => seg === '..' || seg === '.')) return "must not contain '.' or '..' segments";
  return undefined;
}

function validateTarget(t: BackupTarget): FieldError[] {
  const errs = [...validateTypeMeta(t, BACKUP_API_VERSION, 'BackupTarget'), ...validateObjectMeta(t.metadata, { namespaced: false, name: 'dns-label' })];
  if (!t.spec) return [...errs, required('spec')];
  if (t.spec.path === undefined || t.spec.path === '') errs.push(required('spec.path', 'an absolute path every node mounts'));
  else {
    const problem = targetPathProblem(t.spec.path);
    if (problem) errs.push(invalid('spec.path', t.spec.path, problem));
  }
  return errs;
}

/** Whether the target is the default one. */
export function isDefaultTarget(t: BackupTarget): boolean {
  return t.spec?.default === true;
}

/** The READY cell: the Ready condition's status. */
export function targetReady(t: BackupTarget): string {
  return t.status?.conditions?.find((c) => c.type === 'Ready')?.status ?? 'Unknown';
}

export const backupTargetStrategy: Strategy<BackupTarget> = {
  kind: 'BackupTarget',
  group: 'stowage.io',
  version: 'v1',
  apiVersion: BACKUP_API_VERSION,
  plural: 'backuptargets',
  singular: 'backuptarget',
  shortNames: [],
  namespaced: false,
  hasStatus: true,
  fieldSelectors: {},

  validateShape: (obj) => shapeErrors(backupTargetSchema, obj),
  schema: backupTargetSchema,

  applyDefaults(t) {
    stripNulls(t);
  },
  prepareForCreate(t) {
    delete t.status;
  },
  prepareForUpdate(next, prev) {
    keepSystemMetadata(next, prev);
    keepStatus(next, prev);
  },
  prepareForStatusUpdate(next, prev) {
    keepAllButStatus(next, prev);
  },

  validate: validateTarget,
  // The path may change (a moved mount); the agents look at the new one on their next report.
  validateUpdate: (next, prev) => validateObjectMetaUpdate(next.metadata, prev.metadata),

  columns: () => noColumns(),

  table: {
    columns: [
      nameColumn,
      column('Path', 'The directory every node mounts, where the backups are kept.'),
      column('Default', 'Whether backups that name no target go here.'),
      column('Ready', 'Whether a node reported the target reachable and writable.'),
      { name: 'Backups', type: 'integer', description: 'How many backups the target holds.', priority: 0 },
      ageColumn,
    ],
    row: (t, now) => [
      t.metadata?.name ?? '',
      t.spec?.path ?? '',
      t.spec?.default ? 'true' : 'false',
      targetReady(t),
      t.status?.backups ?? 0,
      ageOf(t.metadata?.creationTimestamp, now),
    ],
  },
};
