import { readdirSync } from 'node:fs';
import { dlopen, FFIType, ptr } from 'bun:ffi';

/**
 * Replaces this process with `binary` (same pid, same terminal, same systemd main PID) through
 * libc's execve, reached with bun:ffi because neither Bun nor Node expose exec. Every
 * descriptor above stderr is marked close-on-exec first, so nothing the old process held (a
 * socket, a FIFO) leaks into the new one, except those in `keep` (the working directory's lock,
 * which the new program adopts). Returns only when exec was impossible, with the reason.
 */
export function execInPlace(binary: string, args: readonly string[], env: Record<string, string | undefined> = process.env, keep: readonly number[] = []): string {
  let libc;
  try {
    libc = dlopen(process.platform === 'darwin' ? 'libSystem.B.dylib' : 'libc.so.6', {
      execve: { args: [FFIType.ptr, FFIType.ptr, FFIType.ptr], returns: FFIType.i32 },
      fcntl: { args: [FFIType.i32, FFIType.i32, FFIType.i32], returns: FFIType.i32 },
    });
  } catch (error) {
    return `libc could not be loaded (${(error as Error).message})`;
  }
  const F_SETFD = 2;
  const FD_CLOEXEC = 1;
  for (const fd of openDescriptors()) if (fd > 2) libc.symbols.fcntl(fd, F_SETFD, keep.includes(fd) ? 0 : FD_CLOEXEC);
  // The C strings and the two NULL-terminated pointer tables must stay referenced until execve
  // returns (it only returns on failure); the locals below keep them alive.
  const cString = (text: string) => Buffer.from(`${text}\0`, 'utf8');
  const argStrings = [binary, ...args].map(cString);
  const envStrings = Object.entries(env)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([key, value]) => cString(`${key}=${value}`));
  const table = (strings: Buffer[]) => {
    const pointers = new BigUint64Array(strings.length + 1);
    strings.forEach((value, index) => (pointers[index] = BigInt(ptr(value))));
    return pointers;
  };
  const path = cString(binary);
  const argv = table(argStrings);
  const envp = table(envStrings);
  libc.symbols.execve(ptr(path), ptr(argv), ptr(envp));
  libc.close();
  return `execve of ${binary} failed`;
}

function openDescriptors(): number[] {
  try {
    return readdirSync(process.platform === 'darwin' ? '/dev/fd' : '/proc/self/fd').map(Number).filter(Number.isInteger);
  } catch {
    return [];
  }
}
