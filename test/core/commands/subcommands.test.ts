import { describe, expect, test } from 'bun:test';
import { UsageError, type CommandContext, type CommandOutput } from '../../../src/core/commands/command';
import { dispatchSubcommands, subcommandUsage } from '../../../src/core/commands/subcommands';

function context(args: string[]): CommandContext {
  const ignore = (): void => {};
  const out: CommandOutput = { header: ignore, info: ignore, success: ignore, error: ignore, item: ignore, text: ignore };
  return { args, out, actor: 'console', caller: 'test' };
}

async function usageErrorOf(run: () => unknown): Promise<UsageError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof UsageError) return error;
    throw error;
  }
  throw new Error('no usage error');
}

describe('dispatchSubcommands', () => {
  const seen: string[][] = [];
  const run = dispatchSubcommands('thing <a|b> …', {
    a: (_ctx, args) => void seen.push(['a', ...args]),
    b: async (_ctx, args) => void seen.push(['b', ...args]),
  });

  test('the first argument names the subcommand in any case; the rest are its arguments', async () => {
    await run(context(['A', 'x', 'y']));
    await run(context(['b']));
    expect(seen).toEqual([['a', 'x', 'y'], ['b']]);
    seen.length = 0;
  });

  test('no subcommand, an unknown one and an inherited name are usage errors with the command usage', async () => {
    expect((await usageErrorOf(() => run(context([])))).message).toBe('usage: thing <a|b> …');
    for (const name of ['c', 'constructor', '__proto__', 'toString']) {
      const error = await usageErrorOf(() => run(context([name])));
      expect(error.message).toBe(`unknown subcommand "${name}"; usage: thing <a|b> …`);
    }
  });
});

describe('dispatchSubcommands with whenNone', () => {
  const seen: string[][] = [];
  const handlers = {
    list: (_ctx: CommandContext, args: string[]) => void seen.push(['list', ...args]),
    lift: async (_ctx: CommandContext, args: string[]) => void seen.push(['lift', ...args]),
  };
  const run = dispatchSubcommands('thing [list | lift <x>]', handlers, { whenNone: 'list' });

  const runs: Array<{ args: string[]; ran: string[] }> = [
    { args: [], ran: ['list'] },
    { args: ['list'], ran: ['list'] },
    { args: ['LIST', 'x'], ran: ['list', 'x'] },
    { args: ['lift', 'a', 'b'], ran: ['lift', 'a', 'b'] },
    { args: ['Lift'], ran: ['lift'] },
  ];
  test.each(runs)('$args runs $ran', async ({ args, ran }) => {
    seen.length = 0;
    await run(context(args));
    expect(seen).toEqual([ran]);
  });

  test.each(['nope', '', 'constructor', '__proto__', 'toString', 'hasOwnProperty'])('"%s" is still the usage error naming it, default or not', async (name) => {
    seen.length = 0;
    const error = await usageErrorOf(() => run(context([name, 'x'])));
    expect(error.message).toBe(`unknown subcommand "${name}"; usage: thing [list | lift <x>]`);
    expect(seen).toEqual([]);
  });

  test('without whenNone (or with it undefined), no subcommand is the bare usage error as before', async () => {
    for (const bare of [dispatchSubcommands('thing [list | lift <x>]', handlers), dispatchSubcommands('thing [list | lift <x>]', handlers, {})]) {
      expect((await usageErrorOf(() => bare(context([])))).message).toBe('usage: thing [list | lift <x>]');
    }
  });

  test.each(['nope', 'LIST', '__proto__', 'constructor'])('a default "%s" without an own handler throws when the command is built', (whenNone) => {
    expect(() => dispatchSubcommands('thing', handlers, { whenNone })).toThrow(`the default subcommand "${whenNone}" has no handler`);
  });
});

describe('subcommandUsage', () => {
  test('the listed usage line; a name not listed throws', () => {
    const list = [{ name: 'a', description: 'A', usage: 'thing a <x>' }];
    expect(subcommandUsage(list, 'a')).toBe('thing a <x>');
    expect(() => subcommandUsage(list, 'b')).toThrow('no subcommand "b" is listed');
  });
});
