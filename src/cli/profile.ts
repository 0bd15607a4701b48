import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'smol-toml';
import { writeFileAtomic } from '../config/write';

/** A saved controller: where it is and the token to use. */
export interface Profile {
  url: string;
  token: string;
}

const PROFILE_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** `$XDG_CONFIG_HOME/svc`, else `~/.config/svc`: the CLI's profiles and history. */
export function cliConfigDir(env: Record<string, string | undefined> = process.env): string {
  return join(env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config'), 'svc');
}

/**
 * cli.toml in the CLI's config dir: `[profiles.<name>] url, token`. It holds tokens, so it is
 * written owner-only, atomically; a file that cannot be parsed is an error naming it, never
 * silently replaced.
 */
export class ProfileFile {
  readonly path: string;

  constructor(dir: string) {
    this.path = join(dir, 'cli.toml');
  }

  get(name: string): Profile | undefined {
    const entry = this.read()[name];
    return entry && typeof entry.url === 'string' && typeof entry.token === 'string' ? { url: entry.url, token: entry.token } : undefined;
  }

  names(): string[] {
    return Object.keys(this.read()).sort();
  }

  save(name: string, profile: Profile): void {
    if (!PROFILE_NAME.test(name)) throw new Error(`profile name "${name}" may use letters, digits, _ . - (at most 64)`);
    const profiles = { ...this.read(), [name]: profile };
    const header = '# svc cli profiles: svc cli --profile <name>. Holds API tokens: keep it private (mode 0600).\n';
    writeFileAtomic(this.path, header + stringify({ profiles }), { mode: 0o600 });
  }

  private read(): Record<string, Record<string, unknown>> {
    if (!existsSync(this.path)) return {};
    let parsed: Record<string, unknown>;
    try {
      parsed = parse(readFileSync(this.path, 'utf8'));
    } catch (error) {
      throw new Error(`${this.path} is not valid TOML (${(error as Error).message.split('\n')[0]}); fix or remove it`);
    }
    const profiles = parsed.profiles;
    return profiles && typeof profiles === 'object' ? (profiles as Record<string, Record<string, unknown>>) : {};
  }
}
