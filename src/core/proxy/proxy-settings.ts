import type { Database } from 'bun:sqlite';
import type { EventBus } from '../../events/bus';
import type { Actor } from '../../events/catalogue';
import type { Logger } from '../../log';
import { Coalescer } from './coalescer';
import { ProxyFileSchema, type Chat, type Motd, type Tablist } from './model';
import { SettingsFile } from './settings-file';

/** Changes to one setting within this window reach the bridge as one event (the latest value). */
export const COALESCE_MS = 500;

const HEADER = [
  'What the proxy bridge shows: tab list, server-list MOTD, chat format.',
  'Managed by svc (/api/proxy/*); hand edits load on start and on POST /api/reload.',
  'Texts are MiniMessage; placeholders {online} {max} {player} {server} {group} {prefix} {suffix} {message}.',
].join('\n');

/**
 * Tab list, MOTD, chat format (config/proxy.toml) and per-player tab names (the database).
 * Every change is durable before it is acknowledged; its event follows, coalesced per
 * setting (per player for tab names) so a burst of edits does not flood the proxies.
 */
export class ProxySettings {
  private readonly file: SettingsFile<typeof ProxyFileSchema>;
  private current: { tablist: Tablist; motd: Motd; chat: Chat };
  private readonly coalescer: Coalescer;

  constructor(
    private readonly deps: { file: string; db: Database; bus: EventBus; log: Logger },
    coalesceMs = COALESCE_MS,
  ) {
    this.file = new SettingsFile(deps.file, ProxyFileSchema, HEADER, deps.log);
    this.current = this.file.load();
    this.coalescer = new Coalescer(coalesceMs);
  }

  get tablist(): Tablist {
    return { ...this.current.tablist };
  }

  get motd(): Motd {
    return { ...this.current.motd };
  }

  get chat(): Chat {
    return { ...this.current.chat };
  }

  updateTablist(change: Partial<Tablist>, actor: Actor): Tablist {
    this.persist({ ...this.current, tablist: { ...this.current.tablist, ...defined(change) } });
    this.coalescer.push('tablist', () => this.deps.bus.publish('TABLIST_UPDATED', this.current.tablist, actor));
    return this.tablist;
  }

  updateMotd(change: Partial<Motd>, actor: Actor): Motd {
    this.persist({ ...this.current, motd: { ...this.current.motd, ...defined(change) } });
    this.coalescer.push('motd', () => this.deps.bus.publish('MOTD_UPDATED', this.current.motd, actor));
    return this.motd;
  }

  updateChat(change: Partial<Chat>, actor: Actor): Chat {
    this.persist({ ...this.current, chat: { ...this.current.chat, ...defined(change) } });
    this.coalescer.push('chat', () => this.deps.bus.publish('CHAT_FORMAT_UPDATED', this.current.chat, actor));
    return this.chat;
  }

  /** Every per-player tab name, by uuid. */
  playerTabs(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const row of this.deps.db.query<{ uuid: string; format: string }, []>('SELECT uuid, format FROM player_tab_formats ORDER BY uuid').all()) out[row.uuid] = row.format;
    return out;
  }

  setPlayerTab(uuid: string, format: string, actor: Actor): void {
    this.deps.db.run('INSERT INTO player_tab_formats (uuid, format, updated_at) VALUES (?, ?, ?) ON CONFLICT (uuid) DO UPDATE SET format = excluded.format, updated_at = excluded.updated_at', [uuid, format, Date.now()]);
    this.pushPlayerTab(uuid, actor);
  }

  /** Clears a player's tab name; false when there was none (nothing changes, no event). */
  clearPlayerTab(uuid: string, actor: Actor): boolean {
    const { changes } = this.deps.db.run('DELETE FROM player_tab_formats WHERE uuid = ?', [uuid]);
    if (changes === 0) return false;
    this.pushPlayerTab(uuid, actor);
    return true;
  }

  /** Re-reads config/proxy.toml (POST /api/reload); what changed is published at once. */
  reload(actor: Actor): string[] {
    const before = this.current;
    this.current = this.file.load();
    const changed: string[] = [];
    if (!sameValues(before.tablist, this.current.tablist)) {
      changed.push('tablist');
      this.coalescer.push('tablist', () => this.deps.bus.publish('TABLIST_UPDATED', this.current.tablist, actor));
    }
    if (!sameValues(before.motd, this.current.motd)) {
      changed.push('motd');
      this.coalescer.push('motd', () => this.deps.bus.publish('MOTD_UPDATED', this.current.motd, actor));
    }
    if (!sameValues(before.chat, this.current.chat)) {
      changed.push('chat');
      this.coalescer.push('chat', () => this.deps.bus.publish('CHAT_FORMAT_UPDATED', this.current.chat, actor));
    }
    return changed;
  }

  /** Sends what is still waiting in a coalescing window (controller stop). */
  flush(): void {
    this.coalescer.flush();
  }

  private pushPlayerTab(uuid: string, actor: Actor): void {
    // The event carries the state at emission time: a set then a clear within one window is one event without `format`.
    this.coalescer.push(`tab:${uuid}`, () => {
      const row = this.deps.db.query<{ format: string }, [string]>('SELECT format FROM player_tab_formats WHERE uuid = ?').get(uuid);
      this.deps.bus.publish('PLAYER_TAB_UPDATED', { uuid, format: row?.format }, actor);
    });
  }

  private persist(next: { tablist: Tablist; motd: Motd; chat: Chat }): void {
    this.file.save(next);
    this.current = next;
  }
}

/** The fields a partial update really sets (JSON has no undefined, but callers in code might). */
function defined<T extends object>(change: Partial<T>): Partial<T> {
  return Object.fromEntries(Object.entries(change).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function sameValues(a: object, b: object): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
