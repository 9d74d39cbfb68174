// The replication jobs' guards (a path that is not the volume's own is refused), the
// snapshots a folder keeps, and `btrfs subvolume show` as the jobs read it.
import { describe, expect, test } from 'vitest';
import type { DataJobSpec } from '../../contracts/data-jobs';
import { parseSubvolumeShow, replicaJobRefusal, snapshotsToRemove } from './rules';

const PV = 'pvc-0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0';
const OTHER = 'pvc-11111111-2222-3333-4444-555555555555';
const dir = `/pool/.stowage-replicas/${PV}`;
const transfer = { id: 't-1', key: 'a'.repeat(64) };

type Send = Extract<DataJobSpec, { kind: 'replica-send' }>;
type Receive = Extract<DataJobSpec, { kind: 'replica-receive' }>;
const send = (over: Partial<Send> = {}): Send => ({
  kind: 'replica-send', pvName: PV, pool: '/pool', volumePath: `/pool/${PV}`, seq: 3, snapshotPath: `${dir}/snap-3`, parentPath: `${dir}/snap-2`, epoch: 1,
  receiver: { node: 'b', endpoint: '10.0.0.2:7480' }, transfer, keep: [`${dir}/snap-2`], ...over,
});
const receive = (over: Partial<Receive> = {}): Receive => ({
  kind: 'replica-receive', pvName: PV, pool: '/pool', seq: 3, snapshotPath: `${dir}/snap-3`, epoch: 1, sender: { node: 'a' }, transfer, keep: [], waitSeconds: 30, ...over,
});

describe('replicaJobRefusal', () => {
  const rows: [string, Send | Receive | Extract<DataJobSpec, { kind: 'replica-remove' }>, string | undefined][] = [
    ['a send of the volume\'s own paths', send(), undefined],
    ['a full send', send({ parentPath: undefined }), undefined],
    ['a receive of the volume\'s own paths', receive(), undefined],
    ['a remove', { kind: 'replica-remove', pvName: PV, pool: '/pool', epoch: 2, removeVolume: true, keepSnapshots: false }, undefined],
    ['a remove of a name that is not a volume\'s', { kind: 'replica-remove', pvName: '..', pool: '/pool', epoch: 2, removeVolume: true, keepSnapshots: false }, '.. is not a volume name'],
    ['the pool /', send({ pool: '/', volumePath: `/${PV}` }), 'pool / is not a normalised absolute path'],
    ['a pool not normalised', receive({ pool: '/pool/' }), 'pool /pool/ is not a normalised absolute path'],
    ['a volume path of another volume', send({ volumePath: `/pool/${OTHER}` }), `volume path /pool/${OTHER} is not /pool/${PV}`],
    ['a volume path outside the pool', send({ volumePath: `/etc/${PV}` }), `volume path /etc/${PV} is not /pool/${PV}`],
    ['a snapshot of another volume', receive({ snapshotPath: `/pool/.stowage-replicas/${OTHER}/snap-3` }), `snapshot /pool/.stowage-replicas/${OTHER}/snap-3 is not a replication snapshot of ${PV} in /pool`],
    ['a snapshot path climbing out', receive({ snapshotPath: `${dir}/../../../etc/snap-3` }), `snapshot ${dir}/../../../etc/snap-3 is not a replication snapshot of ${PV} in /pool`],
    ['a snapshot not named snap-N', send({ snapshotPath: `${dir}/latest` }), `snapshot ${dir}/latest is not a replication snapshot of ${PV} in /pool`],
    ['a parent in another pool', send({ parentPath: `/other/.stowage-replicas/${PV}/snap-2` }), `parent /other/.stowage-replicas/${PV}/snap-2 is not a replication snapshot of ${PV} in /pool`],
    ['a kept path that is the volume', receive({ keep: [`/pool/${PV}`] }), `kept snapshot /pool/${PV} is not a replication snapshot of ${PV} in /pool`],
    ['a snapshot whose number is not the seq', receive({ seq: 4 }), `snapshot ${dir}/snap-3 is not number 4`],
    ['a parent not older than the snapshot', send({ parentPath: `${dir}/snap-3` }), `parent ${dir}/snap-3 is not older than snapshot 3`],
  ];
  test.each(rows)('%s', (_n, spec, out) => expect(replicaJobRefusal(spec)).toBe(out));
});

describe('snapshotsToRemove', () => {
  const rows: [string, string[], string[], string[]][] = [
    ['nothing kept: every snapshot, oldest first', ['snap-10', 'snap-2', 'snap-9'], [], ['snap-2', 'snap-9', 'snap-10']],
    ['kept ones stay', ['snap-1', 'snap-2', 'snap-3'], [`${dir}/snap-2`, `${dir}/snap-3`], ['snap-1']],
    ['entries not named like a snapshot are never touched', ['snap-1', 'notes', 'snap-0', 'snap-01', '.tmp'], [], ['snap-1']],
    ['a kept path of another folder keeps nothing here', ['snap-1'], [`/pool/.stowage-replicas/${OTHER}/snap-1`], ['snap-1']],
  ];
  test.each(rows)('%s', (_n, names, keep, out) => expect(snapshotsToRemove(dir, names, keep)).toEqual(out));
});

describe('parseSubvolumeShow', () => {
  const show = (flags: string, received: string) =>
    `.stowage-replicas/x/snap-1\n\tName: \t\t\tsnap-1\n\tUUID: \t\t\t5d3c\n\tParent UUID: \t\t-\n\tReceived UUID: \t\t${received}\n\tFlags: \t\t\t${flags}\n\tSnapshot(s):\n`;
  const rows: [string, string, { readOnly: boolean; received: boolean }][] = [
    ['a complete received snapshot', show('readonly', '6f0a5e9c-1111-2222-3333-444455556666'), { readOnly: true, received: true }],
    ['a snapshot taken here', show('readonly', '-'), { readOnly: true, received: false }],
    ['a receive cut short (writable, no received UUID yet)', show('-', '-'), { readOnly: false, received: false }],
    ['writable with a received UUID', show('-', '6f0a5e9c-1111-2222-3333-444455556666'), { readOnly: false, received: true }],
  ];
  test.each(rows)('%s', (_n, text, out) => expect(parseSubvolumeShow(text)).toEqual(out));
});
