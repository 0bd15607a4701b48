/**
 * A console's command history, walked with ↑ and ↓ as in a shell: ↑ from the line being typed
 * keeps it as a draft that ↓ past the newest brings back. Kept per console in localStorage (at
 * most MAX entries, a repeat of the last one not added twice), so it outlives a reload.
 */
const MAX = 100;

export class CommandHistory {
  private entries: string[];
  /** Index into entries while walking; entries.length means "the draft". */
  private cursor: number;
  private draft = '';

  constructor(
    private readonly key: string | null,
    private readonly storage: Pick<Storage, 'getItem' | 'setItem'> | null = typeof localStorage === 'undefined' ? null : localStorage,
  ) {
    this.entries = this.load();
    this.cursor = this.entries.length;
  }

  /** Records a command that was run and ends any walk. */
  add(command: string): void {
    const text = command.trim();
    if (text !== '' && this.entries[this.entries.length - 1] !== text) {
      this.entries.push(text);
      if (this.entries.length > MAX) this.entries.splice(0, this.entries.length - MAX);
      this.save();
    }
    this.cursor = this.entries.length;
    this.draft = '';
  }

  /** The older entry (↑), or null when there is none; `current` is what the input holds now. */
  older(current: string): string | null {
    if (this.cursor === 0) return null;
    if (this.cursor === this.entries.length) this.draft = current;
    this.cursor -= 1;
    return this.entries[this.cursor] ?? null;
  }

  /** The newer entry (↓): the draft after the newest; null when not walking. */
  newer(): string | null {
    if (this.cursor >= this.entries.length) return null;
    this.cursor += 1;
    return this.cursor === this.entries.length ? this.draft : (this.entries[this.cursor] ?? null);
  }

  private load(): string[] {
    if (!this.key || !this.storage) return [];
    try {
      const value: unknown = JSON.parse(this.storage.getItem(this.key) ?? '[]');
      return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string').slice(-MAX) : [];
    } catch {
      return [];
    }
  }

  private save(): void {
    if (!this.key || !this.storage) return;
    try {
      this.storage.setItem(this.key, JSON.stringify(this.entries));
    } catch {
      // a full or refused storage only costs the history after a reload
    }
  }
}
