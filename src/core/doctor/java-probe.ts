import { realpathSync, statSync } from 'node:fs';

/** `<java> -version` → its major (8 for "1.8.0_…"), or why it could not be asked. */
export type JavaProbe = (binary: string) => { major: number; version: string } | { error: string };

/** Asks the binary itself, every time (see rememberedJavaProbe for what the doctor uses). */
export const askJava: JavaProbe = (binary) => {
  let run;
  try {
    run = Bun.spawnSync([binary, '-version'], { stdout: 'pipe', stderr: 'pipe', timeout: 5000 });
  } catch (error) {
    return { error: (error as Error).message };
  }
  const text = run.stderr.toString() + run.stdout.toString();
  if (!run.success) return { error: text.trim().split('\n')[0] || `exit code ${run.exitCode}` };
  const match = /version "(\d+)(?:\.(\d+))?[^"]*"/.exec(text);
  if (!match) return { error: `no version in its output: ${text.trim().split('\n')[0]}` };
  const first = Number(match[1]);
  return { major: first === 1 ? Number(match[2]) : first, version: match[0].slice(9, -1) };
};

/** Distinct Java binaries remembered; a host has a handful, so this only bounds a misconfiguration. */
const MAX_REMEMBERED = 32;

/**
 * `<java> -version` starts a JVM (tens of ms, and the doctor runs it synchronously, holding up
 * every other request meanwhile), yet its answer only changes when the binary does. This
 * remembers each answer under the binary it came from, resolved on PATH and through links, and
 * asks again once that file is another one (a different inode, size or modification time: an
 * upgrade, a re-pointed `alternatives` link). A binary that cannot be found is asked every time
 * (that fails at once, and its installation must show up at the next look).
 */
export function rememberedJavaProbe(probe: JavaProbe): JavaProbe {
  const answers = new Map<string, { identity: string; answer: ReturnType<JavaProbe> }>();
  return (binary) => {
    const file = resolveBinary(binary);
    if (file === undefined) return probe(binary);
    const identity = identityOf(file);
    if (identity === undefined) return probe(binary);
    const known = answers.get(file);
    if (known?.identity === identity) return known.answer;
    const answer = probe(binary);
    answers.delete(file);
    if (answers.size >= MAX_REMEMBERED) answers.delete(answers.keys().next().value!);
    answers.set(file, { identity, answer });
    return answer;
  };
}

/** The file a command name or path runs: PATH is searched for a bare name; links are followed. */
function resolveBinary(binary: string): string | undefined {
  // Bun.which searches the PATH the process started with, as the probe's spawn does.
  const found = binary.includes('/') ? binary : Bun.which(binary);
  if (!found) return undefined;
  try {
    return realpathSync(found);
  } catch {
    return undefined;
  }
}

function identityOf(file: string): string | undefined {
  try {
    const stat = statSync(file);
    return stat.isFile() ? `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}` : undefined;
  } catch {
    return undefined;
  }
}

/** The doctor's probe: each binary's answer is remembered until that file changes. */
export const probeJava: JavaProbe = rememberedJavaProbe(askJava);
