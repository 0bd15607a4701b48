/**
 * Which release asset is this machine's, and whether a downloaded file is an executable for it.
 * The asset names are the ones `bun run build` writes (a test holds build.ts's names to these).
 */

export type ReleaseOs = 'linux' | 'darwin' | 'windows';

export function assetNameFor(os: string, arch: string): string {
  const name = os === 'win32' ? 'windows' : os;
  return `svc-${name}-${arch}${name === 'windows' ? '.exe' : ''}`;
}

/** This process's asset: `svc-linux-x64` on a 64-bit Intel/AMD Linux. */
export function hostAssetName(): string {
  return assetNameFor(process.platform, process.arch);
}

// ELF e_machine values (System V ABI) and Mach-O CPU types for the architectures svc builds.
const ELF_MACHINE: Record<string, number> = { x64: 62, arm64: 183 };
const MACHO_CPU: Record<string, number> = { x64: 0x01000007, arm64: 0x0100000c };

/**
 * Null when `header` (the file's first 64 bytes or more) starts an executable this OS and CPU
 * run; otherwise what it is instead, in words an operator can act on.
 */
export function executableMismatch(header: Uint8Array, os: string = process.platform, arch: string = process.arch): string | null {
  const view = new DataView(header.buffer, header.byteOffset, header.byteLength);
  const isElf = header.length >= 20 && header[0] === 0x7f && header[1] === 0x45 && header[2] === 0x4c && header[3] === 0x46;
  const isMachO = header.length >= 8 && view.getUint32(0, true) === 0xfeedfacf;
  const isPe = header.length >= 2 && header[0] === 0x4d && header[1] === 0x5a;
  const expected = `${os === 'win32' ? 'windows' : os}-${arch}`;
  if (os === 'linux') {
    if (!isElf) return `not a Linux executable (${describe(isMachO, isPe)}); this machine needs ${expected}`;
    if (header[4] !== 2 || header[5] !== 1) return `a 32-bit or big-endian ELF file; this machine needs ${expected}`;
    const machine = view.getUint16(18, true);
    if (machine !== ELF_MACHINE[arch]) return `a Linux executable for another CPU (ELF machine ${machine}); this machine needs ${expected}`;
    return null;
  }
  if (os === 'darwin') {
    if (!isMachO) return `not a macOS executable (${describe(isElf, isPe)}); this machine needs ${expected}`;
    const cpu = view.getUint32(4, true);
    return cpu === MACHO_CPU[arch] ? null : `a macOS executable for another CPU; this machine needs ${expected}`;
  }
  if (os === 'win32') return isPe ? null : `not a Windows executable; this machine needs ${expected}`;
  return `svc has no releases for ${expected}`;
}

function describe(...otherExecutableKinds: boolean[]): string {
  return otherExecutableKinds.some(Boolean) ? 'an executable for another operating system' : 'not an executable at all';
}
