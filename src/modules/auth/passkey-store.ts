import type { Database } from 'bun:sqlite';

/** One row of auth_passkeys, in the shape the service works with. */
export interface StoredPasskey {
  credentialId: string;
  uuid: string;
  name: string;
  publicKey: Uint8Array<ArrayBuffer>;
  signCount: number;
  transports: string[];
  label: string;
  aaguid: string | null;
  backedUp: boolean;
  createdAt: number;
  lastUsedAt: number | null;
}

interface Row {
  credential_id: string;
  uuid: string;
  name: string;
  public_key: Uint8Array;
  sign_count: number;
  transports: string;
  label: string;
  aaguid: string | null;
  backed_up: number;
  created_at: number;
  last_used_at: number | null;
}

export type InsertOutcome = 'inserted' | 'duplicate' | 'limit';

/** SQL for auth_passkeys (migration 0001_auth.sql). Credential ids match exactly: no prefixes. */
export class PasskeyStore {
  constructor(private readonly db: Database) {}

  get(credentialId: string): StoredPasskey | null {
    const row = this.db.query<Row, [string]>('SELECT * FROM auth_passkeys WHERE credential_id = ?').get(credentialId);
    return row ? fromRow(row) : null;
  }

  /** The player's passkeys, newest first. */
  listOf(uuid: string): StoredPasskey[] {
    return this.db
      .query<Row, [string]>('SELECT * FROM auth_passkeys WHERE uuid = ? ORDER BY created_at DESC, credential_id')
      .all(uuid)
      .map(fromRow);
  }

  countOf(uuid: string): number {
    return this.db.query<{ n: number }, [string]>('SELECT count(*) AS n FROM auth_passkeys WHERE uuid = ?').get(uuid)?.n ?? 0;
  }

  /** Inserts unless the id is taken or the player already holds `maxPerUser` (checked in the same transaction). */
  insert(passkey: StoredPasskey, maxPerUser: number): InsertOutcome {
    return this.db.transaction((): InsertOutcome => {
      if (this.get(passkey.credentialId)) return 'duplicate';
      if (this.countOf(passkey.uuid) >= maxPerUser) return 'limit';
      this.db
        .query(
          `INSERT INTO auth_passkeys (credential_id, uuid, name, public_key, sign_count, transports, label, aaguid, backed_up, created_at, last_used_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          passkey.credentialId,
          passkey.uuid,
          passkey.name,
          passkey.publicKey,
          passkey.signCount,
          JSON.stringify(passkey.transports),
          passkey.label,
          passkey.aaguid,
          passkey.backedUp ? 1 : 0,
          passkey.createdAt,
          passkey.lastUsedAt,
        );
      return 'inserted';
    })();
  }

  /**
   * Records a successful login. The counter moves only forward (or stays 0 for authenticators
   * without one), so of two racing logins with the same counter only one wins.
   */
  recordUse(credentialId: string, expectedCount: number, newCount: number, backedUp: boolean, at: number): boolean {
    const result = this.db
      .query(
        `UPDATE auth_passkeys SET sign_count = ?, backed_up = ?, last_used_at = ?
         WHERE credential_id = ? AND sign_count = ?`,
      )
      .run(newCount, backedUp ? 1 : 0, at, credentialId, expectedCount);
    return result.changes === 1;
  }

  /** Deletes the credential only when it belongs to `uuid`. */
  delete(uuid: string, credentialId: string): boolean {
    return this.db.query('DELETE FROM auth_passkeys WHERE credential_id = ? AND uuid = ?').run(credentialId, uuid).changes === 1;
  }
}

function fromRow(row: Row): StoredPasskey {
  return {
    credentialId: row.credential_id,
    uuid: row.uuid,
    name: row.name,
    publicKey: new Uint8Array(row.public_key),
    signCount: row.sign_count,
    transports: parseTransports(row.transports),
    label: row.label,
    aaguid: row.aaguid,
    backedUp: row.backed_up === 1,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
  };
}

function parseTransports(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((t): t is string => typeof t === 'string') : [];
  } catch {
    return [];
  }
}
