import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { Type, type Static } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { ConfigError } from '../../config/load';
import { writeFileAtomic } from '../../config/write';
import type { NodeDirectory } from '../../core/auth';
import { newNodeSecret, secretDigest } from './secret';

const EnrolmentSchema = Type.Object({
  nodeId: Type.String({ pattern: '^[a-zA-Z0-9_-]{1,64}$' }),
  /** SHA-256 (hex) of the node's secret: the secret itself is never stored here. */
  secretSha256: Type.String({ pattern: '^[0-9a-f]{64}$' }),
  enrolledAt: Type.String(),
  /** Where players and proxies reach the node: its publicHost at enrolment, else the address it enrolled from, or what the operator set. */
  host: Type.String({ minLength: 1 }),
  /** The agent has logged in with its secret since it was handed out (it kept it). */
  confirmed: Type.Boolean(),
  lastSeenAt: Type.Union([Type.String(), Type.Null()]),
  revokedAt: Type.Union([Type.String(), Type.Null()]),
});
const FileSchema = Type.Object({ version: Type.Literal(1), nodes: Type.Array(EnrolmentSchema) });
const fileCheck = TypeCompiler.Compile(FileSchema);

export type NodeEnrolment = Static<typeof EnrolmentSchema>;

/**
 * The registry file exists but cannot be used: the controller must not start with an empty one
 * (any holder of the cluster token could take every id). The operator repairs or removes it.
 */
export class NodeRegistryError extends ConfigError {
  override name = 'NodeRegistryError';
}

/**
 * The enrolled nodes (`data/cluster/nodes.json`, owner-only, written atomically): who each
 * node id belongs to, by the digest of the secret handed out when it enrolled with the
 * cluster token. It is the API's NodeDirectory: a node's secret opens the cluster routes for
 * as long as the node is enrolled and not revoked.
 *
 * Every change is written before it takes effect; a write that fails leaves the registry as
 * it was (and the caller refuses what it was doing), so a secret is never handed out that a
 * restart would forget.
 */
export class NodeRegistry implements NodeDirectory {
  private nodes = new Map<string, NodeEnrolment>();
  /** Digest → node id, revoked nodes included (so a revoked node is told why). */
  private byDigest = new Map<string, string>();

  constructor(
    /** null: in memory only (tests). */
    private readonly file: string | null,
    private readonly options: { now?: () => Date } = {},
  ) {
    this.load();
  }

  /**
   * NodeDirectory: the node id of an enrolled, unrevoked node's secret (unconfirmed ones too:
   * the session that enrolled a node fetches its templates with the new secret). Only a login
   * with the secret confirms: the agent reads it back from its file for that.
   */
  identify(tokenSha256Hex: string): string | undefined {
    const nodeId = this.byDigest.get(tokenSha256Hex);
    const found = nodeId === undefined ? undefined : this.nodes.get(nodeId);
    return found && found.revokedAt === null ? found.nodeId : undefined;
  }

  /** The enrolment a presented secret (by its digest) belongs to, revoked or not. */
  ownerOf(tokenSha256Hex: string): NodeEnrolment | undefined {
    const nodeId = this.byDigest.get(tokenSha256Hex);
    return nodeId === undefined ? undefined : this.get(nodeId);
  }

  get(nodeId: string): NodeEnrolment | undefined {
    const found = this.nodes.get(nodeId);
    return found ? { ...found } : undefined;
  }

  list(): NodeEnrolment[] {
    return [...this.nodes.values()].map((n) => ({ ...n })).sort((a, b) => (a.nodeId < b.nodeId ? -1 : a.nodeId > b.nodeId ? 1 : 0));
  }

  /**
   * A new secret for `nodeId`, unconfirmed until the node logs in with it. Replaces an unconfirmed
   * enrolment (its old secret stops working); a confirmed or revoked one is never replaced here.
   */
  enrol(nodeId: string, host: string): { secret: string; replaced: boolean } {
    const previous = this.nodes.get(nodeId);
    if (previous?.revokedAt) throw new Error(`node ${nodeId} is revoked`);
    if (previous?.confirmed) throw new Error(`node ${nodeId} is enrolled already`);
    const secret = newNodeSecret();
    const now = this.timestamp();
    this.change(() => {
      this.nodes.set(nodeId, { nodeId, secretSha256: secretDigest(secret), enrolledAt: now, host, confirmed: false, lastSeenAt: now, revokedAt: null });
    });
    return { secret, replaced: previous !== undefined };
  }

  /** The node showed it holds its secret; true when that is news. */
  confirm(nodeId: string): boolean {
    const found = this.nodes.get(nodeId);
    if (!found || found.confirmed) return false;
    this.change(() => this.nodes.set(nodeId, { ...found, confirmed: true }));
    return true;
  }

  /** When the node was last on the channel (its logins and its disconnects). */
  seen(nodeId: string): void {
    const found = this.nodes.get(nodeId);
    if (!found) return;
    this.change(() => this.nodes.set(nodeId, { ...found, lastSeenAt: this.timestamp() }));
  }

  /** Its secret stops working at once; the id cannot enrol again until it is forgotten. Undefined when unknown. */
  revoke(nodeId: string): NodeEnrolment | undefined {
    const found = this.nodes.get(nodeId);
    if (!found) return undefined;
    if (found.revokedAt) return { ...found };
    const revoked = { ...found, revokedAt: this.timestamp() };
    this.change(() => this.nodes.set(nodeId, revoked));
    return { ...revoked };
  }

  /** Drops the enrolment: the id may enrol afresh with the cluster token. False when unknown. */
  forget(nodeId: string): boolean {
    if (!this.nodes.has(nodeId)) return false;
    this.change(() => this.nodes.delete(nodeId));
    return true;
  }

  /** The operator's choice of where players reach the node. */
  setHost(nodeId: string, host: string): NodeEnrolment | undefined {
    const found = this.nodes.get(nodeId);
    if (!found) return undefined;
    const changed = { ...found, host };
    this.change(() => this.nodes.set(nodeId, changed));
    return { ...changed };
  }

  /** Applies a change, writes the file, and undoes the change when the write fails. */
  private change(apply: () => void): void {
    const before = new Map(this.nodes);
    apply();
    try {
      this.save();
    } catch (error) {
      this.nodes = before;
      throw error;
    } finally {
      this.reindex();
    }
  }

  private reindex(): void {
    this.byDigest = new Map([...this.nodes.values()].map((n) => [n.secretSha256, n.nodeId]));
  }

  private timestamp(): string {
    return (this.options.now?.() ?? new Date()).toISOString();
  }

  private load(): void {
    if (!this.file || !existsSync(this.file)) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(this.file, 'utf8'));
    } catch (error) {
      throw new NodeRegistryError(`${this.file} is not valid JSON (${(error as Error).message}): repair it, or move it away to have every node enrol again`);
    }
    if (!fileCheck.Check(parsed)) {
      const first = [...fileCheck.Errors(parsed)][0];
      throw new NodeRegistryError(`${this.file} is not a node registry (${first ? `${first.path || '/'} ${first.message}` : 'unexpected shape'}): repair it, or move it away to have every node enrol again`);
    }
    this.nodes = new Map(parsed.nodes.map((n) => [n.nodeId, n]));
    this.reindex();
  }

  private save(): void {
    if (!this.file) return;
    const dir = dirname(this.file);
    if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
    const body = { version: 1 as const, nodes: this.list() };
    writeFileAtomic(this.file, `${JSON.stringify(body, null, 2)}\n`, { mode: 0o600 });
  }
}
