// The machinery of the protobuf tables (protobuf-schema.ts): what a field is, and the
// builders the tables per API group are written with.
//
// `keep` marks the fields whose zero value ("", 0, false; null for a time; [] for a List's
// items) is data: Go pointers, fields without `omitempty`, and non-pointer times (null in
// JSON when zero). Other fields' zero values are what Go leaves out of JSON, so the
// decoder drops them (as upstream's JSON does) and the encoder refuses to send them.
// Fields a table does not list cannot be sent as protobuf: such an object is answered as
// JSON when the client accepts it (protobuf-codec.ts, Unrepresentable).

export type FieldType =
  | 'string'
  | 'bool'
  | 'int32'
  | 'int64'
  | 'strings'
  /** meta/v1 Time {seconds = 1, nanos = 2}, RFC 3339 to the second in JSON. */
  | 'time'
  /** meta/v1 MicroTime, RFC 3339 with microseconds in JSON. */
  | 'microTime'
  /** api/resource Quantity {string = 1}. */
  | 'quantity'
  /** meta/v1 FieldsV1 {Raw = 1}: the JSON text of the field set. */
  | 'fieldsV1'
  /** util/intstr IntOrString {type = 1 (0 int, 1 string), intVal = 2, strVal = 3}: a number or a string in JSON. */
  | 'intOrString'
  | 'message'
  | 'messages'
  | 'map'
  /** An embedded struct whose fields sit in the parent's JSON object (`json:",inline"`). */
  | 'inline';

export interface Field {
  no: number;
  /** The JSON name ('' for an inline message). */
  name: string;
  type: FieldType;
  schema?: Schema;
  /** Map values. */
  values?: 'string' | 'bytes' | 'quantity';
  keep?: boolean;
}

export type Schema = readonly Field[];

export const f = (type: FieldType) => (no: number, name: string, keep = false): Field => ({ no, name, type, keep });
export const str = f('string');
export const bool = f('bool');
export const int32 = f('int32');
export const int64 = f('int64');
export const strs = f('strings');
export const time = f('time');
export const microTime = f('microTime');
export const msg = (no: number, name: string, schema: Schema): Field => ({ no, name, type: 'message', schema });
export const msgs = (no: number, name: string, schema: Schema): Field => ({ no, name, type: 'messages', schema });
export const inline = (no: number, schema: Schema): Field => ({ no, name: '', type: 'inline', schema });
export const map = (no: number, name: string, values: Field['values'] = 'string'): Field => ({ no, name, type: 'map', values });

/** api/resource Quantity values by key (a ResourceList). */
export const quantities = (no: number, name: string): Field => map(no, name, 'quantity');
export const intOrString = f('intOrString');
