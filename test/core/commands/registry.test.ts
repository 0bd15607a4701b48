import { describe, expect, test } from 'bun:test';
import { CommandFailure, type Command, type OutputLine } from '../../../src/core/commands/command';
import { Confirmations } from '../../../src/core/commands/confirmations';
import { CommandRegistry } from '../../../src/core/commands/registry';
import { splitForCompletion, tokenize } from '../../../src/core/commands/tokenize';

const source = { services: () => ['lobby-1', 'lobby-2', 'game-1'], groups: () => ['lobby', 'game'], players: () => ['Alice', 'Bob'] };

function command(partial: Partial<Command> & Pick<Command, 'name'>): Command {
  return { description: partial.name, usage: partial.name, permission: `svc.command.${partial.name}`, level: 'service', run: () => undefined, ...partial };
}

function registry(...commands: Command[]): CommandRegistry {
  const r = new CommandRegistry(source);
  for (const c of commands) r.register(c);
  return r;
}

describe('tokenize', () => {
  test.each([
    ['start lobby 2', ['start', 'lobby', '2']],
    ['  spaced   out  ', ['spaced', 'out']],
    ['broadcast "hello world" now', ['broadcast', 'hello world', 'now']],
    ["say 'it''s'", ['say', 'its']],
    ['say "a \\"quoted\\" word"', ['say', 'a "quoted" word']],
    ['escaped\\ space', ['escaped space']],
    ['say "unclosed quote', ['say', 'unclosed quote']],
    ['empty "" word', ['empty', '', 'word']],
    ['', []],
  ])('%j → %j', (line, words) => {
    expect(tokenize(line)).toEqual(words);
  });

  test.each([
    ['sta', 3, { done: [], partial: 'sta' }],
    ['start ', 6, { done: ['start'], partial: '' }],
    ['start lob', 9, { done: ['start'], partial: 'lob' }],
    ['start lobby 2', 3, { done: [], partial: 'sta' }],
    ['x', 99, { done: [], partial: 'x' }],
  ])('completion split of %j at %d', (buffer, cursor, expected) => {
    expect(splitForCompletion(buffer, cursor)).toEqual(expected);
  });
});

