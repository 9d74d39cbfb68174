import { describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { openApiV2 } from './openapi';
import { encodeOpenApiV2 } from './protobuf';

/** A minimal protobuf reader: field number → raw values (numbers for varints, Buffers otherwise). */
function fields(buf: Buffer): Map<number, (number | Buffer)[]> {
  const out = new Map<number, (number | Buffer)[]>();
  let i = 0;
  const varint = () => {
    let v = 0;
    let mul = 1;
    for (;;) {
      const b = buf[i++];
      v += (b & 0x7f) * mul;
      mul *= 128;
      if (b < 0x80) return v;
    }
  };
  while (i < buf.length) {
    const tag = varint();
    const field = Math.floor(tag / 8);
    const wire = tag % 8;
    let value: number | Buffer;
    if (wire === 0) value = varint();
    else if (wire === 2) {
      const len = varint();
      value = buf.subarray(i, i + len);
      i += len;
    } else throw new Error(`unexpected wire type ${wire}`);
    out.set(field, [...(out.get(field) ?? []), value]);
  }
  return out;
}
const str = (m: Map<number, (number | Buffer)[]>, f: number) => (m.get(f)?.[0] as Buffer | undefined)?.toString('utf8');
const msgs = (m: Map<number, (number | Buffer)[]>, f: number) => (m.get(f) ?? []).map((b) => fields(b as Buffer));

describe('the OpenAPI v2 protobuf document', () => {
  const doc = fields(encodeOpenApiV2(openApiV2()));

  test('Document: swagger and info', () => {
    expect(str(doc, 1)).toBe('2.0');
    expect(str(msgs(doc, 2)[0], 1)).toBe('Stowage');
  });

  test('each kind has a PATCH operation with its GVK, the patch types and fieldValidation/dryRun', () => {
    const paths = msgs(msgs(doc, 8)[0], 2); // Paths.path: NamedPathItem
    const byName = new Map(paths.map((p) => [str(p, 1)!, msgs(p, 2)[0]]));
    const item = byName.get('/api/v1/persistentvolumes/{name}')!;
    expect(item).toBeDefined();
    const patch = msgs(item, 8)[0]; // PathItem.patch
    const consumes = (patch.get(7) ?? []).map((b) => (b as Buffer).toString());
    // Not strategic merge: kubectl then computes apply patches from its built-in types.
    expect(consumes).toEqual(expect.arrayContaining(['application/merge-patch+json', 'application/json-patch+json', 'application/apply-patch+yaml']));
    expect(consumes).not.toContain('application/strategic-merge-patch+json');
    const ext = msgs(patch, 13).map((e) => [str(e, 1), str(msgs(e, 2)[0], 2)] as const);
    const gvk = ext.find(([k]) => k === 'x-kubernetes-group-version-kind')!;
    expect(parse(gvk[1]!)).toEqual({ group: '', kind: 'PersistentVolume', version: 'v1' });
    // ParametersItem.parameter → Parameter.non_body_parameter → NonBodyParameter.query_parameter_sub_schema
    const queryNames = msgs(patch, 8)
      .map((pi) => msgs(pi, 1)[0])
      .flatMap((p) => msgs(p, 2))
      .flatMap((nb) => msgs(nb, 3))
      .map((q) => str(q, 4));
    expect(queryNames).toEqual(expect.arrayContaining(['fieldValidation', 'dryRun']));
    const sc = byName.get('/apis/storage.k8s.io/v1/storageclasses/{name}')!;
    const scGvk = msgs(msgs(sc, 8)[0], 13).find((e) => str(e, 1) === 'x-kubernetes-group-version-kind')!;
    expect(parse(str(msgs(scGvk, 2)[0], 2)!)).toEqual({ group: 'storage.k8s.io', kind: 'StorageClass', version: 'v1' });
  });

  test('a body parameter is a BodyParameter with a schema', () => {
    const paths = msgs(msgs(doc, 8)[0], 2);
    const item = msgs(paths.find((p) => str(p, 1) === '/api/v1/namespaces/{namespace}/persistentvolumeclaims')!, 2)[0];
    const post = msgs(item, 4)[0];
    const body = msgs(post, 8).map((pi) => msgs(pi, 1)[0]).flatMap((p) => msgs(p, 1))[0];
    expect(str(body, 2)).toBe('body');
    expect(str(body, 3)).toBe('body');
    expect(body.get(4)).toEqual([1]);
    const schemaType = msgs(msgs(body, 5)[0], 22)[0];
    expect(str(schemaType, 1)).toBe('object');
    // the path-level namespace parameter: PathParameterSubSchema (NonBodyParameter field 4)
    const pathParams = msgs(item, 9).map((pi) => msgs(pi, 1)[0]).flatMap((p) => msgs(p, 2)).flatMap((nb) => msgs(nb, 4));
    expect(pathParams.map((p) => str(p, 4))).toEqual(['namespace']);
  });

  test('definitions: each kind and list, with its GVK, description and properties (kubectl explain)', () => {
    const defs = new Map(msgs(msgs(doc, 9)[0], 1).map((n) => [str(n, 1)!, msgs(n, 2)[0]]));
    expect([...defs.keys()]).toEqual(expect.arrayContaining(['io.k8s.api.core.v1.PersistentVolume', 'io.k8s.api.core.v1.PersistentVolumeClaimList', 'io.k8s.api.storage.v1.StorageClass']));
    const pv = defs.get('io.k8s.api.core.v1.PersistentVolume')!;
    expect(str(pv, 4)).toMatch(/^A piece of storage/);
    const gvk = msgs(pv, 31).find((e) => str(e, 1) === 'x-kubernetes-group-version-kind')!;
    expect(parse(str(msgs(gvk, 2)[0], 2)!)).toEqual([{ group: '', kind: 'PersistentVolume', version: 'v1' }]);
    const props = new Map(msgs(msgs(pv, 25)[0], 1).map((n) => [str(n, 1)!, msgs(n, 2)[0]]));
    expect([...props.keys()]).toEqual(['apiVersion', 'kind', 'metadata', 'spec', 'status']);
    const spec = new Map(msgs(msgs(props.get('spec')!, 25)[0], 1).map((n) => [str(n, 1)!, msgs(n, 2)[0]]));
    expect(str(msgs(spec.get('accessModes')!, 22)[0], 1)).toBe('array');
    const itemSchema = msgs(msgs(spec.get('accessModes')!, 23)[0], 1)[0];
    expect(str(msgs(itemSchema, 22)[0], 1)).toBe('string');
    // A list's items refer to the kind under #/definitions/.
    const list = defs.get('io.k8s.api.core.v1.PersistentVolumeList')!;
    const items = new Map(msgs(msgs(list, 25)[0], 1).map((n) => [str(n, 1)!, msgs(n, 2)[0]])).get('items')!;
    expect(str(msgs(msgs(items, 23)[0], 1)[0], 1)).toBe('#/definitions/io.k8s.api.core.v1.PersistentVolume');
  });
});
