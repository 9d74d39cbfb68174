// Shared pieces of the controller integration tests: a store of its own, object makers
// and polling.
import { createAppContext, type AppContext } from '../../server/wiring/context';
import type { Event } from '../../server/resources/event/schema';
import type { PersistentVolume } from '../../server/resources/persistent-volume/schema';
import type { PersistentVolumeClaim } from '../../server/resources/persistent-volume-claim/schema';
import type { StorageClass } from '../../server/resources/storage-class/schema';
import type { KubeObject } from '../../server/resources/types';
import { createTestDatabase } from '../db';

export async function openApp(url?: string): Promise<{ url: string; app: AppContext }> {
  const u = url ?? (await createTestDatabase());
  const app = await createAppContext(u);
  return { url: u, app };
}

export async function ensureNamespaces(app: AppContext, ...names: string[]): Promise<void> {
  for (const name of names) {
    if (!(await app.store.tryGet('Namespace', undefined, name))) {
      await app.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    }
  }
}

export interface VolumeOpts {
  modes?: string[];
  storageClassName?: string;
  labels?: Record<string, string>;
  claimRef?: { namespace: string; name: string; uid?: string };
  reclaimPolicy?: string;
  volumeMode?: string;
}

export function volume(name: string, size: string, o: VolumeOpts = {}): PersistentVolume {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name, ...(o.labels ? { labels: o.labels } : {}) },
    spec: {
      capacity: { storage: size },
      accessModes: o.modes ?? ['ReadWriteOnce'],
      hostPath: { path: `/srv/${name}` },
      persistentVolumeReclaimPolicy: o.reclaimPolicy ?? 'Retain',
      ...(o.storageClassName !== undefined ? { storageClassName: o.storageClassName } : {}),
      ...(o.claimRef ? { claimRef: { kind: 'PersistentVolumeClaim', ...o.claimRef } } : {}),
      ...(o.volumeMode ? { volumeMode: o.volumeMode } : {}),
    },
  };
}

export interface ClaimOpts {
  modes?: string[];
  storageClassName?: string;
  volumeName?: string;
  selector?: unknown;
  /** A snapshot to restore or a claim to clone. */
  dataSource?: { apiGroup?: string; kind: string; name: string };
}

export function claim(namespace: string, name: string, size: string, o: ClaimOpts = {}): PersistentVolumeClaim {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace },
    spec: {
      accessModes: o.modes ?? ['ReadWriteOnce'],
      resources: { requests: { storage: size } },
      ...(o.storageClassName !== undefined ? { storageClassName: o.storageClassName } : {}),
      ...(o.volumeName ? { volumeName: o.volumeName } : {}),
      ...(o.selector ? { selector: o.selector } : {}),
      ...(o.dataSource ? { dataSource: o.dataSource } : {}),
    },
  };
}

export function storageClass(name: string, provisioner: string, o: { isDefault?: boolean; bindingMode?: string } = {}): StorageClass {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name, ...(o.isDefault ? { annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } } : {}) },
    provisioner,
    ...(o.bindingMode ? { volumeBindingMode: o.bindingMode } : {}),
  };
}

export async function waitFor<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined && v !== false) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function eventsAbout(app: AppContext, obj: KubeObject): Promise<Event[]> {
  const ns = obj.metadata.namespace || 'default';
  const all = await app.store.list('Event', { namespace: ns });
  // A list of kind Event.
  return (all.items).filter((e) => e.involvedObject?.name === obj.metadata.name && e.involvedObject?.kind === obj.kind);
}
