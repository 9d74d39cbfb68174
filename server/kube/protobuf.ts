// A small protobuf encoder for the parts of the gnostic OpenAPI v2 `Document` message
// (github.com/google/gnostic-models openapiv2/OpenAPIv2.proto) that our document uses:
// kubectl fetches /openapi/v2 as `application/com.github.proto-openapi.spec.v2@v1.0+protobuf`
// and decodes it with that schema. Field numbers below are those of the .proto file.
import { stringify } from 'yaml';
import { Writer } from './protobuf-wire';

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Any { yaml = 2 }: gnostic keeps extension values as YAML text. */
function any(value: unknown): Buffer {
  return new Writer().string(2, stringify(value)).done();
}

/** NamedAny { name = 1; value = 2 } for each `x-` key. */
function vendorExtensions(w: Writer, field: number, o: Obj): void {
  for (const [k, v] of Object.entries(o)) {
    if (k.startsWith('x-')) w.message(field, new Writer().string(1, k).message(2, any(v)).done());
  }
}

/**
 * Schema: _ref 1, description 4, required 19, additional_properties 21 (AdditionalPropertiesItem
 * {schema = 1}), type 22 (TypeItem {value = 1}), items 23 (ItemsItem {schema = 1}),
 * properties 25 (Properties {additional_properties = 1: NamedSchema {name = 1, value = 2}}),
 * vendor_extension 31.
 */
function schema(s: unknown): Buffer | undefined {
  if (!isObj(s)) return undefined;
  const w = new Writer().string(1, s.$ref).string(4, s.description).strings(19, s.required);
  if (isObj(s.additionalProperties)) w.message(21, new Writer().message(1, schema(s.additionalProperties)).done());
  if (s.type !== undefined) w.message(22, new Writer().strings(1, Array.isArray(s.type) ? s.type : [s.type]).done());
  if (isObj(s.items)) w.message(23, new Writer().message(1, schema(s.items)).done());
  if (isObj(s.properties)) {
    const props = new Writer();
    for (const [name, child] of Object.entries(s.properties)) props.message(1, new Writer().string(1, name).message(2, schema(child) ?? Buffer.alloc(0)).done());
    w.message(25, props.done());
  }
  vendorExtensions(w, 31, s);
  return w.done();
}

/** Parameter: BodyParameter = 1 or NonBodyParameter = 2 (query = 3, path = 4 inside). */
function parameter(p: Obj): Buffer {
  if (p.in === 'body') {
    const b = new Writer().string(1, p.description).string(2, p.name).string(3, p.in).bool(4, p.required).message(5, schema(p.schema));
    return new Writer().message(1, b.done()).done();
  }
  let sub: Buffer;
  let which: number;
  if (p.in === 'path') {
    // PathParameterSubSchema: required 1, in 2, description 3, name 4, type 5, unique_items 19
    sub = new Writer().bool(1, p.required).string(2, p.in).string(3, p.description).string(4, p.name).string(5, p.type).bool(19, p.uniqueItems).done();
    which = 4;
  } else {
    // QueryParameterSubSchema: required 1, in 2, description 3, name 4, type 6, unique_items 20
    sub = new Writer().bool(1, p.required).string(2, p.in).string(3, p.description).string(4, p.name).string(6, p.type).bool(20, p.uniqueItems).done();
    which = 3;
  }
  const nonBody = new Writer().message(which, sub).done();
  return new Writer().message(2, nonBody).done();
}

/** ParametersItem { parameter = 1 }. */
function parametersItem(p: unknown): Buffer {
  return new Writer().message(1, parameter(p as Obj)).done();
}

/** Responses { response_code = 1 (NamedResponseValue { name, value: ResponseValue { response = 1 } }) }. */
function responses(r: unknown): Buffer | undefined {
  if (!isObj(r)) return undefined;
  const w = new Writer();
  for (const [code, resp] of Object.entries(r)) {
    const rr = resp as Obj;
    const response = new Writer().string(1, rr.description).message(2, rr.schema ? new Writer().message(1, schema(rr.schema)).done() : undefined).done();
    const value = new Writer().message(1, response).done();
    w.message(1, new Writer().string(1, code).message(2, value).done());
  }
  return w.done();
}

function operation(op: unknown): Buffer | undefined {
  if (!isObj(op)) return undefined;
  // Operation: tags 1, summary 2, description 3, operation_id 5, produces 6, consumes 7,
  // parameters 8, responses 9, schemes 10, deprecated 11, vendor_extension 13
  const w = new Writer()
    .strings(1, op.tags)
    .string(2, op.summary)
    .string(3, op.description)
    .string(5, op.operationId)
    .strings(6, op.produces)
    .strings(7, op.consumes);
  for (const p of (op.parameters as unknown[]) ?? []) w.message(8, parametersItem(p));
  w.message(9, responses(op.responses)).strings(10, op.schemes).bool(11, op.deprecated);
  vendorExtensions(w, 13, op);
  return w.done();
}

function pathItem(item: Obj): Buffer {
  // PathItem: get 2, put 3, post 4, delete 5, options 6, head 7, patch 8, parameters 9
  const w = new Writer()
    .message(2, operation(item.get))
    .message(3, operation(item.put))
    .message(4, operation(item.post))
    .message(5, operation(item.delete))
    .message(6, operation(item.options))
    .message(7, operation(item.head))
    .message(8, operation(item.patch));
  for (const p of (item.parameters as unknown[]) ?? []) w.message(9, parametersItem(p));
  vendorExtensions(w, 10, item);
  return w.done();
}

/** Encodes a Swagger 2.0 document (as JSON) into the gnostic openapi_v2.Document message. */
export function encodeOpenApiV2(doc: Obj): Buffer {
  const info = isObj(doc.info) ? new Writer().string(1, doc.info.title).string(2, doc.info.version).string(3, doc.info.description).done() : undefined;
  const paths = new Writer();
  for (const [name, item] of Object.entries((doc.paths as Obj) ?? {})) {
    paths.message(2, new Writer().string(1, name).message(2, pathItem(item as Obj)).done());
  }
  const definitions = new Writer();
  for (const [name, s] of Object.entries((doc.definitions as Obj) ?? {})) {
    definitions.message(1, new Writer().string(1, name).message(2, schema(s)).done());
  }
  const w = new Writer()
    .string(1, doc.swagger)
    .message(2, info)
    .string(3, doc.host)
    .string(4, doc.basePath)
    .strings(5, doc.schemes)
    .strings(6, doc.consumes)
    .strings(7, doc.produces)
    .message(8, paths.done())
    .message(9, definitions.done());
  vendorExtensions(w, 16, doc);
  return w.done();
}
