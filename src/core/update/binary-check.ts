import { open } from 'node:fs/promises';
import { executableMismatch } from './platform';

/**
 * Runs the downloaded (or kept) binary as `<file> --version` and returns the version it prints.
 * This proves it loads on this machine before it replaces anything. Throws with what went wrong.
 */
export async function versionOfBinary(file: string, timeoutMs = 20_000): Promise<string> {
  const buffer = Buffer.alloc(64);
  const handle = await open(file, 'r');
  let length: number;
  try {
    ({ bytesRead: length } = await handle.read(buffer, 0, 64, 0));
  } finally {
    await handle.close();
  }
  if (length < 64) throw new Error(`the file is only ${length} bytes: not an executable at all`);
  const mismatch = executableMismatch(buffer);
  if (mismatch) throw new Error(`the file is ${mismatch}`);
  const child = Bun.spawn([file, '--version'], { stdin: 'ignore', stdout: 'pipe', stderr: 'pipe', env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]).finally(() => clearTimeout(timer));
  if (code !== 0) throw new Error(`\`${file} --version\` exited with ${code ?? child.signalCode}${err.trim() ? `: ${err.trim().split('\n')[0]}` : ''}`);
  const match = /^svc v?(\S+)\s*$/.exec(out.trim());
  if (!match) throw new Error(`\`--version\` printed ${JSON.stringify(out.trim().slice(0, 80))}, not "svc <version>"`);
  return match[1]!;
}
