import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { writeFileAtomic } from '../../config/write';
import { TENANT_ROLES, TENANT_TOKEN_PREFIX, type TenantDirectory, type TenantIdentity, type TenantRole } from './identity';

const EntrySchema = Type.Object({
  service: Type.String({ minLength: 1 }),
  role: Type.Union(TENANT_ROLES.map((r) => Type.Literal(r))),
  /** SHA-256 of the token, hex: the token itself is never stored. */
  sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }),
});
const FileSchema = Type.Object({ version: Type.Literal(1), credentials: Type.Array(EntrySchema) });
type Entry = Static<typeof EntrySchema>;

/** Whether a service of this name is running now (or starting, or stopping): its credential counts only then. */
export type LivenessCheck = (service: string) => boolean;

/** What a launch needs: a fresh credential for the service it starts. */
export type CredentialIssuer = Pick<ServiceCredentials, 'issue'>;

export interface CredentialLog {
  warn(message: string): void;
}

/**
 * Each game server's own API credential, handed to it as `SVC_API_TOKEN` when its process is
 * launched: bound to the service's name and role (proxy or backend), never the master token
 * nor the shared derived token. It opens only what its role's plugins call (routes declare
 * that with `tenants`), and only while the service is active: a stopped or crashed service's
 * credential is refused at once, and each launch replaces the previous one.
 *
 * Only SHA-256 digests are kept, in an owner-only file (`data/state/service-credentials.json`)
 * written before the process gets its token, so a server re-attached by a restarted controller
 * keeps working. The same store serves services on agents: the controller mints their
 * credentials too, and they call the controller's API with them.
 */
export class ServiceCredentials implements TenantDirectory {
  private readonly byHash = new Map<string, TenantIdentity>();
  private readonly hashOf = new Map<string, string>();

  constructor(
    private readonly file: string | null,
    private readonly isLive: LivenessCheck,
    private readonly log?: CredentialLog,
  ) {
    this.load();
  }

  /** A fresh credential for a launch of `service`; the one it held before stops working. */
  issue(service: string, role: TenantRole): string {
    const token = `${TENANT_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
    const sha256 = createHash('sha256').update(token).digest('hex');
    this.forget(service);
    this.byHash.set(sha256, { service, role });
    this.hashOf.set(service, sha256);
    this.save();
    return token;
  }

  /** Withdraws a service's credential now (it is also refused once the service is no longer active). */
  revoke(service: string): void {
    if (!this.hashOf.has(service)) return;
    this.forget(service);
    this.save();
  }

  identify(tokenSha256Hex: string): TenantIdentity | undefined {
    const found = this.byHash.get(tokenSha256Hex);
    if (!found || !this.isLive(found.service)) return undefined;
    return found;
  }

  /** How many credentials are on record (live or not): for tests and the doctor. */
  get size(): number {
    return this.hashOf.size;
  }

  private forget(service: string): void {
    const previous = this.hashOf.get(service);
    if (previous === undefined) return;
    this.byHash.delete(previous);
    this.hashOf.delete(service);
  }

  private load(): void {
    if (!this.file || !existsSync(this.file)) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(this.file, 'utf8'));
    } catch (error) {
      this.log?.warn(`${this.file} cannot be read (${(error as Error).message}): running servers must be restarted to get a working SVC_API_TOKEN`);
      return;
    }
    if (!Value.Check(FileSchema, parsed)) {
      this.log?.warn(`${this.file} has an unexpected shape: running servers must be restarted to get a working SVC_API_TOKEN`);
      return;
    }
    for (const entry of parsed.credentials) {
      this.byHash.set(entry.sha256, { service: entry.service, role: entry.role });
      this.hashOf.set(entry.service, entry.sha256);
    }
  }

  private save(): void {
    if (!this.file) return;
    const credentials: Entry[] = [];
    for (const [service, sha256] of this.hashOf) credentials.push({ service, role: this.byHash.get(sha256)!.role, sha256 });
    // Durable: the process is handed its token right after this, and must find it valid after a crash of ours.
    writeFileAtomic(this.file, `${JSON.stringify({ version: 1, credentials })}\n`, { mode: 0o600 });
  }
}
