import { UsageError, type Command } from './command';

/** Splits `--flag` words (and `--key value` for the named keys) from positional words. */
export function parseFlags(command: Pick<Command, 'usage'>, args: readonly string[], valued: readonly string[] = []): { positional: string[]; flags: Map<string, string | true> } {
  const positional: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!word.startsWith('--') || word === '--') {
      positional.push(word);
      continue;
    }
    const key = word.slice(2).toLowerCase();
    if (valued.includes(key)) {
      const value = args[i + 1];
      if (value === undefined) throw new UsageError(command.usage, `--${key} needs a value`);
      flags.set(key, value);
      i++;
    } else flags.set(key, true);
  }
  return { positional, flags };
}

/** The positional words, or a usage error naming what is missing or too much. */
export function expectArgs(command: Pick<Command, 'usage'>, args: readonly string[], min: number, max = min): string[] {
  if (args.length < min) throw new UsageError(command.usage, args.length === 0 ? 'missing arguments' : 'too few arguments');
  if (args.length > max) throw new UsageError(command.usage, `unexpected "${args[max]}"`);
  return [...args];
}

/** A whole number within bounds, or a usage error. */
export function intArg(command: Pick<Command, 'usage'>, word: string | undefined, fallback: number, min: number, max: number): number {
  if (word === undefined) return fallback;
  const value = Number(word);
  if (!Number.isInteger(value) || value < min || value > max) throw new UsageError(command.usage, `"${word}" is not a whole number from ${min} to ${max}`);
  return value;
}
