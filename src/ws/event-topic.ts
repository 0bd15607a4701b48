import type { EventBus } from '../events/bus';
import type { SvcEvent } from '../events/catalogue';
import type { Publisher } from './socket-hub';


/**
 * Hands every bus event to the sockets subscribed to `topic`: one bus listener and one
 * serialisation per event whatever the number of sockets, and none while nobody listens.
 * `frameOf` returns null for events the topic does not carry.
 */
export function publishEventsTo(server: () => Publisher | null, bus: EventBus, topic: string, frameOf: (event: SvcEvent) => string | null): { subscribers(): number } {
  bus.subscribe((event) => {
    const target = server();
    if (!target || target.subscriberCount(topic) === 0) return;
    const frame = frameOf(event);
    if (frame !== null) target.publish(topic, frame);
  });
  return { subscribers: () => server()?.subscriberCount(topic) ?? 0 };
}
