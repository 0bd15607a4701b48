import { describe, expect, test } from 'bun:test';
import { BUN, processScope, RUNNER_ARGV, within } from './harness';

const scope = processScope('argv');

/** Arguments a shell would mangle if the wrapper ever pasted them into a script. */
const NASTY = [
  'two words',
  '"double quoted"',
  "it's single",
  '$HOME',
  '${PATH}',
  '`id`',
  '$(echo injected)',
  'a; echo injected',
  'a && b || c',
  '*',
  '~',
  '\\back\\slash',
  '',
  ' leading and trailing ',
  '-n',
  'tab\there',
  'ünïcødé ✓',
  '#not a comment',
  '> /tmp/svc-should-not-exist',
];

async function runArgv(args: string[], env?: Record<string, string>) {
  const { handle, log, workDir } = await scope.start([BUN, RUNNER_ARGV, ...args], env ? { env } : {});
  expect(await within(handle.exited, 'runner-argv exit')).toEqual({ code: 0 });
  const line = log.lines.find((l) => l.startsWith('argv '));
  if (line === undefined) throw new Error(`no argv line in:\n${log.lines.join('\n')}`);
  const parsed: unknown = JSON.parse(line.slice('argv '.length));
  return { parsed, workDir };
}

describe('argv and env reach the program verbatim', () => {
  test('spaces, quotes, $VARS, backticks, semicolons, globs, empty strings', async () => {
    const { parsed, workDir } = await runArgv(NASTY, { RUNNER_ARGV_ENV: '$HOME `id`; "x" \'y\'' });
    expect(parsed).toEqual({ argv: NASTY, env: '$HOME `id`; "x" \'y\'', cwd: workDir });
  });

  test('without spec.env nothing of the controller environment but PATH passes', async () => {
    process.env.RUNNER_ARGV_ENV = 'from the controller';
    try {
      const { parsed } = await runArgv([]);
      expect(parsed).toMatchObject({ argv: [], env: null });
    } finally {
      delete process.env.RUNNER_ARGV_ENV;
    }
  });

  test('spec.env is the whole environment: the controller\'s own variables never reach the server', async () => {
    process.env.RUNNER_ARGV_ENV = 'from the controller';
    process.env.SVC_CLUSTER_TOKEN = 'controller-secret';
    try {
      const { handle, log } = await scope.start(['/bin/sh', '-c', 'echo "env=${RUNNER_ARGV_ENV-unset} cluster=${SVC_CLUSTER_TOKEN-unset} db=${SVC_DB_PASSWORD-unset} given=$GIVEN api=$SVC_API_TOKEN"'], {
        env: { GIVEN: 'yes', SVC_API_TOKEN: 'its-own', SVC_DB_PASSWORD: 'passed-by-mistake' },
      });
      expect(await within(handle.exited, 'sh exit')).toEqual({ code: 0 });
      expect(log.lines).toEqual(['env=unset cluster=unset db=unset given=yes api=its-own']);
    } finally {
      delete process.env.RUNNER_ARGV_ENV;
      delete process.env.SVC_CLUSTER_TOKEN;
    }
  });

  test('a program name is looked up on PATH', async () => {
    const { handle, log } = await scope.start(['sh', '-c', 'printf "%s|%s\\n" "$0" "$1"', 'zero', 'one two']);
    expect(await within(handle.exited, 'sh exit')).toEqual({ code: 0 });
    expect(log.lines).toEqual(['zero|one two']);
  });
});
