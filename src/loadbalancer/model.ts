import { Type, type Static } from '@sinclair/typebox';
import type { Config } from '../config/schema';

/** The `[loadbalancer]` section as loaded (the schema is the type). */
export type LoadBalancerConfig = Config['loadbalancer'];

export type Strategy = LoadBalancerConfig['strategy'];

/** Lowercase, as LOAD_BALANCER_BACKEND_HEALTH_CHANGED and GET /api/loadbalancer carry it. */
export type Health = 'healthy' | 'unhealthy';

/**
 * One proxy the load balancer may send players to. In the controller these are the READY
 * proxy services; `playerCount` is what the registry knows of them.
 */
export interface Backend {
  name: string;
  host: string;
  port: number;
  playerCount: number;
}

/** Identity of a backend for health and connection bookkeeping: where it is, not what it is called. */
export function backendKey(backend: Pick<Backend, 'host' | 'port'>): string {
  return `${backend.host}:${backend.port}`;
}

const Count = (description: string) => Type.Integer({ minimum: 0, description });

export const LoadBalancerBackendSchema = Type.Object({
  name: Type.String({ description: 'the proxy service' }),
  host: Type.String(),
  port: Type.Integer({ minimum: 1, maximum: 65535 }),
  playerCount: Count('players the registry counts on this proxy'),
  health: Type.Union([Type.Literal('healthy'), Type.Literal('unhealthy')]),
  connectionCount: Count('load-balancer connections to this proxy now'),
});

/** GET /api/loadbalancer. */
export const LoadBalancerStatusSchema = Type.Object({
  enabled: Type.Literal(true),
  bind: Type.String(),
  port: Type.Integer({ minimum: 0, maximum: 65535, description: 'the bound port' }),
  strategy: Type.Union([Type.Literal('least-players'), Type.Literal('round-robin')]),
  proxyProtocol: Type.Boolean({ description: 'whether a PROXY protocol v2 header precedes the client bytes' }),
  totalConnections: Count('client connections accepted since the load balancer started'),
  activeConnections: Count('client connections open now'),
  rejectedConnections: Count('client connections refused at max_connections since start'),
  backends: Type.Array(LoadBalancerBackendSchema, { description: 'the READY proxies, healthy or not' }),
});

export type LoadBalancerStatus = Static<typeof LoadBalancerStatusSchema>;
export type LoadBalancerBackendStatus = Static<typeof LoadBalancerBackendSchema>;
