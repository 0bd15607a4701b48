import { existsSync, readFileSync } from 'node:fs';
import { Type } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { writeFileAtomic } from '../config/write';

const NODE_SECRET = /^svcn_[A-Za-z0-9_-]{16,128}$/;
const FileSchema = Type.Object({
  version: Type.Literal(1),
  nodeId: Type.String({ minLength: 1, maxLength: 64 }),
  secret: Type.String({ pattern: NODE_SECRET.source }),
  enrolledAt: Type.String(),
});
const fileCheck = TypeCompiler.Compile(FileSchema);

export interface IdentityLog {
  warn(message: string): void;
  error(message: string): void;
}

/**
 * This node's own secret (`data/node.json`, owner-only, written atomically): handed out by
 * the controller when the node enrolled with the cluster token, presented at every later
 * login and on the cluster routes. The file is read again at every connect, so deleting it
 * (to enrol afresh after the operator forgot the node) needs no restart.
 *
 * The cluster token is sent only while there is no secret for this node_name: a refused
 * secret never makes the agent fall back to it (that would undo the operator's revocation).
 */
export class NodeIdentity {
  private current: { nodeId: string; secret: string; saved: boolean } | null = null;

  constructor(
    private readonly file: string,
    /** `agent.node_name`: a secret kept for another id is not this node's. */
    private readonly nodeId: string,
    private readonly log?: IdentityLog,
  ) {
    this.reload();
  }

  /**
   * The node secret (`svcn_…`) to present for this node on the channel and the cluster
   * routes, or null before the node has enrolled (then only the cluster token can enrol it).
   */
  secret(): string | null {
    return this.current?.nodeId === this.nodeId ? this.current.secret : null;
  }

  /** Whether the secret in use is kept in data/node.json (false: this session only, the file could not be written). */
  get persisted(): boolean {
    return this.current?.saved === true;
  }

  /** What AUTH_REQUEST carries: the node's secret when it has one, else the cluster token (an enrolment). */
  loginToken(clusterToken: string): string {
    return this.secret() ?? clusterToken;
  }

  /** Reads data/node.json again (what a login presents is what the file holds). */
  reload(): void {
    this.current = null;
    if (!existsSync(this.file)) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(this.file, 'utf8'));
    } catch (error) {
      this.log?.error(`${this.file} is not valid JSON (${(error as Error).message}): this node logs in with the cluster token, which the controller refuses once the node is enrolled; restore the file, or have the node forgotten on the controller and delete the file`);
      return;
    }
    if (!fileCheck.Check(parsed)) {
      this.log?.error(`${this.file} does not hold a node secret: this node logs in with the cluster token until it is repaired or removed`);
      return;
    }
    if (parsed.nodeId !== this.nodeId) {
      this.log?.warn(`${this.file} holds the secret of node ${parsed.nodeId}, but node_name is ${this.nodeId}: ${this.nodeId} enrols with the cluster token (its secret then replaces the file)`);
    }
    this.current = { nodeId: parsed.nodeId, secret: parsed.secret, saved: true };
  }

  /**
   * Keeps the secret the controller handed out at enrolment: written (0600, atomically)
   * before the agent does anything else with the session. When the file cannot be written,
   * the secret serves this session only and the next login enrols again (the controller
   * allows that while the enrolment is unconfirmed); the error is logged.
   */
  save(secret: string, now = new Date()): boolean {
    if (!NODE_SECRET.test(secret)) throw new Error('the controller sent a node secret of an unexpected form');
    try {
      writeFileAtomic(this.file, `${JSON.stringify({ version: 1, nodeId: this.nodeId, secret, enrolledAt: now.toISOString() }, null, 2)}\n`, { mode: 0o600 });
      this.current = { nodeId: this.nodeId, secret, saved: true };
      return true;
    } catch (error) {
      this.current = { nodeId: this.nodeId, secret, saved: false };
      this.log?.error(`the node secret could not be saved to ${this.file} (${(error as Error).message}): it serves this session only; the next login enrols the node again`);
      return false;
    }
  }
}
