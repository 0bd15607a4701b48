import type { AnyElysia } from 'elysia';
import type { EventBus } from '../events/bus';
import type { SvcEvent } from '../events/catalogue';

/** The parts of Bun's server the fan-out uses. */
interface Publisher {
  publish(topic: string, data: string): number;
  subscriberCount(topic: string): number;
}

/**
 * Hands every bus event to the sockets subscribed to `topic`: one bus listener and one
 * serialisation per event whatever the number of sockets, and none while nobody listens.
 * `frameOf` returns null for events the topic does not carry.
 */
export function publishEventsTo(app: AnyElysia, bus: EventBus, topic: string, frameOf: (event: SvcEvent) => string | null): { subscribers(): number } {
  const server = () => app.server as Publisher | null;
  bus.subscribe((event) => {
    const target = server();
    if (!target || target.subscriberCount(topic) === 0) return;
    const frame = frameOf(event);
    if (frame !== null) target.publish(topic, frame);
  });
  return { subscribers: () => server()?.subscriberCount(topic) ?? 0 };
}
