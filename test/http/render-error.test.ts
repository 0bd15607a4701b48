/**
 * The one place errors become answers, for a full disk: 507 INSUFFICIENT_STORAGE with the spec's
 * error body naming what could not be written (a file, relative to the controller's folder; the
 * record of an event; the database), whatever the layer the failure came from.
 */
import { describe, expect, test } from 'bun:test';
import { FileWriteError, writeFileAtomic } from '../../src/config/write';
import { EventBus } from '../../src/events/bus';
import { errorRenderer } from '../../src/http/render-error';
import type { Logger } from '../../src/log';
import { RecordWriteError } from '../../src/storage/disk-full';

const logged: unknown[] = [];
const log = { error: (...args: unknown[]) => logged.push(args) } as unknown as Logger;
const bus = new EventBus();
const published: string[] = [];
bus.subscribe((e) => published.push(`${e.type} ${e.data.error}`));
const render = errorRenderer(log, bus, '/srv/svc');
const request = new Request('http://127.0.0.1/api/groups', { method: 'POST' });
const errno = (code: string, syscall = 'write') => Object.assign(new Error(`${code}: no space left on device, ${syscall} '/srv/svc/config/groups/.Lobby.toml.123.abcdefabcdef.tmp'`), { code, syscall });

describe('a full disk is 507 naming what could not be written', () => {
  test('a config file (writeFileAtomic): the file, never its temp file', () => {
    const answer = render(new FileWriteError('/srv/svc/config/groups/Lobby.toml', errno('ENOSPC')), request);
    expect(answer).toEqual({
      status: 507,
      headers: {},
      body: {
        success: false,
        error: 'INSUFFICIENT_STORAGE',
        message: "no space left on the controller's disk (ENOSPC): config/groups/Lobby.toml could not be written, so this request is not done; free space and send it again",
      },
    });
    expect(published.at(-1)).toBe('API_ERROR INSUFFICIENT_STORAGE: POST /api/groups: config/groups/Lobby.toml');
  });

  test('a quota (EDQUOT) counts as full; a path outside the folder is shown whole', () => {
    const answer = render(new FileWriteError('/elsewhere/file.toml', errno('EDQUOT')), request);
    expect(answer.status).toBe(507);
    expect(answer.body.message).toContain('(EDQUOT): /elsewhere/file.toml could not be written');
  });

  test('the record of an event, and the database itself', () => {
    const record = render(new RecordWriteError('the audit log entry for GROUP_CREATED', Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' })), request);
    expect(record.body.message).toBe("no space left on the controller's disk (SQLITE_FULL): the audit log entry for GROUP_CREATED (in the database) could not be written, so this request is not done; free space and send it again");
    const sqlite = render(Object.assign(new Error('database or disk is full'), { name: 'SQLiteError', code: 'SQLITE_FULL' }), request);
    expect(sqlite).toMatchObject({ status: 507, body: { error: 'INSUFFICIENT_STORAGE', message: expect.stringContaining('the change (in the database) could not be written') } });
  });

  test('a bare system error with a path (a stream, a copy) is named by it', () => {
    const answer = render(Object.assign(new Error('ENOSPC'), { code: 'ENOSPC', path: '/srv/svc/templates/lobby/world.zip' }), request);
    expect(answer.body.message).toContain('(ENOSPC): templates/lobby/world.zip could not be written');
  });

  test('anything else stays a 500 with a reference', () => {
    expect(render(new Error('boom'), request)).toMatchObject({ status: 500, body: { error: 'INTERNAL_ERROR' } });
  });
});

describe('writeFileAtomic failures name the file and the folder, never a temp file', () => {
  test('a folder that cannot be made: the file named, its cause kept', () => {
    let caught: unknown;
    try {
      writeFileAtomic('/proc/self/status/svc.toml', 'x');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(FileWriteError);
    expect((caught as FileWriteError).path).toBe('/proc/self/status/svc.toml');
    expect((caught as Error).message).toMatch(/^\/proc\/self\/status\/svc\.toml could not be written \(E[A-Z]+/);
  });

  test('a folder the temp file cannot be created in: no temp file named', () => {
    let caught: unknown;
    try {
      writeFileAtomic('/proc/svc-test-file', 'x');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(FileWriteError);
    expect((caught as Error).message).not.toContain('.tmp');
    expect((caught as Error).message.startsWith('/proc/svc-test-file could not be written')).toBe(true);
  });

  test('the messages for a permission problem and a full disk', () => {
    expect(new FileWriteError('/srv/svc/data/api-token', errno('EACCES', 'open')).message).toMatch(/^\/srv\/svc\/data\/api-token could not be written: the folder \/srv\/svc\/data does not let this user \(uid \d+\) create files in it \(EACCES\); give the user svc runs as write access to it$/);
    expect(new FileWriteError('/srv/svc/svc.toml', errno('ENOSPC')).message).toBe('/srv/svc/svc.toml could not be written: no space left on the device (ENOSPC)');
  });
});
