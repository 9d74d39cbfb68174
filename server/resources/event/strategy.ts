// The Event strategy (core/v1): shape, the legacy core/v1 validation
// (pkg/apis/core/validation/events.go), field selectors
// (pkg/registry/core/event/strategy.go) and the table kubectl prints.
import type { FieldError } from '../../domain/errors';
import { ageOf } from '../../domain/duration';
import { isQualifiedName } from '../../domain/names';
import { column, noColumns } from '../columns';
import { invalid, notSupported, required } from '../field-errors';
import {
  keepSystemMetadata,
  shapeErrors,
  stripNulls,
  validateObjectMeta,
  validateObjectMetaUpdate,
  validateTypeMeta,
} from '../metadata';
import type { Strategy } from '../types';
import { eventSchema, type Event } from './schema';

export const eventTypes = ['Normal', 'Warning'] as const;

const limits = { reportingInstance: 128, action: 128, reason: 128, message: 1024 } as const;

function validateEvent(ev: Event): FieldError[] {
  const errs = [
    ...validateTypeMeta(ev, 'v1', 'Event'),
    ...validateObjectMeta(ev.metadata, { namespaced: true, name: 'dns-subdomain' }),
  ];
  const namespace = ev.metadata?.namespace ?? '';
  const involved = ev.involvedObject;
  if (!involved) errs.push(required('involvedObject'));
  const involvedNamespace: string = involved?.namespace ?? '';
  const mismatch = () => invalid('involvedObject.namespace', involvedNamespace, 'does not match event.namespace');

  if (!ev.eventTime) {
    // Events about cluster-scoped objects live in "default".
    if (involvedNamespace ? involvedNamespace !== namespace : namespace !== '' && namespace !== 'default') errs.push(mismatch());
  } else {
    // Events written through the newer API carry who reported them and what they did.
    if (!involvedNamespace && namespace !== 'default' && namespace !== 'kube-system') errs.push(mismatch());
    const component: string = ev.reportingComponent ?? '';
    if (!component) errs.push(required('reportingComponent'));
    for (const msg of isQualifiedName(component)) errs.push(invalid('reportingComponent', component, msg));
    for (const field of ['reportingInstance', 'action', 'reason'] as const) {
      const value: string = ev[field] ?? '';
      if (!value) errs.push(required(field));
      if (value.length > limits[field]) errs.push(invalid(field, '', `can have at most ${limits[field]} characters`));
    }
    if ((ev.message ?? '').length > limits.message) {
      errs.push(invalid('message', '', `can have at most ${limits.message} characters`));
    }
  }
  if (ev.type && !(eventTypes as readonly string[]).includes(ev.type)) errs.push(notSupported('type', ev.type, eventTypes));
  return errs;
}

/** `component, host` (falling back to the reporting fields), host left out when empty. */
function eventSource(ev: Event): string {
  const component = ev.source?.component || ev.reportingComponent || '';
  const host = ev.source?.host || ev.reportingInstance || '';
  return host ? `${component}, ${host}` : component;
}

export const eventStrategy: Strategy<Event> = {
  kind: 'Event',
  group: '',
  version: 'v1',
  apiVersion: 'v1',
  plural: 'events',
  singular: 'event',
  shortNames: ['ev'],
  namespaced: true,
  hasStatus: false,
  fieldSelectors: {
    'involvedObject.kind': (ev) => ev.involvedObject?.kind ?? '',
    'involvedObject.namespace': (ev) => ev.involvedObject?.namespace ?? '',
    'involvedObject.name': (ev) => ev.involvedObject?.name ?? '',
    'involvedObject.uid': (ev) => ev.involvedObject?.uid ?? '',
    'involvedObject.apiVersion': (ev) => ev.involvedObject?.apiVersion ?? '',
    'involvedObject.resourceVersion': (ev) => ev.involvedObject?.resourceVersion ?? '',
    'involvedObject.fieldPath': (ev) => ev.involvedObject?.fieldPath ?? '',
    reason: (ev) => ev.reason ?? '',
    reportingComponent: (ev) => ev.reportingComponent ?? '',
    source: (ev) => ev.source?.component || ev.reportingComponent || '',
    type: (ev) => ev.type ?? '',
  },

  validateShape: (obj) => shapeErrors(eventSchema, obj),
  schema: eventSchema,

  applyDefaults(ev) {
    stripNulls(ev);
  },

  prepareForCreate() {},

  prepareForUpdate(next, prev) {
    keepSystemMetadata(next, prev);
  },

  // No status subresource.
  prepareForStatusUpdate(next, prev) {
    keepSystemMetadata(next, prev);
  },

  validate: validateEvent,
  validateUpdate: (next, prev) => validateObjectMetaUpdate(next.metadata, prev.metadata),

  columns: () => noColumns(),

  table: {
    columns: [
      column('Last Seen', 'The time at which the most recent occurrence of this event was recorded.'),
      column('Type', 'Type of this event (Normal, Warning), new types could be added in the future'),
      column('Reason', "This should be a short, machine understandable string that gives the reason for the transition into the object's current status."),
      column('Object', 'The object that this event is about.'),
      column('Subobject', 'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement.', 1),
      column('Source', 'The component reporting this event. Should be a short machine understandable string.', 1),
      column('Message', 'A human-readable description of the status of this operation.'),
      column('First Seen', 'The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)', 1),
      column('Count', 'The number of times this event has occurred.', 1),
      { ...column('Name', 'Name must be unique within a namespace.', 1), format: 'name' },
    ],
    row(ev, now) {
      const first = ev.firstTimestamp ? ageOf(ev.firstTimestamp, now) : ageOf(ev.eventTime, now);
      let last = ev.lastTimestamp ? ageOf(ev.lastTimestamp, now) : first;
      let count: number = ev.count ?? 0;
      if (ev.series) {
        last = ageOf(ev.series.lastObservedTime, now);
        count = ev.series.count ?? 0;
      } else if (count === 0) {
        count = 1;
      }
      const kind = String(ev.involvedObject?.kind ?? '').toLowerCase();
      const name = ev.involvedObject?.name;
      return [
        last,
        ev.type ?? '',
        ev.reason ?? '',
        name ? `${kind}/${name}` : kind,
        ev.involvedObject?.fieldPath ?? '',
        eventSource(ev),
        String(ev.message ?? '').trim(),
        first,
        count,
        ev.metadata?.name ?? '',
      ];
    },
  },
};
