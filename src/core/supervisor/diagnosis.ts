/**
 * Why a game server failed, in words an operator can act on, from its exit code and the last
 * lines it printed. Pure; the first matching rule wins, most specific first.
 */
export interface Diagnosis {
  cause: 'port-in-use' | 'out-of-memory' | 'missing-jar' | 'wrong-java' | 'session-lock' | 'eula' | 'unknown';
  hint: string;
}

interface Rule {
  cause: Diagnosis['cause'];
  matches: (exitCode: number | null, text: string) => boolean;
  hint: string;
}

const RULES: readonly Rule[] = [
  {
    cause: 'eula',
    matches: (_, text) => /You need to agree to the EULA/i.test(text),
    hint: 'the Minecraft EULA is not accepted: eula.txt needs eula=true (svc writes it for backends; check the template)',
  },
  {
    cause: 'port-in-use',
    matches: (_, text) => /FAILED TO BIND TO PORT|Address already in use|BindException/i.test(text),
    hint: 'the port is already in use by another process: stop it or change the port range',
  },
  {
    cause: 'missing-jar',
    matches: (_, text) => /Unable to access jarfile|Error: Could not find or load main class|No such file or directory.*\.jar/i.test(text),
    hint: 'the server jar is missing: put it in the template or set jarName',
  },
  {
    cause: 'wrong-java',
    matches: (_, text) => /UnsupportedClassVersionError|compiled by a more recent version of the Java Runtime|requires running the server with Java/i.test(text),
    hint: 'this server needs a newer Java: set the right path in [java] of svc.toml or javaPath on the group',
  },
  {
    cause: 'session-lock',
    matches: (_, text) => /session\.lock|The directory is already locked|DirectoryLock/i.test(text),
    hint: 'the world is locked by another running server (session.lock): two services share a world folder',
  },
  {
    cause: 'out-of-memory',
    matches: (exitCode, text) => exitCode === 137 || /java\.lang\.OutOfMemoryError|Cannot allocate memory/i.test(text),
    hint: 'out of memory (killed with 137 or OutOfMemoryError): raise memory or lower the number of services',
  },
];

export function diagnose(exitCode: number | null, lastLines: readonly string[]): Diagnosis {
  const text = lastLines.join('\n');
  for (const rule of RULES) if (rule.matches(exitCode, text)) return { cause: rule.cause, hint: rule.hint };
  return { cause: 'unknown', hint: exitCode === null ? 'the process ended without an exit code' : `the process exited with code ${exitCode}; see the last log lines` };
}
