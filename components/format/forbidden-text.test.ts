import { describe, expect, test } from 'vitest';
import { forbiddenText, parseForbidden } from './forbidden-text';

describe('parseForbidden + forbiddenText (an RBAC refusal in words)', () => {
  test.each([
    {
      what: 'a named volume at the cluster scope',
      msg: 'persistentvolumes "pv-1" is forbidden: User "dev" cannot delete resource "persistentvolumes" in API group "" at the cluster scope',
      want: 'Your account (dev) may not delete volumes: only an administrator can.',
    },
    {
      what: 'a list at the cluster scope',
      msg: 'nodes is forbidden: User "dev" cannot list resource "nodes" in API group "" at the cluster scope',
      want: 'Your account (dev) may not list nodes: only an administrator can.',
    },
    {
      what: 'a claim in another namespace',
      msg: 'persistentvolumeclaims "data" is forbidden: User "ann" cannot get resource "persistentvolumeclaims" in API group "" in the namespace "team-b"',
      want: 'Your account (ann) may not open claims in the namespace team-b: ask an administrator for access.',
    },
    {
      what: 'a grouped resource (snapshots), patch read as change',
      msg: 'volumesnapshots.snapshot.storage.k8s.io "s1" is forbidden: User "ann" cannot patch resource "volumesnapshots" in API group "snapshot.storage.k8s.io" in the namespace "team-a"',
      want: 'Your account (ann) may not change snapshots in the namespace team-a: ask an administrator for access.',
    },
    {
      what: 'storage classes',
      msg: 'storageclasses.storage.k8s.io is forbidden: User "dev" cannot create resource "storageclasses" in API group "storage.k8s.io" at the cluster scope',
      want: 'Your account (dev) may not create storage classes: only an administrator can.',
    },
    {
      what: 'a resource the dashboard has no word for',
      msg: 'widgets.example.com is forbidden: User "dev" cannot list resource "widgets" in API group "example.com" at the cluster scope',
      want: 'Your account (dev) may not list widgets: only an administrator can.',
    },
    {
      what: 'an unknown verb kept as it is; a key of Object.prototype is no verb',
      msg: 'pods is forbidden: User "dev" cannot constructor resource "pods" in API group "" at the cluster scope',
      want: 'Your account (dev) may not constructor pods: only an administrator can.',
    },
  ])('$what', ({ msg, want }) => {
    const r = parseForbidden(msg);
    expect(r).toBeDefined();
    expect(forbiddenText(r!)).toBe(want);
  });

  test.each([
    { what: 'a quota refusal', msg: 'persistentvolumeclaims "x" is forbidden: exceeded quota: q, requested: requests.storage=1Gi, used: requests.storage=0, limited: requests.storage=1' },
    { what: 'a controller-owned field', msg: 'persistentvolumes "x" is forbidden: User "dev" may not change what the controllers own: status' },
    { what: 'any other error', msg: 'claim "x" not found' },
    { what: 'empty', msg: '' },
    { what: 'huge', msg: `nodes is forbidden: User "${'a'.repeat(5000)}" cannot list resource "nodes" in API group "" at the cluster scope` },
  ])('$what is not read as an RBAC refusal', ({ msg }) => {
    expect(parseForbidden(msg)).toBeUndefined();
  });
});
