import { existsSync, readFileSync } from 'node:fs';
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { writeFileAtomic } from '../../config/write';
import { SERVICE_STATES } from './lifecycle';

/** One service as the controller left it, enough to find its process again after a restart. */
export const PersistedServiceSchema = Type.Object({
  name: Type.String(),
  group: Type.String(),
  state: Type.Union(SERVICE_STATES.map((s) => Type.Literal(s))),
  port: Type.Integer(),
  workDir: Type.String(),
  stateDir: Type.String(),
  isStatic: Type.Boolean(),
  restartCount: Type.Integer(),
  customState: Type.String(),
  // Optional: files written before warm pools and dedicated services lack them.
  isDedicated: Type.Optional(Type.Boolean()),
  pooled: Type.Optional(Type.Boolean()),
  proxyEnabled: Type.Optional(Type.Boolean()),
  /** A service on an agent: its node, and the pid and start the agent reported. */
  nodeId: Type.Optional(Type.String()),
  pid: Type.Optional(Type.Integer()),
  startedAt: Type.Optional(Type.Integer()),
});
export type PersistedService = Static<typeof PersistedServiceSchema>;

const StateFileSchema = Type.Object({ version: Type.Literal(1), services: Type.Array(PersistedServiceSchema) });

/** `data/state/services.json`, written atomically (not durably) on every change that matters after a restart. */
export class ServiceStateFile {
  constructor(readonly file: string) {}

  save(services: PersistedService[]): void {
    // Not fsync'd: it is there for a controller that was killed, and the page cache outlives it;
    // after a power loss there is no live process left to find.
    writeFileAtomic(this.file, `${JSON.stringify({ version: 1, services })}\n`, { durable: false });
  }

  /** What the last controller left; an unreadable file is reported and treated as empty. */
  load(): { services: PersistedService[]; problem: string | null } {
    if (!existsSync(this.file)) return { services: [], problem: null };
    try {
      const parsed: unknown = JSON.parse(readFileSync(this.file, 'utf8'));
      if (!Value.Check(StateFileSchema, parsed)) return { services: [], problem: `${this.file} has an unexpected shape; ignored` };
      return { services: parsed.services, problem: null };
    } catch (error) {
      return { services: [], problem: `${this.file} cannot be read (${(error as Error).message}); ignored` };
    }
  }
}
