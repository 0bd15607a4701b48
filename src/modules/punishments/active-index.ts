import { CHAT_BLOCKING, LOGIN_BLOCKING, type Punishment } from './model';

const EMPTY: readonly Punishment[] = [];

/**
 * The records in force, in memory, keyed the way the hot paths ask: login blockers by the
 * banned account (an IP ban included: it keeps its account out on any address) and IP bans
 * by address, mutes by account. Kept in step with the table by the service: added on issue,
 * removed on revoke, supersede and expiry. Records past their end stay until the expiry loop
 * removes them; the checks skip them meanwhile.
 */
export class ActiveIndex {
  private readonly blocksByUuid = new Map<string, Punishment[]>();
  private readonly blocksByIp = new Map<string, Punishment[]>();
  private readonly mutesByUuid = new Map<string, Punishment[]>();
  private readonly byId = new Map<number, Punishment>();

  get size(): number {
    return this.byId.size;
  }

  load(records: Iterable<Punishment>): void {
    this.blocksByUuid.clear();
    this.blocksByIp.clear();
    this.mutesByUuid.clear();
    this.byId.clear();
    for (const p of records) this.add(p);
  }

  add(p: Punishment): void {
    if (!p.active || this.byId.has(p.id)) return;
    if (LOGIN_BLOCKING.has(p.type)) {
      push(this.blocksByUuid, p.targetUuid, p);
      if (p.type === 'IPBAN' && p.targetIp !== null) push(this.blocksByIp, p.targetIp, p);
    } else if (CHAT_BLOCKING.has(p.type)) {
      push(this.mutesByUuid, p.targetUuid, p);
    } else {
      return;
    }
    this.byId.set(p.id, p);
  }

  remove(id: number): void {
    const p = this.byId.get(id);
    if (!p) return;
    this.byId.delete(id);
    pull(this.blocksByUuid, p.targetUuid, id);
    pull(this.mutesByUuid, p.targetUuid, id);
    if (p.targetIp !== null) pull(this.blocksByIp, p.targetIp, id);
  }

  /** Login blockers for this account or address (an IP ban found both ways appears once). */
  loginCandidates(uuid: string, ip: string | undefined): readonly Punishment[] {
    const byAccount = this.blocksByUuid.get(uuid) ?? EMPTY;
    const byAddress = ip === undefined ? EMPTY : (this.blocksByIp.get(ip) ?? EMPTY);
    if (byAddress.length === 0) return byAccount;
    if (byAccount.length === 0) return byAddress;
    return [...byAccount, ...byAddress.filter((p) => p.targetUuid !== uuid)];
  }

  muteCandidates(uuid: string): readonly Punishment[] {
    return this.mutesByUuid.get(uuid) ?? EMPTY;
  }

  /** Active records of one player (supersede and the console's unban/unmute look here). */
  ofPlayer(uuid: string): Punishment[] {
    return [...(this.blocksByUuid.get(uuid) ?? EMPTY), ...(this.mutesByUuid.get(uuid) ?? EMPTY)];
  }
}

function push(map: Map<string, Punishment[]>, key: string, p: Punishment): void {
  const list = map.get(key);
  if (list) list.push(p);
  else map.set(key, [p]);
}

function pull(map: Map<string, Punishment[]>, key: string, id: number): void {
  const list = map.get(key);
  if (!list) return;
  const kept = list.filter((p) => p.id !== id);
  if (kept.length === 0) map.delete(key);
  else if (kept.length !== list.length) map.set(key, kept);
}
