import { describe, expect, test } from 'bun:test';
import { ApiError } from '../../../src/errors';
import { changedHostFields, requireAdminForHostFields } from '../../../src/core/tenancy/host-fields';

const current = { startCommand: ['java', '-jar', 'server.jar'], javaPath: '', jvmArgs: ['-Xmx1G'] };

describe('fields that choose what runs on the host', () => {
  test.each([
    ['nothing given', {}, []],
    ['the same values again (a form that saves every field)', { startCommand: ['java', '-jar', 'server.jar'], javaPath: '', jvmArgs: ['-Xmx1G'] }, []],
    ['a new command', { startCommand: ['sh', '-c', 'id > pwned.txt'] }, ['startCommand']],
    ['one more argument', { startCommand: ['java', '-jar', 'server.jar', 'nogui'] }, ['startCommand']],
    ['an emptied command', { startCommand: [] }, ['startCommand']],
    ['another java', { javaPath: '/tmp/evil' }, ['javaPath']],
    ['JVM arguments', { jvmArgs: ['-XX:OnError=sh -c id'] }, ['jvmArgs']],
    ['all three', { startCommand: ['x'], javaPath: 'y', jvmArgs: ['z'] }, ['startCommand', 'javaPath', 'jvmArgs']],
  ])('%s', (_, next, expected) => {
    expect(changedHostFields(current, next) as string[]).toEqual(expected as string[]);
  });

  test('a change by someone who is not the operator is a 403 naming the fields; the operator passes', () => {
    expect(() => requireAdminForHostFields(true, ['startCommand'], 'group Lobby')).not.toThrow();
    expect(() => requireAdminForHostFields(false, [], 'group Lobby')).not.toThrow();
    try {
      requireAdminForHostFields(false, ['startCommand', 'jvmArgs'], 'group Lobby');
      throw new Error('expected a refusal');
    } catch (error) {
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toBe(403);
      expect((error as ApiError).errorCode).toBe('FORBIDDEN');
      expect((error as ApiError).message).toContain('"startCommand", "jvmArgs" of group Lobby');
    }
  });
});
