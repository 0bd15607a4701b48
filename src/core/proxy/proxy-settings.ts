import type { Database } from 'bun:sqlite';
import type { EventBus } from '../../events/bus';
import type { Actor } from '../../events/catalogue';
import type { Logger } from '../../log';
import { Coalescer } from './coalescer';
import { ProxyFileSchema, type Chat, type Motd, type Tablist } from './model';
import { SettingsFile } from '../../config/unit/settings-file';

interface Settings {
  tablist: Tablist;
  motd: Motd;
  chat: Chat;
}
type Section = keyof Settings;
const SECTIONS: readonly Section[] = ['tablist', 'motd', 'chat'];

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
  private current: Settings;
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
    return this.update('tablist', change, actor);
  }

  updateMotd(change: Partial<Motd>, actor: Actor): Motd {
    return this.update('motd', change, actor);
  }

  updateChat(change: Partial<Chat>, actor: Actor): Chat {
    return this.update('chat', change, actor);
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

  /** Re-reads config/proxy.toml (POST /api/reload); each section that changed is announced. */
  reload(actor: Actor): Section[] {
    const before = this.current;
    this.current = this.file.load();
    const changed = SECTIONS.filter((section) => JSON.stringify(before[section]) !== JSON.stringify(this.current[section]));
    for (const section of changed) this.announce(section, actor);
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

  /** Writes the merged section durably, then announces it (coalesced). */
  private update<K extends Section>(section: K, change: Partial<Settings[K]>, actor: Actor): Settings[K] {
    const next = { ...this.current, [section]: { ...this.current[section], ...defined(change) } };
    this.file.save(next);
    this.current = next;
    this.announce(section, actor);
    return { ...this.current[section] };
  }

  /** The section's event, carrying its value at emission time. */
  private announce(section: Section, actor: Actor): void {
    this.coalescer.push(section, () => {
      if (section === 'tablist') this.deps.bus.publish('TABLIST_UPDATED', this.current.tablist, actor);
      else if (section === 'motd') this.deps.bus.publish('MOTD_UPDATED', this.current.motd, actor);
      else this.deps.bus.publish('CHAT_FORMAT_UPDATED', this.current.chat, actor);
    });
  }
}

/** The fields a partial update really sets (JSON has no undefined, but callers in code might). */
function defined<T extends object>(change: Partial<T>): Partial<T> {
  return Object.fromEntries(Object.entries(change).filter(([, v]) => v !== undefined)) as Partial<T>;
}
