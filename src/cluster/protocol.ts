import { Type as T, type Static, type TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';

/**
 * The agent channel (`/cluster` on `[cluster] agent_port`): JSON text frames with a `type`
 * discriminator. The first agent frame must be AUTH_REQUEST; its `protocolVersion` is checked
 * before its token. Every frame is validated against these schemas; a frame that fails is a
 * misbehaving agent and costs it the connection, never the controller anything more.
 *
 * The controller stays the one brain: it decides placement, READY (from the stdout lines),
 * stops and restarts. The agent provisions, launches, relays lines and reports what runs.
 */
export const PROTOCOL_VERSION = 1;

const Name = T.String({ minLength: 1, maxLength: 128 });
const Int = T.Integer({ minimum: 0 });
const Text = (max = 4096) => T.String({ maxLength: max });

/** A service process the agent holds, as it reports it at login and in every heartbeat. */
export const RunningServiceSchema = T.Object({
  serviceName: Name,
  groupName: Name,
  pid: Int,
  port: T.Integer({ minimum: 1, maximum: 65535 }),
  startedAt: T.Integer({ description: 'ms since the epoch' }),
  memoryUsedMb: T.Optional(Int),
});
export type RunningService = Static<typeof RunningServiceSchema>;

const msg = <K extends string, P extends Record<string, TSchema>>(type: K, props: P) => T.Object({ type: T.Literal(type), ...props });

export const AuthRequest = msg('AUTH_REQUEST', {
  protocolVersion: T.Integer(),
  /** The node's own secret (`svcn_…`), or the cluster token to enrol (an id not enrolled yet, or an agent from before enrolment). */
  token: Text(512),
  nodeName: T.String({ pattern: '^[a-zA-Z0-9_-]{1,64}$' }),
  agentVersion: Text(64),
  /** The agent's `Bun.version`; optional, so agents from before it was sent still log in. */
  bunVersion: T.Optional(Text(64)),
  /** How the agent isolates its services (uid+bwrap, uid, bwrap, none), for the controller's doctor; optional like bunVersion. */
  isolation: T.Optional(Text(64)),
  maxMemory: Int,
  maxServices: Int,
  currentServices: Int,
  os: Text(64),
  arch: Text(64),
  hostname: Text(255),
  osVersion: Text(128),
  cpuModel: Text(255),
  availableProcessors: Int,
  systemMemoryTotalMb: Int,
  publicHost: Text(255),
  runningServices: T.Array(RunningServiceSchema, { maxItems: 10_000 }),
});

export const HeartbeatResponse = msg('HEARTBEAT_RESPONSE', {
  timestamp: T.Integer(),
  cpuUsage: T.Number({ minimum: 0 }),
  memoryUsedMb: Int,
  memoryTotalMb: Int,
  services: T.Array(RunningServiceSchema, { maxItems: 10_000 }),
});

/** The outcome of a START_SERVICE, or a later exit of the process. */
export const ServiceStateChanged = msg('SERVICE_STATE_CHANGED', {
  serviceName: Name,
  state: T.Union([T.Literal('RUNNING'), T.Literal('EXITED'), T.Literal('FAILED')]),
  requestId: T.Optional(Text(64)),
  pid: T.Optional(Int),
  port: T.Optional(Int),
  startedAt: T.Optional(T.Integer()),
  exitCode: T.Optional(T.Union([T.Integer(), T.Null()])),
  reason: T.Optional(Text()),
});

export const ServiceStdout = msg('SERVICE_STDOUT', { serviceName: Name, lines: T.Array(Text(16_384), { maxItems: 1000 }) });
export const CommandResult = msg('COMMAND_RESULT', { requestId: Text(64), ok: T.Boolean(), message: Text() });
export const LogMessage = msg('LOG_MESSAGE', { level: T.Union([T.Literal('info'), T.Literal('warn'), T.Literal('error')]), message: Text() });

export const AgentMessageSchema = T.Union([AuthRequest, HeartbeatResponse, ServiceStateChanged, ServiceStdout, CommandResult, LogMessage]);
export type AgentMessage = Static<typeof AgentMessageSchema>;
export type AuthRequestMessage = Static<typeof AuthRequest>;
export type HeartbeatResponseMessage = Static<typeof HeartbeatResponse>;
export type ServiceStateChangedMessage = Static<typeof ServiceStateChanged>;

/** Everything the agent needs to provision and launch one instance (templates by hash). */
export const StartServiceSchema = msg('START_SERVICE', {
  requestId: Text(64),
  serviceName: Name,
  groupName: Name,
  isStatic: T.Boolean(),
  software: Text(32),
  version: Text(64),
  memory: Text(16),
  jvmArgs: T.Array(Text(1024)),
  jvmOptimize: T.Boolean(),
  jarName: Text(255),
  javaPath: Text(1024),
  startCommand: T.Array(Text(4096)),
  /** The stack in copy order, each with the hash the agent's cache must match. */
  templates: T.Array(T.Object({ name: Name, hash: Text(64) })),
  forwarding: T.Object({ mode: T.Union([T.Literal('legacy'), T.Literal('modern')]), secret: Text(512) }),
  /** A static instance with state sync: pull the canonical copy before launching. */
  pullState: T.Boolean(),
  /** With pullState: paths never synced (the group's `sync.excludes`). */
  syncExcludes: T.Array(Text(256)),
  env: T.Record(T.String(), Text()),
});
export type StartServiceMessage = Static<typeof StartServiceSchema>;

export const ControllerMessageSchema = T.Union([
  msg('AUTH_RESPONSE', {
    accepted: T.Boolean(),
    nodeId: Text(64),
    reason: Text(),
    protocolVersion: T.Integer(),
    heartbeatInterval: T.Integer(),
    /** The controller's svc version: an agent of another version updates itself to it (when `release` says where from). */
    controllerVersion: T.Optional(Text(64)),
    /** The controller's release feed and key (`[controller] update_check_url`, `update_public_key`); absent without a feed. */
    release: T.Optional(T.Object({ feedUrl: Text(2048), publicKey: Text(4096) })),
    /**
     * Accepted with the cluster token (an enrolment): this node's own secret, for every later
     * login and for the cluster routes. The agent keeps it (data/node.json) before anything else.
     */
    nodeSecret: T.Optional(T.String({ pattern: '^svcn_[A-Za-z0-9_-]{16,128}$' })),
    /** Refused: why, as a word an agent can act on (LoginRefusal in cluster/identity/login.ts). */
    refusal: T.Optional(Text(64)),
  }),
  StartServiceSchema,
  /** Graceful stop the agent carries out itself (orphans; the controller's own stops use SEND_COMMAND and SIGNAL_SERVICE). */
  msg('STOP_SERVICE', { serviceName: Name, timeoutSeconds: Int, stopCommand: Text(64) }),
  msg('SEND_COMMAND', { serviceName: Name, command: Text() }),
  msg('SIGNAL_SERVICE', { serviceName: Name, signal: T.Union([T.Literal('SIGTERM'), T.Literal('SIGKILL')]) }),
  msg('HEARTBEAT_REQUEST', { timestamp: T.Integer() }),
  msg('SHUTDOWN_AGENT', { reason: Text() }),
]);
export type ControllerMessage = Static<typeof ControllerMessageSchema>;

const agentCheck = TypeCompiler.Compile(AgentMessageSchema);
const controllerCheck = TypeCompiler.Compile(ControllerMessageSchema);

export type Parsed<M> = { ok: true; message: M } | { ok: false; reason: string };

/** Parses and validates one agent frame; never throws. */
export function parseAgentMessage(raw: string | Buffer): Parsed<AgentMessage> {
  return parseWith(raw, agentCheck);
}

/** Parses and validates one controller frame (the agent's side); never throws. */
export function parseControllerMessage(raw: string | Buffer): Parsed<ControllerMessage> {
  return parseWith(raw, controllerCheck);
}

function parseWith<M>(raw: string | Buffer, check: { Check(value: unknown): value is M; Errors(value: unknown): Iterable<{ path: string; message: string }> }): Parsed<M> {
  let value: unknown;
  try {
    value = JSON.parse(typeof raw === 'string' ? raw : raw.toString('utf8'));
  } catch {
    return { ok: false, reason: 'not JSON' };
  }
  if (check.Check(value)) return { ok: true, message: value };
  const type = typeof value === 'object' && value !== null && 'type' in value ? String((value as { type: unknown }).type).slice(0, 40) : '(no type)';
  const first = [...check.Errors(value)][0];
  return { ok: false, reason: `invalid ${type} frame${first ? `: ${first.path || '/'} ${first.message}` : ''}` };
}
