import type { Logger } from '../log';
import { specOf, type Actor, type EventData, type EventType, type SvcEvent } from './catalogue';

export type EventListener = (event: SvcEvent) => void;

/**
 * Typed publish/subscribe. Delivery is synchronous and in publish order; a listener that
 * throws is logged and never stops delivery to the others.
 */
export class EventBus {
  private readonly listeners = new Set<EventListener>();

  constructor(private readonly log?: Logger) {}

  publish<T extends EventType>(type: T, data: EventData<T>, actor: Actor = 'system'): SvcEvent {
    const event: SvcEvent = { type, timestamp: new Date().toISOString(), data: flatten(type, data), actor };
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        this.log?.error({ err: error, event: type }, 'event listener failed');
      }
    }
    return event;
  }

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get listenerCount(): number {
    return this.listeners.size;
  }
}

function flatten(type: EventType, data: Record<string, unknown>): Record<string, string> {
  const spec = specOf(type);
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(data)) {
    if (value === undefined || value === null) continue;
    if (spec && !spec.openKeys && !(key in spec.keys)) continue;
    out[key] = typeof value === 'string' ? value : String(value);
  }
  // A module event carries its module's id on the wire (the unwrapped module-event envelope).
  if (spec?.module) out.moduleId ??= spec.module;
  return out;
}
