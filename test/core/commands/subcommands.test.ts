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

describe('subcommandUsage', () => {
  test('the listed usage line; a name not listed throws', () => {
    const list = [{ name: 'a', description: 'A', usage: 'thing a <x>' }];
    expect(subcommandUsage(list, 'a')).toBe('thing a <x>');
    expect(() => subcommandUsage(list, 'b')).toThrow('no subcommand "b" is listed');
  });
});