describe('CommandRegistry', () => {
  test('finds by name or alias, case-insensitive; refuses clashes and bad names', () => {
    const list = command({ name: 'list', aliases: ['ls'] });
    const r = registry(list, command({ name: 'status' }));
    expect(r.find('LS')).toBe(list);
    expect(r.find('List')).toBe(list);
    expect(r.find('nope')).toBeUndefined();
    expect(r.all().map((c) => c.name)).toEqual(['list', 'status']);
    expect(() => r.register(command({ name: 'ls' }))).toThrow('registered twice');
    expect(() => r.register(command({ name: 'other', aliases: ['status'] }))).toThrow('registered twice');
    expect(() => r.register(command({ name: 'Bad Name' }))).toThrow('must match');
  });

  test('a module command marked replacesCore takes over the core command and its aliases', () => {
    const core = command({ name: 'players', aliases: ['pl'] });
    const r = registry(core);
    const replacement = { ...command({ name: 'players' }), replacesCore: true as const };
    r.register(replacement);
    expect(r.find('players')).toBe(replacement);
    expect(r.find('pl')).toBeUndefined();
    expect(r.all()).toHaveLength(1);
    expect(() => r.register({ ...command({ name: 'nothing-here' }), replacesCore: true })).toThrow('does not exist');
  });

  test('run hands lines over in emission order, across awaits', async () => {
    const r = registry(
      command({
        name: 'steps',
        async run({ out, args }) {
          out.header('one');
          await Promise.resolve();
          out.item(args.join('+'));
          await new Promise((resolve) => setImmediate(resolve));
          out.success('three');
        },
      }),
    );
    const lines: OutputLine[] = [];
    const result = await r.run(r.find('steps')!, { args: ['a', 'b'], actor: 'console', caller: 'test' }, (l) => lines.push(l));
    expect(result).toEqual({ success: true });
    expect(lines).toEqual([
      { kind: 'header', text: 'one' },
      { kind: 'item', text: 'a+b' },
      { kind: 'success', text: 'three' },
    ]);
  });

  test('a failure keeps the lines printed before it and ends with an error line', async () => {
    const lines: OutputLine[] = [];
    const r = registry(
      command({
        name: 'half',
        run({ out }) {
          out.info('did the first part');
          throw new CommandFailure('the second part failed: disk full');
        },
      }),
      command({
        name: 'bug',
        run() {
          throw new TypeError('secret internals at /home/x');
        },
      }),
    );
    expect(await r.run(r.find('half')!, { args: [], actor: 'console', caller: 't' }, (l) => lines.push(l))).toEqual({ success: false, message: 'the second part failed: disk full' });
    expect(lines).toEqual([
      { kind: 'info', text: 'did the first part' },
      { kind: 'error', text: 'the second part failed: disk full' },
    ]);
    const bug: OutputLine[] = [];
    const result = await r.run(r.find('bug')!, { args: [], actor: 'console', caller: 't' }, (l) => bug.push(l));
    // an unexpected error's details stay in the log
    expect(result.message).toBe('the command failed unexpectedly; the controller log has the details');
    expect(JSON.stringify(bug)).not.toContain('secret');
  });

  test('lines printed after the command returned are dropped', async () => {
    let late: ((text: string) => void) | undefined;
    const r = registry(
      command({
        name: 'leaky',
        run({ out }) {
          late = out.info;
        },
      }),
    );
    const lines: OutputLine[] = [];
    await r.run(r.find('leaky')!, { args: [], actor: 'console', caller: 't' }, (l) => lines.push(l));
    late!('too late');
    expect(lines).toEqual([]);
  });

  describe('complete', () => {
    const r = registry(
      command({ name: 'start', args: ['group', 'number'] }),
      command({ name: 'status' }),
      command({ name: 'stop', aliases: ['halt'], args: ['service'] }),
      command({ name: 'send', args: ['player', 'service'] }),
      command({ name: 'help', args: ['command'] }),
      command({ name: 'secret', level: 'admin' }),
      command({
        name: 'maintenance',
        subcommands: [
          { name: 'on', description: '', usage: '' },
          { name: 'group', description: '', usage: '', args: ['group', ['on', 'off']] },
        ],
      }),
    );
    test.each([
      ['', ['help', 'halt', 'maintenance', 'secret', 'send', 'start', 'status', 'stop'].sort()],
      ['st', ['start', 'status', 'stop']],
      ['ST', ['start', 'status', 'stop']],
      ['start ', ['game', 'lobby']],
      ['start l', ['lobby']],
      ['start lobby ', []],
      ['halt lob', ['lobby-1', 'lobby-2']],
      ['send a', ['Alice']],
      ['send Alice g', ['game-1']],
      ['help sta', ['start', 'status']],
      ['maintenance ', ['group', 'on']],
      ['maintenance group ', ['game', 'lobby']],
      ['maintenance group lobby o', ['off', 'on']],
      ['maintenance nope ', []],
      ['unknown ', []],
    ])('%j', (buffer, candidates) => {
      expect(r.complete(buffer, buffer.length)).toEqual(candidates);
    });

    test('commands the caller may not run are not offered', () => {
      const visible = (c: Command) => c.level === 'service';
      expect(r.complete('se', 2, visible)).toEqual(['send']);
      expect(r.complete('secret ', 7, visible)).toEqual([]);
    });
  });
});

describe('Confirmations', () => {
  test('one confirmation per request, from the same caller, within the window', () => {
    let now = 0;
    const c = new Confirmations(30_000, () => now);
    expect(c.confirm('a')).toBe(false);
    c.request('a');
    expect(c.confirm('b')).toBe(false);
    expect(c.confirm('a')).toBe(true);
    expect(c.confirm('a')).toBe(false);
    c.request('a');
    now = 30_001;
    expect(c.confirm('a')).toBe(false);
    c.request('a');
    now += 30_000;
    expect(c.confirm('a')).toBe(true);
  });
});
