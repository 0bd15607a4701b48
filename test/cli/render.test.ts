import { describe, expect, test } from 'bun:test';
import { renderEvent, renderLine, stripControl } from '../../src/cli/render';
import type { OutputKind } from '../../src/core/commands/command';

const ESC = '\x1b';
const at = new Date('2024-05-01T12:00:01.500Z');

describe('stripControl', () => {
  test('removes whole escape sequences, not only the ESC byte', () => {
    expect(stripControl(`${ESC}[31mred${ESC}[0m ${ESC}[2J${ESC}[Hcleared ${ESC}[?25lhidden`)).toBe('red cleared hidden');
    expect(stripControl(`${ESC}]0;new title${ESC}\\title ${ESC}]8;;http://x\x07link`)).toBe('title link');
    expect(stripControl(`${ESC}7saved${ESC}8 ${ESC}c`)).toBe('saved ');
  });

  test('removes C0 controls but tab, DEL and C1 controls', () => {
    expect(stripControl('a\rb\nc\x07d\x08e\x00f\tg\x7fh\x9b2Ji')).toBe('abcdef\tgh2Ji');
  });

  test('leaves ordinary text, including non-ASCII, alone', () => {
    expect(stripControl('Lobby-1 ✓ größe 日本 [x] =1')).toBe('Lobby-1 ✓ größe 日本 [x] =1');
  });
});

describe('renderLine', () => {
  const plain: Record<OutputKind, string> = {
    header: 'Services',
    info: 'two running',
    success: '✓ started',
    error: '✗ failed',
    item: '  • lobby-1',
    text: 'raw',
  };
  const texts: Record<OutputKind, string> = { header: 'Services', info: 'two running', success: 'started', error: 'failed', item: 'lobby-1', text: 'raw' };

  test('plain: the prefixes and no escape at all', () => {
    for (const [kind, text] of Object.entries(texts) as [OutputKind, string][]) {
      const out = renderLine({ kind, text }, false);
      expect(out).toBe(plain[kind]);
      expect(out).not.toContain(ESC);
    }
  });

  test('coloured: each kind in its colour, reset at the end', () => {
    expect(renderLine({ kind: 'header', text: 'Services' }, true)).toBe(`${ESC}[1;36mServices${ESC}[0m`);
    expect(renderLine({ kind: 'info', text: 'two running' }, true)).toBe(`${ESC}[94mtwo running${ESC}[0m`);
    expect(renderLine({ kind: 'success', text: 'started' }, true)).toBe(`${ESC}[32m✓ started${ESC}[0m`);
    expect(renderLine({ kind: 'error', text: 'failed' }, true)).toBe(`${ESC}[31m✗ failed${ESC}[0m`);
    expect(renderLine({ kind: 'item', text: 'lobby-1' }, true)).toBe('  • lobby-1');
    expect(renderLine({ kind: 'text', text: 'raw' }, true)).toBe('raw');
  });

  test('strips control characters from the text, coloured or not', () => {
    const line = { kind: 'error' as const, text: `bad${ESC}[2J\r\nthing` };
    expect(renderLine(line, false)).toBe('✗ badthing');
    expect(renderLine(line, true)).toBe(`${ESC}[31m✗ badthing${ESC}[0m`);
  });
});

describe('renderEvent', () => {
  const event = { type: 'SERVICE_READY', data: { service: 'lobby-1', group: 'lobby' } };

  test('plain: UTC time, type, key=value pairs', () => {
    expect(renderEvent(event, false, at)).toBe('12:00:01 SERVICE_READY service=lobby-1 group=lobby');
  });

  test('coloured: dim time, coloured type', () => {
    expect(renderEvent(event, true, at)).toBe(`${ESC}[90m12:00:01${ESC}[0m ${ESC}[35mSERVICE_READY${ESC}[0m service=lobby-1 group=lobby`);
  });

  test('quotes values with spaces or none; strips control characters everywhere', () => {
    const hostile = { type: `X${ESC}[2J`, data: { reason: 'too many\rplayers', note: '', [`k${ESC}[1m`]: `v${ESC}]0;t\x07` } };
    expect(renderEvent(hostile, false, at)).toBe('12:00:01 X reason="too manyplayers" note="" k=v');
  });

  test('an event without data is the time and the type', () => {
    expect(renderEvent({ type: 'CONTROLLER_READY', data: {} }, false, at)).toBe('12:00:01 CONTROLLER_READY');
  });
});
