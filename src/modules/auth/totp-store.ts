import type { Database } from 'bun:sqlite';

/** One row of auth_totp as the service reads it. */
export interface TotpRow {
  uuid: string;
  /** The base32 secret sealed with session.key. */
  secretEnc: Uint8Array;
  enabled: boolean;
  createdAt: number;
  enabledAt: number | null;
  /** The newest 30-second step accepted; no step at or below it is accepted again. */
  lastUsedStep: number | null;
}

interface RawRow {
  uuid: string;
  secretEnc: Uint8Array;
  enabled: number;
  createdAt: number;
  enabledAt: number | null;
  lastUsedStep: number | null;
}

const COLUMNS = 'uuid, secret_enc AS secretEnc, enabled, created_at AS createdAt, enabled_at AS enabledAt, last_used_step AS lastUsedStep';

/**
 * SQL for auth_totp and auth_recovery_codes. Every write that decides a login is a conditional
 * UPDATE whose changed-row count is the answer, so two connections racing on one code (or one
 * recovery code) cannot both win.
 */
export class TotpStore {
  constructor(private readonly db: Database) {}

  get(uuid: string): TotpRow | undefined {
    const row = this.db.query<RawRow, [string]>(`SELECT ${COLUMNS} FROM auth_totp WHERE uuid = ?`).get(uuid);
    return row ? { ...row, enabled: row.enabled !== 0 } : undefined;
  }

  /** Every stored secret, for counting those the current key cannot open. */
  sealedSecrets(): Uint8Array[] {
    return this.db
      .query<{ secretEnc: Uint8Array }, []>('SELECT secret_enc AS secretEnc FROM auth_totp')
      .all()
      .map((row) => row.secretEnc);
  }

  /**
   * Writes a pending enrolment with its recovery codes, replacing any pending one and its codes.
   * False (and nothing written) when the uuid's TOTP is enabled: the check and the write are one
   * statement, so a confirm landing in between cannot be overwritten.
   */
  replacePending(uuid: string, secretEnc: Uint8Array, codeHashes: readonly string[], at: number): boolean {
    return this.db.transaction(() => {
      const written = this.db
        .query(
          `INSERT INTO auth_totp (uuid, secret_enc, enabled, created_at, enabled_at, last_used_step) VALUES (?1, ?2, 0, ?3, NULL, NULL)
           ON CONFLICT (uuid) DO UPDATE SET secret_enc = ?2, created_at = ?3, enabled_at = NULL, last_used_step = NULL WHERE auth_totp.enabled = 0`,
        )
        .run(uuid, secretEnc, at).changes;
      if (written === 0) return false;
      this.db.query('DELETE FROM auth_recovery_codes WHERE uuid = ?').run(uuid);
      const insert = this.db.query('INSERT INTO auth_recovery_codes (uuid, code_hash, consumed_at) VALUES (?, ?, NULL)');
      for (const hash of codeHashes) insert.run(uuid, hash);
      return true;
    })();
  }

  /**
   * Enables the pending enrolment sealed as `secretEnc` (the one the code was checked against) and
   * records `step` as used. False when it is gone, was replaced, is already enabled, or the step
   * was taken meanwhile.
   */
  enable(uuid: string, secretEnc: Uint8Array, step: number, at: number): boolean {
    return (
      this.db
        .query(
          `UPDATE auth_totp SET enabled = 1, enabled_at = ?1, last_used_step = ?2
           WHERE uuid = ?3 AND enabled = 0 AND secret_enc = ?4 AND (last_used_step IS NULL OR last_used_step < ?2)`,
        )
        .run(at, step, uuid, secretEnc).changes > 0
    );
  }

  /** Takes `step` for an enabled enrolment; false when that step or a newer one was taken first. */
  acceptStep(uuid: string, step: number): boolean {
    return (
      this.db
        .query('UPDATE auth_totp SET last_used_step = ?1 WHERE uuid = ?2 AND enabled = 1 AND (last_used_step IS NULL OR last_used_step < ?1)')
        .run(step, uuid).changes > 0
    );
  }

  /** Marks one of the uuid's recovery codes used; false when unknown, another uuid's, or used. */
  consumeRecoveryCode(uuid: string, codeHash: string, at: number): boolean {
    return (
      this.db
        .query('UPDATE auth_recovery_codes SET consumed_at = ? WHERE uuid = ? AND code_hash = ? AND consumed_at IS NULL')
        .run(at, uuid, codeHash).changes > 0
    );
  }

  remainingRecoveryCodes(uuid: string): number {
    return this.db
      .query<{ n: number }, [string]>('SELECT count(*) AS n FROM auth_recovery_codes WHERE uuid = ? AND consumed_at IS NULL')
      .get(uuid)!.n;
  }

  /** Drops the uuid's secret and every recovery code. */
  remove(uuid: string): void {
    this.db.transaction(() => {
      this.db.query('DELETE FROM auth_totp WHERE uuid = ?').run(uuid);
      this.db.query('DELETE FROM auth_recovery_codes WHERE uuid = ?').run(uuid);
    })();
  }
}
