import { readFileSync } from 'node:fs';
import { writeFileAtomic } from '../../config/write';
import { uidHasProcesses } from './owner';
import { UID_COUNT } from './range';


interface UidFile {
  base: number;
  services: Record<string, number>;
}

/**
 * One stable uid (and the gid of the same number) per service name, remembered in an
 * owner-only file under data/ so a service finds its files still its own after any restart.
 * A new name's uid is a hash of this installation's folder and the name, spread over the whole
 * range: two controllers (or a controller and an agent) on one machine, each with its own
 * file, practically never meet (1 in 16.7 million per pair of names); a uid that already owns
 * a process is skipped as well, so a collision could never hand one service another's live
 * processes. A remembered uid outside the configured range (the base was moved) is replaced.
 */
export class UidMap {
  private readonly services = new Map<string, number>();

  constructor(
    private readonly file: string,
    private readonly base: number,
    /** This installation's folder: the hash's salt. */
    private readonly salt: string,
    private readonly inUse: (uid: number) => boolean = uidHasProcesses,
  ) {
    let saved: UidFile | undefined;
    try {
      saved = JSON.parse(readFileSync(file, 'utf8')) as UidFile;
    } catch {
      saved = undefined; // first use, or damaged: every name gets its hashed uid again, the same as before
    }
    for (const [name, uid] of Object.entries(saved?.services ?? {})) {
      if (Number.isInteger(uid) && this.inRange(uid)) this.services.set(name, uid);
    }
  }

  /** The uid of `name`, allocated (and saved) on first use. */
  uidOf(name: string): number {
    const known = this.services.get(name);
    if (known !== undefined) return known;
    const taken = new Set(this.services.values());
    let slot = fnv1a(`${this.salt}\0${name}`) % UID_COUNT;
    for (let tries = 0; tries < UID_COUNT; tries++, slot = (slot + 1) % UID_COUNT) {
      const uid = this.base + slot;
      if (taken.has(uid) || this.inUse(uid)) continue;
      this.services.set(name, uid);
      this.save();
      return uid;
    }
    throw new Error(`no free uid left in ${this.base}..${this.base + UID_COUNT - 1}`);
  }

  private inRange(uid: number): boolean {
    return uid >= this.base && uid < this.base + UID_COUNT;
  }

  private save(): void {
    const data: UidFile = { base: this.base, services: Object.fromEntries([...this.services].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) };
    writeFileAtomic(this.file, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 });
  }
}

/** 32-bit FNV-1a of the UTF-8 bytes. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}
