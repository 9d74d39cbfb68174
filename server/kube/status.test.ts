import { describe, expect, test } from 'vitest';
import { invalid, StowageError, type ErrorCode } from '../domain/errors';
import { deletedStatus, HttpStatusError, statusFromError } from './status';

const codes: { code: ErrorCode; http: number; reason: string }[] = [
  { code: 'BadRequest', http: 400, reason: 'BadRequest' },
  { code: 'Unauthorized', http: 401, reason: 'Unauthorized' },
  { code: 'Forbidden', http: 403, reason: 'Forbidden' },
  { code: 'NotFound', http: 404, reason: 'NotFound' },
  { code: 'MethodNotAllowed', http: 405, reason: 'MethodNotAllowed' },
  { code: 'AlreadyExists', http: 409, reason: 'AlreadyExists' },
  { code: 'Conflict', http: 409, reason: 'Conflict' },
  { code: 'Expired', http: 410, reason: 'Expired' },
  { code: 'RequestEntityTooLarge', http: 413, reason: 'RequestEntityTooLarge' },
  { code: 'UnsupportedMediaType', http: 415, reason: 'UnsupportedMediaType' },
  { code: 'Invalid', http: 422, reason: 'Invalid' },
  { code: 'TooManyRequests', http: 429, reason: 'TooManyRequests' },
  { code: 'InternalError', http: 500, reason: 'InternalError' },
];

describe('statusFromError', () => {
  test.each(codes)('$code → $http $reason', ({ code, http, reason }) => {
    const { status } = statusFromError(new StowageError(code, `some ${code}`, { kind: 'persistentvolumes', name: 'pv1' }));
    expect(status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `some ${code}`,
      reason,
      details: { name: 'pv1', kind: 'persistentvolumes' },
      code: http,
    });
  });

  test('key names in a validation message are never masked; a credential in it is', () => {
    const e = invalid('ConfigMap', 'local-volumes', [
      { field: 'data.storageClassMap.fast.mountdir', reason: 'FieldValueInvalid', message: 'unknown key; supported keys: hostDir, mountDir' },
      { field: 'data.x', reason: 'FieldValueInvalid', message: 'Invalid value: "Authorization: Bearer planted"' },
    ]);
    const { status } = statusFromError(e);
    expect(status.message).toContain('supported keys: hostDir, mountDir');
    expect(status.details?.causes?.[0]?.message).toBe('unknown key; supported keys: hostDir, mountDir');
    expect(JSON.stringify(status)).not.toContain('planted');
  });

  test('Invalid carries every field cause', () => {
    const e = invalid('PersistentVolume', 'pv1', [
      { field: 'spec.capacity', reason: 'FieldValueRequired', message: 'Required value' },
      { field: 'spec.accessModes', reason: 'FieldValueRequired', message: 'Required value' },
    ]);
    const { status } = statusFromError(e);
    expect(status.code).toBe(422);
    expect(status.message).toBe('PersistentVolume "pv1" is invalid: [spec.capacity: Required value, spec.accessModes: Required value]');
    expect(status.details).toEqual({
      name: 'pv1',
      kind: 'PersistentVolume',
      causes: [
        { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.capacity' },
        { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.accessModes' },
      ],
    });
  });

  // apimachinery NewInvalid: qualifiedKind.String() names the group (an empty group, the core kinds, names none).
  test.each([
    { name: 'a core kind: the kind alone', kind: 'PersistentVolume', group: '', want: 'PersistentVolume "x" is invalid: spec: Required value' },
    { name: 'a CRD kind: VolumeSnapshot.snapshot.storage.k8s.io', kind: 'VolumeSnapshot', group: 'snapshot.storage.k8s.io', want: 'VolumeSnapshot.snapshot.storage.k8s.io "x" is invalid: spec: Required value' },
    { name: 'a grouped built-in kind: StorageClass.storage.k8s.io', kind: 'StorageClass', group: 'storage.k8s.io', want: 'StorageClass.storage.k8s.io "x" is invalid: spec: Required value' },
  ])('Invalid names the group-qualified kind: $name', ({ kind, group, want }) => {
    const { status } = statusFromError(invalid(kind, 'x', [{ field: 'spec', reason: 'FieldValueRequired', message: 'Required value' }], group));
    expect(status.message).toBe(want);
    expect(status.details?.kind).toBe(kind);
    expect(status.details?.group).toBe(group || undefined);
  });

  test('a database that is restarting or failing over is a retryable 503, not an internal error', () => {
    const down = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
    const { status, unexpected } = statusFromError(down);
    expect(unexpected).toBe(false);
    expect(status).toMatchObject({ code: 503, reason: 'ServiceUnavailable', details: { retryAfterSeconds: 1 } });
    expect(status.message).toBe('the server is currently unable to handle the request: the database is shutting down; retry');
    // A real fault stays a 500 whose details are only in the log.
    expect(statusFromError(Object.assign(new Error('duplicate key'), { code: '23505' }))).toMatchObject({ unexpected: true, status: { code: 500 } });
  });

  test('a group other than core is named', () => {
    const { status } = statusFromError(new StowageError('NotFound', 'x', { group: 'storage.k8s.io', kind: 'storageclasses', name: 'a' }));
    expect(status.details).toEqual({ group: 'storage.k8s.io', kind: 'storageclasses', name: 'a' });
  });

  test('HTTP-only errors keep their code and reason', () => {
    expect(statusFromError(new HttpStatusError(406, 'NotAcceptable', 'no')).status).toMatchObject({ code: 406, reason: 'NotAcceptable', message: 'no' });
  });

  test.each([new Error('connection string postgres://u:secret@db'), 'a string', null])('an unexpected %s is a plain 500 that leaks nothing', (e) => {
    const { status, unexpected } = statusFromError(e);
    expect(unexpected).toBe(true);
    expect(status.code).toBe(500);
    expect(status.reason).toBe('InternalError');
    expect(JSON.stringify(status)).not.toContain('secret');
  });
});

test('deletedStatus is upstream finalizeDelete', () => {
  expect(deletedStatus('ev1', '', 'events', 'u-1')).toEqual({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details: { name: 'ev1', kind: 'events', uid: 'u-1' },
    code: 200,
  });
});
