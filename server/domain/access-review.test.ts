import { describe, expect, it } from 'vitest';
import type { Principal } from './authorization';
import { groupsOf, reviewNonResource, reviewResource, type ResourceAttributes, type ReviewedKind } from './access-review';

const user = (role: Principal['role'], namespaces: string[] = []): Principal => ({ type: 'user', id: role, name: role, role, namespaces });
const PVC: ReviewedKind = { kind: 'PersistentVolumeClaim', namespaced: true };
const PV: ReviewedKind = { kind: 'PersistentVolume', namespaced: false };
const SC: ReviewedKind = { kind: 'StorageClass', namespaced: false };

const cases: { who: Principal; attrs: ResourceAttributes; kind?: ReviewedKind; allowed: boolean }[] = [
  { who: user('admin'), attrs: { verb: 'delete', resource: 'persistentvolumes' }, kind: PV, allowed: true },
  { who: user('admin'), attrs: { verb: '*', resource: 'persistentvolumes' }, kind: PV, allowed: true },
  { who: user('viewer'), attrs: { verb: 'list', resource: 'persistentvolumes' }, kind: PV, allowed: true },
  { who: user('viewer'), attrs: { verb: 'create', resource: 'persistentvolumes' }, kind: PV, allowed: false },
  { who: user('viewer'), attrs: { verb: '*', resource: 'persistentvolumes' }, kind: PV, allowed: false },
  { who: user('developer', ['team-a']), attrs: { verb: 'create', resource: 'persistentvolumeclaims', namespace: 'team-a' }, kind: PVC, allowed: true },
  { who: user('developer', ['team-a']), attrs: { verb: 'create', resource: 'persistentvolumeclaims', namespace: 'team-b' }, kind: PVC, allowed: false },
  { who: user('developer', ['team-a']), attrs: { verb: 'list', resource: 'persistentvolumeclaims' }, kind: PVC, allowed: false },
  { who: user('developer', ['team-a']), attrs: { verb: 'deletecollection', resource: 'persistentvolumeclaims', namespace: 'team-a' }, kind: PVC, allowed: true },
  { who: user('developer', ['team-a']), attrs: { verb: 'get', resource: 'persistentvolumes' }, kind: PV, allowed: false },
  { who: user('developer', ['team-a']), attrs: { verb: 'list', resource: 'storageclasses' }, kind: SC, allowed: true },
  { who: user('developer', ['team-a']), attrs: { verb: 'update', resource: 'storageclasses' }, kind: SC, allowed: false },
  { who: user('developer', ['team-a']), attrs: { verb: 'update', resource: 'persistentvolumeclaims', subresource: 'status', namespace: 'team-a' }, kind: PVC, allowed: false },
  { who: user('developer', ['team-a']), attrs: { verb: 'get', resource: 'persistentvolumeclaims', subresource: 'status', namespace: 'team-a' }, kind: PVC, allowed: true },
  { who: user('viewer'), attrs: { verb: 'get', resource: 'secrets', namespace: 'team-a' }, kind: { kind: 'Secret', namespaced: true }, allowed: false },
  { who: user('admin'), attrs: { verb: 'get', resource: 'deployments' }, kind: undefined, allowed: false },
  { who: user('admin'), attrs: { verb: 'escalate', resource: 'persistentvolumes' }, kind: PV, allowed: false },
  { who: user('admin'), attrs: { verb: '', resource: 'persistentvolumes' }, kind: PV, allowed: false },
];

describe('reviewResource', () => {
  it.each(cases)('$who.role $attrs.verb $attrs.resource $attrs.subresource in "$attrs.namespace" -> $allowed', ({ who, attrs, kind, allowed }) => {
    const d = reviewResource(who, attrs, kind);
    expect(d.allowed).toBe(allowed);
    if (!allowed) expect(d.reason ?? '').not.toBe('');
  });
});

describe('reviewNonResource', () => {
  it.each([
    { path: '/api', verb: 'get', allowed: true },
    { path: '/apis/storage.k8s.io/v1', verb: 'get', allowed: true },
    { path: '/healthz', verb: 'get', allowed: true },
    { path: '/openapi/v2', verb: 'get', allowed: true },
    { path: '/api', verb: 'post', allowed: false },
    { path: '/metrics', verb: 'get', allowed: false },
    { path: '/apiextra', verb: 'get', allowed: false },
    { path: '*', verb: 'get', allowed: false },
  ])('$verb $path -> $allowed', ({ path, verb, allowed }) => {
    expect(reviewNonResource({ path, verb }).allowed).toBe(allowed);
  });
});

describe('groupsOf', () => {
  it('names the role and system:authenticated', () => {
    expect(groupsOf(user('developer'))).toEqual(['stowage:developers', 'system:authenticated']);
  });
});
