/**
 * Why a game server failed, in words an operator can act on, from its exit code and the last
 * lines it printed. Pure; the first matching rule wins, most specific first.
 */
export interface Diagnosis {
  cause: 'program-not-found' | 'port-in-use' | 'out-of-memory' | 'missing-jar' | 'wrong-java' | 'session-lock' | 'eula' | 'unknown';
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
  const notFound = programNotFound(exitCode, lastLines);
  if (notFound) return notFound;
  const text = lastLines.join('\n');
  for (const rule of RULES) if (rule.matches(exitCode, text)) return { cause: rule.cause, hint: rule.hint };
  return { cause: 'unknown', hint: exitCode === null ? 'the process ended without an exit code' : `the process exited with code ${exitCode}; see the last log lines` };
}

/**
 * What the shell (the wrapper's `exec`, a start script), setpriv, or the sandbox's init
 * (`timeout`) say when a program cannot be run, and which program: the last such line wins.
 *   svc-server: 1: exec: /opt/java/bin/java: not found          (dash)
 *   svc-server: line 1: exec: java: not found                   (bash)
 *   svc-server: 1: exec: ./start.sh: Permission denied
 *   start.sh: 3: foo: not found
 *   setpriv: failed to execute java: No such file or directory
 *   timeout: failed to run command ‘java’: No such file or directory
 */
const CANNOT_RUN = [
  /failed to (?:execute|run command) [‘'"]?(.+?)[’'"]?: (?:No such file or directory|Permission denied|Exec format error|Is a directory)\s*$/,
  /(?:^|: )(?:exec: )?([^:]+): (?:not found|No such file or directory|Permission denied|cannot execute.*|Exec format error|Is a directory)\s*$/,
];

/**
 * Exit 127 is sh's "command not found", 126 "found but cannot be run" (not executable, a
 * folder, a wrong format): the start command itself is wrong, and starting it again changes
 * nothing. The program is named when its failure line is among the last lines.
 */
function programNotFound(exitCode: number | null, lastLines: readonly string[]): Diagnosis | undefined {
  if (exitCode !== 126 && exitCode !== 127) return undefined;
  let program: string | undefined;
  for (let i = lastLines.length - 1; i >= 0 && program === undefined; i--) {
    const line = lastLines[i]!;
    for (const pattern of CANNOT_RUN) {
      const found = pattern.exec(line)?.[1]?.trim();
      if (found) {
        program = found;
        break;
      }
    }
  }
  const named = program === undefined ? "the start command's program" : `"${program}"`;
  const hint =
    exitCode === 127
      ? `program not found: ${named} does not exist (exit 127); install it or correct the path (the start command, or [java] in svc.toml / javaPath on the group)`
      : `program cannot be run: ${named} is not executable or not a program (exit 126); check its permissions and the start command`;
  return { cause: 'program-not-found', hint };
}
