import { Type, type Static } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { OUTPUT_KINDS, type OutputLine } from '../core/commands/command';
import { specOf } from '../events/catalogue';

/**
 * The frames of `/api/console/stream`, both ways. The controller validates every inbound
 * frame against these schemas; `svc cli` builds its frames from the same types.
 *
 * An output frame carries its line twice, in the two shapes clients read:
 *   {"type":"output","id":"1","kind":"header","text":"svc: online","line":{"type":"header","text":"svc: online"}}
 * `kind` and `text` are the spec's (controller-api.md, multiplex outbound frames); `line` is what
 * the existing dashboard (console/page.tsx: `msg.line.text`) and `svc cli` read. `outputFrame`
 * builds it; nothing else makes one.
 */
const Id = Type.String({ minLength: 1, maxLength: 64 });
const ServiceName = Type.String({ minLength: 1, maxLength: 128 });

export const InboundFrameSchema = Type.Union([
  Type.Object({ type: Type.Literal('hello'), text: Type.String({ maxLength: 4096, description: 'JSON: {username, hostname, os}' }) }),
  Type.Object({ type: Type.Literal('execute'), id: Id, input: Type.String({ maxLength: 16_384 }) }),
  Type.Object({ type: Type.Literal('complete'), id: Id, input: Type.String({ maxLength: 16_384 }) }),
  Type.Object({ type: Type.Literal('screen_attach'), service: ServiceName }),
  Type.Object({ type: Type.Literal('screen_input'), service: ServiceName, text: Type.String({ maxLength: 16_384 }) }),
  Type.Object({ type: Type.Literal('screen_detach') }),
]);
export type InboundFrame = Static<typeof InboundFrameSchema>;
export const inboundFrame = TypeCompiler.Compile(InboundFrameSchema);

const Kind = Type.Union(OUTPUT_KINDS.map((k) => Type.Literal(k)));

export const OutboundFrameSchema = Type.Union([
  Type.Object({
    type: Type.Literal('output'),
    id: Type.String(),
    kind: Kind,
    text: Type.String({ description: 'one line a command printed' }),
    line: Type.Object({ type: Kind, text: Type.String() }, { description: 'the same line, in the shape the existing dashboard and svc cli read' }),
  }),
  Type.Object({ type: Type.Literal('output_end'), id: Type.String(), success: Type.Boolean({ description: 'svc: whether the command succeeded' }) }),
  Type.Object({ type: Type.Literal('completions'), id: Type.String(), candidates: Type.Array(Type.String()) }),
  Type.Object({ type: Type.Literal('event'), event: Type.Object({ type: Type.String(), data: Type.Record(Type.String(), Type.String()) }) }),
  Type.Object({ type: Type.Literal('screen_attached'), text: Type.String() }),
  Type.Object({ type: Type.Literal('screen_line'), text: Type.String() }),
  Type.Object({ type: Type.Literal('screen_detached'), text: Type.Optional(Type.String({ description: 'svc: why, when the controller ended it' })) }),
  Type.Object({ type: Type.Literal('screen_error'), text: Type.String() }),
]);
export type OutboundFrame = Static<typeof OutboundFrameSchema>;
export const outboundFrame = TypeCompiler.Compile(OutboundFrameSchema);
export type OutputFrame = Extract<OutboundFrame, { type: 'output' }>;

/** The output frame of one line command `id` printed, in both shapes (see above). Pure. */
export function outputFrame(id: string, { kind, text }: OutputLine): OutputFrame {
  return { type: 'output', id, kind, text, line: { type: kind, text } };
}

const TOO_FREQUENT: ReadonlySet<string> = new Set(['NODE_HEARTBEAT', 'STRESS_TEST_UPDATED']);

/**
 * Events kept off consoles: the too frequent ones (the spec keeps them off this channel), and
 * those meant only for the proxy (a module's event declared with audience `proxy`: the
 * magic-link delivery carries a live login link).
 */
export const EVENTS_NOT_FORWARDED: Pick<ReadonlySet<string>, 'has'> = {
  has: (type) => TOO_FREQUENT.has(type) || specOf(type)?.audience === 'proxy',
};
