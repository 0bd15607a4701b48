import { describe, expect, test } from 'bun:test';
import { diagnose, type Diagnosis } from '../../../src/core/supervisor/diagnosis';

const rows: [string, number | null, string[], Diagnosis['cause']][] = [
  ['Paper bind failure', 1, ['[12:00:00 WARN]: **** FAILED TO BIND TO PORT!', '[12:00:00 WARN]: The exception was: java.net.BindException: Address already in use'], 'port-in-use'],
  ['killed by the OOM killer', 137, ['[12:00:00 INFO]: Preparing spawn area: 12%'], 'out-of-memory'],
  ['heap exhausted', 1, ['java.lang.OutOfMemoryError: Java heap space'], 'out-of-memory'],
  ['no jar', 1, ['Error: Unable to access jarfile server.jar'], 'missing-jar'],
  ['old java', 1, ['Exception in thread "main" java.lang.UnsupportedClassVersionError: org/bukkit/craftbukkit/Main has been compiled by a more recent version of the Java Runtime (class file version 65.0)'], 'wrong-java'],
  ['paper says which java', 1, ['*** This version of Minecraft requires running the server with Java 21 or above.'], 'wrong-java'],
  ['world locked', 1, ['java.lang.IllegalStateException: Failed to initialize server', 'Caused by: net.minecraft.util.DirectoryLock$LockException: /srv/world/session.lock: already locked (possibly by other Minecraft instance?)'], 'session-lock'],
  ['eula', 0, ['[12:00:00 INFO]: You need to agree to the EULA in order to run the server. Go to eula.txt for more info.'], 'eula'],
  ['eula beats a later generic failure', 1, ['You need to agree to the EULA in order to run the server.', 'Address already in use'], 'eula'],
  ['nothing recognisable', 3, ['something odd'], 'unknown'],
  ['the wrapper could not exec the program (dash)', 127, ['svc-server: 1: exec: /opt/jdk/bin/java: not found'], 'program-not-found'],
  ['not executable', 126, ['svc-server: 1: exec: ./start.sh: Permission denied'], 'program-not-found'],
  ['127 with nothing said still means the start command', 127, [], 'program-not-found'],
  ['a "not found" line with another exit code is not it', 1, ['svc-server: 1: exec: java: not found'], 'unknown'],
];

describe('diagnose', () => {
  test.each(rows)('%s', (_name, exitCode, lines, cause) => {
    const d = diagnose(exitCode, lines);
    expect(d.cause).toBe(cause);
    expect(d.hint.length).toBeGreaterThan(10);
  });

  test.each([
    ['svc-server: 1: exec: /nonexistent/server-bin: not found', 127, 'program not found: "/nonexistent/server-bin"'],
    ['svc-server: line 1: exec: java: not found', 127, 'program not found: "java"'],
    ['start.sh: 3: rsync: not found', 127, 'program not found: "rsync"'],
    ['setpriv: failed to execute java: No such file or directory', 127, 'program not found: "java"'],
    ['timeout: failed to run command ‘/srv/jdk/bin/java’: No such file or directory', 127, 'program not found: "/srv/jdk/bin/java"'],
    ['svc-server: 1: exec: ./start.sh: Permission denied', 126, 'program cannot be run: "./start.sh"'],
  ])('126/127 names the program: %s', (line, code, hint) => {
    expect(diagnose(code, ['[12:00:00 INFO]: earlier output', line]).hint).toStartWith(hint);
  });

  test('unknown says the exit code', () => {
    expect(diagnose(3, []).hint).toContain('code 3');
    expect(diagnose(null, []).hint).toContain('without an exit code');
  });
});
