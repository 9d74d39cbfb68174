// What a VolumeSnapshot and its VolumeSnapshotContent say of each other, as upstream's
// snapshot controller reads them (external-snapshotter pkg/utils and updateSnapshotStatus):
// keys and names, the predicates its decisions test, and the snapshot's status taken from
// its content. Pure; the snapshot controller's decide.ts picks steps with them.
import type { EventType } from '../../services/event-recorder';
import type { VolumeSnapshotContent } from '../../resources/volume-snapshot-content/schema';
import type { VolumeSnapshot } from '../../resources/volume-snapshot/schema';
import { bytesToQuantity, formatQuantity, isZero, quantityFromJSON } from '../../domain/quantity';
import { reasons } from '../../domain/well-known/event-reasons';
import { volumeSnapshotAsSourceFinalizer, volumeSnapshotBoundFinalizer } from '../../domain/well-known/finalizers';

export interface SnapshotEvent {
  type: EventType;
  reason: string;
  message: string;
}

export type SnapshotStatus = NonNullable<VolumeSnapshot['status']>;

export const warning = (reason: string, message: string): SnapshotEvent => ({ type: 'Warning', reason, message });
export const normal = (reason: string, message: string): SnapshotEvent => ({ type: 'Normal', reason, message });
export const has = (finalizers: string[] | undefined, f: string) => (finalizers ?? []).includes(f);

/** upstream utils.SnapshotKey: namespace/name. */
export const snapshotKey = (vs: VolumeSnapshot) => `${vs.metadata.namespace ?? ''}/${vs.metadata.name ?? ''}`;

/** The name upstream gives the content of a dynamically taken snapshot (GetDynamicSnapshotContentNameForSnapshot). */
export const dynamicContentName = (vs: VolumeSnapshot) => `snapcontent-${vs.metadata.uid ?? ''}`;

export const isSnapshotReady = (vs: VolumeSnapshot) => vs.status?.readyToUse === true;
export const isBoundContentNameSet = (vs: VolumeSnapshot) => Boolean(vs.status?.boundVolumeSnapshotContentName);

/** Both ways: the content's ref names this snapshot by name, namespace and uid (upstream IsVolumeSnapshotRefSet). */
export function isVolumeSnapshotRefSet(vs: VolumeSnapshot, c: VolumeSnapshotContent): boolean {
  const ref = c.spec?.volumeSnapshotRef;
  return ref?.name === vs.metadata.name && ref?.namespace === vs.metadata.namespace && (ref?.uid ?? '') === (vs.metadata.uid ?? '');
}

/** Deleted, and still holding one of the snapshot finalizers (upstream IsSnapshotDeletionCandidate). */
export function isSnapshotDeletionCandidate(vs: VolumeSnapshot): boolean {
  const f = vs.metadata.finalizers;
  return Boolean(vs.metadata.deletionTimestamp) && (has(f, volumeSnapshotAsSourceFinalizer) || has(f, volumeSnapshotBoundFinalizer));
}

export const exactlyOne = (a: unknown, b: unknown) => (a === undefined) !== (b === undefined);

/** upstream updateSnapshotStatus: the snapshot's status taken from its content, and the events of the change; undefined when nothing changes. */
export function statusFromContent(vs: VolumeSnapshot, c: VolumeSnapshotContent): { status: SnapshotStatus; events: SnapshotEvent[] } | undefined {
  const cs = c.status ?? {};
  const createdAt = cs.creationTime !== undefined ? nanosToTime(cs.creationTime) : undefined;
  const size = cs.restoreSize;
  const ready = cs.readyToUse ?? false;
  const contentError = cs.error ? structuredClone(cs.error) : undefined;
  let status: SnapshotStatus;
  let updated = false;
  if (vs.status === undefined) {
    status = { boundVolumeSnapshotContentName: c.metadata.name, readyToUse: ready };
    if (createdAt) status.creationTime = createdAt;
    if (size !== undefined) status.restoreSize = sizeQuantity(size);
    if (contentError) status.error = contentError;
    updated = true;
  } else {
    status = structuredClone(vs.status);
    if (!status.boundVolumeSnapshotContentName) {
      status.boundVolumeSnapshotContentName = c.metadata.name;
      updated = true;
    }
    if (status.creationTime === undefined && createdAt) {
      status.creationTime = createdAt;
      updated = true;
    }
    if (status.readyToUse !== ready) {
      status.readyToUse = ready;
      updated = true;
      if (ready) delete status.error;
    }
    if (size !== undefined && (status.restoreSize === undefined || (isZeroQuantity(status.restoreSize) && size > 0))) {
      status.restoreSize = sizeQuantity(size);
      updated = true;
    }
    if ((status.error === undefined && contentError) || (status.error !== undefined && contentError && status.error.time !== contentError.time) || (status.error !== undefined && !contentError)) {
      if (contentError) status.error = contentError;
      else delete status.error;
      updated = true;
    }
  }
  if (!updated) return undefined;
  const events: SnapshotEvent[] = [];
  if (vs.status?.creationTime === undefined && status.creationTime !== undefined) {
    events.push(normal(reasons.snapshotCreated, `Snapshot ${snapshotKey(vs)} was successfully created by the CSI driver.`));
  }
  if (!isSnapshotReady(vs) && status.readyToUse === true) events.push(normal(reasons.snapshotReady, `Snapshot ${snapshotKey(vs)} is ready to use.`));
  return { status, events };
}

function isZeroQuantity(q: string | number): boolean {
  const parsed = quantityFromJSON(q);
  return parsed !== undefined && isZero(parsed);
}

/** A content's restoreSize (bytes) as the snapshot's quantity (upstream resource.NewQuantity(size, BinarySI): 1073741824 -> "1Gi"). */
function sizeQuantity(bytes: number): string {
  return formatQuantity(bytesToQuantity(BigInt(bytes), 'BinarySI'));
}

/** A content's creationTime (Unix nanoseconds) as the snapshot's RFC 3339 time. */
function nanosToTime(nanos: number): string {
  return new Date(Math.floor(nanos / 1e6)).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** upstream needsUpdateSnapshotStatus: whether the snapshot's status lags its content's. */
export function needsUpdateSnapshotStatus(vs: VolumeSnapshot, c: VolumeSnapshotContent): boolean {
  const s = vs.status;
  const cs = c.status;
  if (s === undefined && cs !== undefined) return true;
  if (cs === undefined || s === undefined) return false;
  if (!s.boundVolumeSnapshotContentName) return true;
  if (s.creationTime === undefined && cs.creationTime !== undefined) return true;
  if (s.readyToUse === undefined && cs.readyToUse !== undefined) return true;
  if (s.readyToUse !== undefined && cs.readyToUse !== undefined && s.readyToUse !== cs.readyToUse) return true;
  if (s.restoreSize === undefined && cs.restoreSize !== undefined) return true;
  return s.restoreSize !== undefined && isZeroQuantity(s.restoreSize) && cs.restoreSize !== undefined && cs.restoreSize > 0;
}
