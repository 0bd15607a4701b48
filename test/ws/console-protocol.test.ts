/**
 * The output frame of /api/console/stream, built by the pure `outputFrame`: the spec's flat
 * `kind`/`text` and the existing dashboard's `line:{type, text}` in one frame, so a client
 * written from either reads every line (../shared/CLIENT-CONTRACT.md, /api/console/stream).
 * The socket end to end is test/ws/console-stream.test.ts.
 */
import { describe, expect, test } from 'bun:test';
import { OUTPUT_KINDS, type OutputLine } from '../../src/core/commands/command';
import { outboundFrame, outputFrame } from '../../src/ws/console-protocol';

/** What the dashboard's console/page.tsx does with a frame: prints msg.line.text of output frames. */
function dashboardReads(raw: string): string | null {
  const msg = JSON.parse(raw) as { type?: string; line?: { text?: string } };
  return msg.type === 'output' && msg.line ? (msg.line.text ?? null) : null;
}

/** What a client written from controller-api.md reads: kind and text of output frames. */
function specClientReads(raw: string): OutputLine | null {
  const msg = JSON.parse(raw) as { type?: string; kind?: OutputLine['kind']; text?: string };
  return msg.type === 'output' && msg.kind !== undefined && msg.text !== undefined ? { kind: msg.kind, text: msg.text } : null;
}

describe('outputFrame', () => {
  test('carries both shapes, in this order on the wire', () => {
    expect(JSON.stringify(outputFrame('7', { kind: 'header', text: 'svc: online' }))).toBe(
      '{"type":"output","id":"7","kind":"header","text":"svc: online","line":{"type":"header","text":"svc: online"}}',
    );
  });

  test.each([...OUTPUT_KINDS])('a %s line is a valid frame both kinds of client read', (kind) => {
    const printed: OutputLine = { kind, text: `a ${kind} line: ünïcode, "quotes", \\ and \t` };
    const frame = outputFrame('cmd-1', printed);
    expect(outboundFrame.Check(frame)).toBe(true);
    const raw = JSON.stringify(frame);
    expect(dashboardReads(raw)).toBe(printed.text);
    expect(specClientReads(raw)).toEqual(printed);
    expect(frame.line).toEqual({ type: frame.kind, text: frame.text });
  });

  test('copies only kind and text from the printed line', () => {
    const printed = { kind: 'info', text: 'x', extra: 'not for the wire' } as OutputLine;
    expect(Object.keys(outputFrame('1', printed)).sort()).toEqual(['id', 'kind', 'line', 'text', 'type']);
  });

  test('the schema refuses an output frame missing either shape', () => {
    expect(outboundFrame.Check({ type: 'output', id: '1', line: { type: 'info', text: 'x' } })).toBe(false);
    expect(outboundFrame.Check({ type: 'output', id: '1', kind: 'info', text: 'x' })).toBe(false);
    expect(outboundFrame.Check({ type: 'output', id: '1', kind: 'sparkle', text: 'x', line: { type: 'sparkle', text: 'x' } })).toBe(false);
  });
});
