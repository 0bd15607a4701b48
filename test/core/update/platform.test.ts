import { describe, expect, test } from 'bun:test';
import { binaryName, hostTarget, TARGETS } from '../../../build';
import { assetNameFor, executableMismatch, hostAssetName } from '../../../src/core/update/platform';
import { ELF_ARM64, ELF_X64, elfHeader, MACHO_ARM64, MACHO_X64, machOHeader } from './support';

const FILES: Record<string, Uint8Array> = {
  'elf-x64': elfHeader(ELF_X64),
  'elf-arm64': elfHeader(ELF_ARM64),
  'elf-32bit': elfHeader(3, { bits: 32 }),
  'elf-big-endian': elfHeader(ELF_X64, { bigEndian: true }),
  'macho-arm64': machOHeader(MACHO_ARM64),
  'macho-x64': machOHeader(MACHO_X64),
  pe: Buffer.concat([Buffer.from('MZ'), Buffer.alloc(62)]),
  text: Buffer.from('#!/bin/sh\necho "svc 0.13.1"\n# padding padding padding padding padding\n'),
  empty: new Uint8Array(0),
  // The ELF magic alone, shorter than the 20 bytes that reach e_machine.
  'elf-magic-only': Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1]),
};

const OTHER_OS = /^not a (Linux|macOS) executable \(an executable for another operating system\); this machine needs /;
const NOT_EXECUTABLE = /\(not an executable at all\); this machine needs /;

// [os, arch, file, expected: null when it runs there, else a pattern of the reason]
const CASES: [string, string, keyof typeof FILES, RegExp | null][] = [
  ['linux', 'x64', 'elf-x64', null],
  ['linux', 'x64', 'elf-arm64', /^a Linux executable for another CPU \(ELF machine 183\); this machine needs linux-x64$/],
  ['linux', 'x64', 'elf-32bit', /^a 32-bit or big-endian ELF file; this machine needs linux-x64$/],
  ['linux', 'x64', 'elf-big-endian', /^a 32-bit or big-endian ELF file; this machine needs linux-x64$/],
  ['linux', 'x64', 'macho-x64', OTHER_OS],
  ['linux', 'x64', 'pe', OTHER_OS],
  ['linux', 'x64', 'text', NOT_EXECUTABLE],
  ['linux', 'x64', 'empty', NOT_EXECUTABLE],
  ['linux', 'x64', 'elf-magic-only', NOT_EXECUTABLE],
  ['linux', 'arm64', 'elf-arm64', null],
  ['linux', 'arm64', 'elf-x64', /^a Linux executable for another CPU \(ELF machine 62\); this machine needs linux-arm64$/],
  ['linux', 'arm64', 'elf-big-endian', /32-bit or big-endian/],
  ['linux', 'arm64', 'macho-arm64', /^not a Linux executable \(an executable for another operating system\); this machine needs linux-arm64$/],
  ['linux', 'arm64', 'empty', NOT_EXECUTABLE],
  ['darwin', 'arm64', 'macho-arm64', null],
  ['darwin', 'arm64', 'macho-x64', /^a macOS executable for another CPU; this machine needs darwin-arm64$/],
  ['darwin', 'arm64', 'elf-arm64', /^not a macOS executable \(an executable for another operating system\); this machine needs darwin-arm64$/],
  ['darwin', 'arm64', 'pe', OTHER_OS],
  ['darwin', 'arm64', 'text', NOT_EXECUTABLE],
  ['darwin', 'arm64', 'empty', NOT_EXECUTABLE],
  ['darwin', 'x64', 'macho-x64', null],
  ['darwin', 'x64', 'macho-arm64', /another CPU; this machine needs darwin-x64$/],
  ['win32', 'x64', 'pe', null],
  ['win32', 'x64', 'elf-x64', /^not a Windows executable; this machine needs windows-x64$/],
  ['win32', 'x64', 'macho-x64', /^not a Windows executable; this machine needs windows-x64$/],
  ['win32', 'x64', 'text', /^not a Windows executable; this machine needs windows-x64$/],
  ['win32', 'x64', 'empty', /^not a Windows executable; this machine needs windows-x64$/],
  ['freebsd', 'x64', 'elf-x64', /^svc has no releases for freebsd-x64$/],
  ['freebsd', 'x64', 'pe', /^svc has no releases for freebsd-x64$/],
  ['freebsd', 'x64', 'empty', /^svc has no releases for freebsd-x64$/],
];

describe('executableMismatch', () => {
  test.each(CASES)('%s/%s given %s', (os, arch, file, expected) => {
    const reason = executableMismatch(FILES[file]!, os, arch);
    if (expected === null) expect(reason).toBeNull();
    else expect(reason).toMatch(expected);
  });

  test('reads the header where a Uint8Array view starts, not at the start of its buffer', () => {
    // A header read into the middle of a bigger buffer (a pooled Buffer, a subarray).
    const padded = Buffer.concat([Buffer.from('not the header at all, 32 bytes'), elfHeader(ELF_ARM64)]);
    const view = padded.subarray(padded.length - 64);
    expect(executableMismatch(view, 'linux', 'arm64')).toBeNull();
    expect(executableMismatch(view, 'linux', 'x64')).toMatch(/ELF machine 183/);
    const macho = Buffer.concat([Buffer.alloc(13, 0xfe), machOHeader(MACHO_ARM64)]).subarray(13);
    expect(executableMismatch(macho, 'darwin', 'arm64')).toBeNull();
  });

  test('defaults to this process platform and architecture', () => {
    const own = process.platform === 'darwin' ? machOHeader(process.arch === 'arm64' ? MACHO_ARM64 : MACHO_X64) : elfHeader(process.arch === 'arm64' ? ELF_ARM64 : ELF_X64);
    if (process.platform === 'linux' || process.platform === 'darwin') {
      expect(executableMismatch(own)).toBeNull();
      expect(executableMismatch(FILES.text!)).toMatch(NOT_EXECUTABLE);
    } else {
      expect(executableMismatch(own)).not.toBeNull();
    }
  });
});

describe('asset names', () => {
  test.each([
    ['linux', 'x64', 'svc-linux-x64'],
    ['linux', 'arm64', 'svc-linux-arm64'],
    ['darwin', 'arm64', 'svc-darwin-arm64'],
    ['darwin', 'x64', 'svc-darwin-x64'],
    ['win32', 'x64', 'svc-windows-x64.exe'],
  ])('assetNameFor(%s, %s) = %s', (os, arch, name) => {
    expect(assetNameFor(os, arch)).toBe(name);
  });

  test('every build target is written under the name the updater asks for on that machine', () => {
    for (const target of TARGETS) {
      const [os, arch] = target.split('-') as [string, string];
      expect(assetNameFor(os === 'windows' ? 'win32' : os, arch)).toBe(binaryName(target));
    }
  });

  test('hostAssetName() is the name the release build writes for this machine', () => {
    expect(hostAssetName()).toBe(binaryName(hostTarget()));
    expect(hostAssetName()).toBe(assetNameFor(process.platform, process.arch));
  });
});
