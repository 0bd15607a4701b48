import { describe, expect, test } from 'bun:test';
import { AGENT_LOG_MAX_CHARS, AgentLogThrottle, cleanAgentText } from '../../src/cluster/agent-log';

describe('agent log text', () => {
  test.each([
    ['plain text stays', 'template cache pruned', 'template cache pruned'],
    ['a forged second line becomes one line', 'ok\n12:00:00 INFO  [auth] admin logged in', 'ok 12:00:00 INFO  [auth] admin logged in'],
    ['colours and cursor moves go', '\x1b[31mred\x1b[0m \x1b[2J\x1b[Hcleared', 'red cleared'],
    ['a window title (OSC) goes', 'a\x1b]0;pwned\x07b', 'ab'],
    ['an unterminated OSC takes the rest with it', 'a\x1b]8;;http://x', 'a'],
    ['C1 CSI and other controls go', 'a\x9b2Jb\x00c\x07d\x7fe\x85f', 'abcde f'],
    ['bidirectional overrides go', 'file\u202Etxt.exe', 'filetxt.exe'],
    ['carriage returns cannot overwrite the start of a line', 'real\rfake', 'real fake'],
  ])('%s', (_what, input, expected) => {
    expect(cleanAgentText(input)).toBe(expected);
  });

  test('long text is cut, saying how much', () => {
    const out = cleanAgentText('x'.repeat(AGENT_LOG_MAX_CHARS + 500));
    expect(out.startsWith('x'.repeat(AGENT_LOG_MAX_CHARS))).toBe(true);
    expect(out).toContain('500 more characters dropped');
  });
});

describe('agent log throttle', () => {
  test('a burst, then the rate; the dropped count is told with the next line; per node', () => {
    let now = 0;
    const throttle = new AgentLogThrottle(3, 1, () => now);
    expect([1, 2, 3].map(() => throttle.take('a').allowed)).toEqual([true, true, true]);
    expect(throttle.take('a')).toEqual({ allowed: false, dropped: 0 });
    expect(throttle.take('a').allowed).toBe(false);
    expect(throttle.take('b').allowed).toBe(true);
    now = 1000;
    expect(throttle.take('a')).toEqual({ allowed: true, dropped: 2 });
    expect(throttle.take('a').allowed).toBe(false);
    throttle.forget('a');
    expect(throttle.take('a')).toEqual({ allowed: true, dropped: 0 });
  });
});
