// Recording an Event about an object, for every controller: through the controller's own
// recorder (its source.component, and the transactions it writes in).
import type { KubeObject } from '../../resources/types';
import type { EventRecorder, EventType } from '../../services/event-recorder';

export function event(d: { events: EventRecorder }, obj: KubeObject, type: EventType, reason: string, message: string): Promise<void> {
  return d.events.record(obj, type, reason, message);
}
