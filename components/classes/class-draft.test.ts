import { describe, expect, it } from 'vitest';
import type { StorageClass } from '@/server/resources/storage-class/schema';
import { classChanges, classFromDraft, draftErrors, draftFromClass, emptyDraft, errorFor, immutableChanges, provisionerChoice, withParameter, type ClassDraft } from './class-draft';

const draft = (over: Partial<ClassDraft> = {}): ClassDraft => ({ ...emptyDraft(), name: 'fast', parameters: [{ key: 'basePath', value: '/srv/stowage/fast' }], ...over });

const stored: StorageClass = {
  apiVersion: 'storage.k8s.io/v1',
  kind: 'StorageClass',
  metadata: { name: 'fast', resourceVersion: '42', uid: 'u', labels: { tier: 'gold' }, annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
  provisioner: 'stowage.io/host-path',
  parameters: { basePath: '/srv/stowage/fast' },
  reclaimPolicy: 'Delete',
  volumeBindingMode: 'Immediate',
  allowVolumeExpansion: false,
};

describe('draftErrors: the API’s own checks', () => {
  it.each([
    { name: 'a valid host-path class', d: draft(), field: undefined },
    { name: 'no name', d: draft({ name: '' }), field: 'metadata.name' },
    { name: 'a name with capitals', d: draft({ name: 'Fast' }), field: 'metadata.name' },
    { name: 'no provisioner', d: draft({ provisioner: '' }), field: 'provisioner' },
    { name: 'host-path without basePath', d: draft({ parameters: [] }), field: 'parameters.basePath' },
    { name: 'host-path basePath in /etc', d: draft({ parameters: [{ key: 'basePath', value: '/etc/x' }] }), field: 'parameters.basePath' },
    { name: 'host-path world-writable mode', d: draft({ parameters: [{ key: 'basePath', value: '/srv/a' }, { key: 'mode', value: '0777' }] }), field: 'parameters.mode' },
    { name: 'loop with an unknown filesystem', d: draft({ provisioner: 'stowage.io/loop', parameters: [{ key: 'basePath', value: '/srv/img' }, { key: 'fsType', value: 'ntfs' }] }), field: 'parameters.fsType' },
    { name: 'host-path with an unknown parameter', d: draft({ parameters: [{ key: 'basePath', value: '/srv/a' }, { key: 'size', value: '1' }] }), field: 'parameters.size' },
    { name: 'an external provisioner takes any parameters', d: draft({ provisioner: 'example.com/nfs', parameters: [{ key: 'server', value: 'nfs.local' }] }), field: undefined },
    { name: 'a parameter value without a key', d: draft({ provisioner: 'example.com/nfs', parameters: [{ key: '', value: 'x' }] }), field: 'parameters[0]' },
    { name: 'a parameter given twice', d: draft({ provisioner: 'example.com/nfs', parameters: [{ key: 'a', value: '1' }, { key: 'a', value: '2' }] }), field: 'parameters.a' },
    { name: 'a replicated btrfs class', d: draft({ provisioner: 'stowage.io/btrfs', parameters: [{ key: 'pool', value: '/srv/pool' }, { key: 'replicas', value: '2' }, { key: 'replicationInterval', value: '10s' }] }), field: undefined },
    { name: 'btrfs with 4 replicas', d: draft({ provisioner: 'stowage.io/btrfs', parameters: [{ key: 'pool', value: '/srv/pool' }, { key: 'replicas', value: '4' }] }), field: 'parameters.replicas' },
    { name: 'btrfs with an interval under 5s', d: draft({ provisioner: 'stowage.io/btrfs', parameters: [{ key: 'pool', value: '/srv/pool' }, { key: 'replicas', value: '2' }, { key: 'replicationInterval', value: '1s' }] }), field: 'parameters.replicationInterval' },
    { name: 'btrfs with an interval that is not a duration', d: draft({ provisioner: 'stowage.io/btrfs', parameters: [{ key: 'pool', value: '/srv/pool' }, { key: 'replicas', value: '2' }, { key: 'replicationInterval', value: 'soon' }] }), field: 'parameters.replicationInterval' },
    { name: 'an unsupported reclaim policy', d: draft({ reclaimPolicy: 'Recycle' }), field: 'reclaimPolicy' },
    { name: 'an unsupported binding mode', d: draft({ volumeBindingMode: 'Later' }), field: 'volumeBindingMode' },
  ])('$name', ({ d, field }) => {
    const errs = draftErrors(d);
    if (field === undefined) expect(errs).toEqual([]);
    else expect(errorFor(errs, field), JSON.stringify(errs)).toBeTruthy();
  });

  it.each([
    { name: 'changing the reclaim policy in place', over: { reclaimPolicy: 'Retain' }, field: 'reclaimPolicy' },
    { name: 'changing the parameters in place', over: { parameters: [{ key: 'basePath', value: '/srv/other' }] }, field: 'parameters' },
    { name: 'changing the binding mode in place', over: { volumeBindingMode: 'WaitForFirstConsumer' }, field: 'volumeBindingMode' },
    { name: 'changing expansion in place is allowed', over: { allowVolumeExpansion: true }, field: undefined },
  ])('edit: $name', ({ over, field }) => {
    const errs = draftErrors({ ...draftFromClass(stored), ...over }, stored);
    if (field === undefined) expect(errs).toEqual([]);
    else expect(errorFor(errs, field)).toMatch(/forbidden|immutable/);
  });
});

describe('classFromDraft', () => {
  it('keeps the stored metadata on an edit, and the default mark as it is', () => {
    const sc = classFromDraft({ ...draftFromClass(stored), description: 'SSD', mountOptions: 'noatime\n\n nodiratime ' }, stored);
    expect(sc.metadata).toMatchObject({ name: 'fast', resourceVersion: '42', labels: { tier: 'gold' } });
    expect(sc.metadata.annotations).toEqual({ 'storageclass.kubernetes.io/is-default-class': 'true', 'storageclass.kubernetes.io/description': 'SSD' });
    expect(sc.mountOptions).toEqual(['noatime', 'nodiratime']);
  });

  it('never marks a new class default (the switch moves the mark in a step of its own)', () => {
    expect(classFromDraft(draft()).metadata.annotations).toBeUndefined();
  });

  it('withParameter sets, replaces and removes one key', () => {
    let d = withParameter(draft(), 'mode', '0750');
    d = withParameter(d, 'basePath', '/srv/b');
    expect(classFromDraft(d).parameters).toEqual({ mode: '0750', basePath: '/srv/b' });
    expect(classFromDraft(withParameter(d, 'mode', '')).parameters).toEqual({ basePath: '/srv/b' });
  });
});

describe('changes', () => {
  it.each([
    { name: 'nothing changed', over: {}, want: [] },
    { name: 'reclaim policy', over: { reclaimPolicy: 'Retain' }, want: [{ field: 'reclaimPolicy', before: 'Delete', after: 'Retain' }] },
    { name: 'parameters', over: { parameters: [{ key: 'basePath', value: '/srv/x' }] }, want: [{ field: 'parameters', before: 'basePath=/srv/stowage/fast', after: 'basePath=/srv/x' }] },
    { name: 'expansion is not immutable', over: { allowVolumeExpansion: true }, want: [] },
  ])('immutableChanges: $name', ({ over, want }) => {
    expect(immutableChanges(stored, { ...draftFromClass(stored), ...over })).toEqual(want);
  });

  it('classChanges lists every differing field of a clone', () => {
    const clone = classFromDraft({ ...draftFromClass(stored), name: 'fast-2', reclaimPolicy: 'Retain', allowVolumeExpansion: true });
    expect(classChanges(stored, clone)).toEqual([
      { field: 'name', before: 'fast', after: 'fast-2' },
      { field: 'reclaimPolicy', before: 'Delete', after: 'Retain' },
      { field: 'allowVolumeExpansion', before: 'false', after: 'true' },
    ]);
  });
});

describe('the btrfs choice', () => {
  it('offers pool, replicas 1 to 3 and the replication interval', () => {
    const choice = provisionerChoice('stowage.io/btrfs')!;
    expect(choice.fields!.map((f) => f.key)).toEqual(['pool', 'replicas', 'replicationInterval']);
    expect(choice.fields!.find((f) => f.key === 'replicas')!.options).toEqual(['1', '2', '3']);
  });
});
