// The recipe "add a kind" in docs/architecture.md lists the pieces a kind needs. This test
// fails, naming the kind and the piece, when a served kind lacks one of them.
import { describe, expect, test } from 'vitest';
import { KINDS } from '../../components/objects/kinds';
import { KIND_ACCESS } from '../../server/domain/authorization';
import { kindDefinitions } from '../../server/kube/openapi-v3';
import { JSON_ONLY_KINDS, PROTOBUF_KINDS } from '../../server/kube/protobuf-schema';
import type { KindName } from '../../server/resources/kinds';
import { servedAsCustomResource, strategies } from '../../server/resources/registry';

/**
 * Every kind of KindMap (server/resources/kinds.ts), as a value: `satisfies` fails the type
 * check when KindMap has a kind this list lacks or the other way round, and the test below
 * fails when the registry serves a kind KindMap lacks.
 */
const TYPED_KINDS = {
  PersistentVolume: true,
  PersistentVolumeClaim: true,
  StorageClass: true,
  Node: true,
  Namespace: true,
  Event: true,
  Secret: true,
  ConfigMap: true,
  Pod: true,
  ResourceQuota: true,
  CSIStorageCapacity: true,
  VolumeSnapshotClass: true,
  VolumeSnapshot: true,
  VolumeSnapshotContent: true,
  SnapshotSchedule: true,
  BackupTarget: true,
  VolumeBackup: true,
} satisfies Record<KindName, true>;

/** Kinds the dashboard deliberately has no page for, and why. */
const NO_DASHBOARD_PAGE: Record<string, string> = {
  Secret: 'admin-only; shown only as a reference from a StorageClass',
  ConfigMap: 'admin-only; read by the local-volume manager, edited as YAML',
};


describe.each(strategies.map((s) => ({ kind: s.kind, s })))('$kind', ({ kind, s }) => {
  test('has a zod schema (its type and its OpenAPI come from it)', () => {
    expect(s.schema, `${kind}: strategy.schema`).toBeDefined();
  });

  test('is served as OpenAPI (kubectl explain)', () => {
    expect(Object.keys(kindDefinitions('#/')).some((n) => n.endsWith(`.${kind}`))).toBe(true);
  });

  test('has a protobuf table (kubectl sends protobuf for typed commands), or is JSON only as upstream', () => {
    if (JSON_ONLY_KINDS.has(`${s.apiVersion}/${kind}`)) {
      // Only the kinds served as custom resources may; a built-in kind may not opt out.
      expect(servedAsCustomResource(s), `${kind}: JSON_ONLY_KINDS is for kinds served as CRDs`).toBe(true);
      expect(PROTOBUF_KINDS.has(`${s.apiVersion}/${kind}`), `${kind} is JSON_ONLY but has a protobuf table`).toBe(false);
      return;
    }
    expect(PROTOBUF_KINDS.has(`${s.apiVersion}/${kind}`), `PROTOBUF_KINDS['${s.apiVersion}/${kind}']`).toBe(true);
    expect(PROTOBUF_KINDS.has(`${s.apiVersion}/${kind}List`), `PROTOBUF_KINDS['${s.apiVersion}/${kind}List']`).toBe(true);
  });

  test('has a row in the role table', () => {
    expect(Object.hasOwn(KIND_ACCESS, kind), `KIND_ACCESS.${kind}`).toBe(true);
  });

  test('has a dashboard entry, or a reason why not', () => {
    const ui = KINDS.find((k) => k.kind === kind);
    expect(Boolean(ui) !== Boolean(NO_DASHBOARD_PAGE[kind]), `${kind}: in KINDS xor NO_DASHBOARD_PAGE`).toBe(true);
    if (ui) expect(ui.namespaced).toBe(s.namespaced);
  });

  test('has table columns with exactly one name column', () => {
    expect(s.table.columns.filter((c) => c.format === 'name')).toHaveLength(1);
  });
});

test('every served kind has its type in KindMap, and KindMap names no kind that is not served', () => {
  expect(strategies.map((s) => s.kind).sort()).toEqual(Object.keys(TYPED_KINDS).sort());
});

test('every JSON-only kind is served', () => {
  const served = new Set(strategies.map((s) => `${s.apiVersion}/${s.kind}`));
  for (const key of JSON_ONLY_KINDS.keys()) expect(served.has(key), `${key} is not served`).toBe(true);
});

test('no role row, dashboard entry or reason names a kind that is not served', () => {
  const served = new Set(strategies.map((s) => s.kind));
  for (const kind of [...Object.keys(KIND_ACCESS), ...KINDS.map((k) => k.kind), ...Object.keys(NO_DASHBOARD_PAGE)]) {
    expect(served.has(kind), `${kind} is not served`).toBe(true);
  }
});
