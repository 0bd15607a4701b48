import { readFileSync } from 'node:fs';

const MiB = 1024 * 1024;

/** A /proc/<pid>/status field in bytes (VmRSS: resident now; VmHWM: the peak since start). */
export function procStatusBytes(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`));
  if (!line) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(line.replace(/\D+/g, '')) * 1024;
}

/** A child Bun process serving something on a port it prints as `PORT <n>`; its memory read from /proc. */
export interface ChildServer {
  url: string;
  pid: number;
  /** Peak resident set growth since `markBaseline`, in MiB. */
  peakGrowthMiB(): number;
  markBaseline(): void;
  stop(): Promise<void>;
}

export async function startChildServer(script: string, args: readonly string[]): Promise<ChildServer> {
  const child = Bun.spawn([process.execPath, script, ...args], { stdout: 'pipe', stderr: 'inherit' });
  const reader = child.stdout.getReader();
  let text = '';
  const deadline = Date.now() + 10_000;
  while (!/PORT (\d+)/.test(text)) {
    if (Date.now() > deadline) throw new Error(`${script} printed no port within 10 s`);
    const { value, done } = await reader.read();
    if (done) throw new Error(`${script} exited before printing its port: ${text}`);
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  const port = Number(/PORT (\d+)/.exec(text)![1]);
  let baseline = procStatusBytes(child.pid, 'VmHWM');
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid,
    markBaseline: () => void (baseline = procStatusBytes(child.pid, 'VmHWM')),
    peakGrowthMiB: () => (procStatusBytes(child.pid, 'VmHWM') - baseline) / MiB,
    stop: async () => {
      child.kill();
      await child.exited;
    },
  };
}
