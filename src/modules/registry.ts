import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { registerErrorCodes } from '../errors';
import { parseTomlAgainst } from '../config/load';
import { renderDefaultToml } from '../config/render';
import { writeFileAtomic } from '../config/write';
import type { AnyRoute } from '../http/route';
import type { Kernel } from '../kernel';
import type { Logger } from '../log';
import { migrate } from '../storage/migrate';
import type { DashboardManifest, ModuleContext, SvcModule } from './module';
import type { DoctorSection } from '../core/doctor/model';

export interface ModuleInfo {
  id: string;
  name: string;
  version: string;
  description: string;
  status: 'active' | 'available';
  dashboard: DashboardManifest | null;
}

const MODULE_ID = /^[a-z][a-z0-9-]{0,31}$/;

/** Holds the modules compiled into this binary and runs their lifecycle. */
export class ModuleRegistry {
  private readonly started: { module: SvcModule; ctx: ModuleContext }[] = [];

  constructor(private readonly modules: readonly SvcModule[]) {
    const seen = new Set<string>();
    for (const m of modules) {
      if (!MODULE_ID.test(m.id)) throw new Error(`module id "${m.id}" must match ${MODULE_ID}`);
      if (m.id === 'core') throw new Error('module id "core" is reserved for the core schema');
      if (seen.has(m.id)) throw new Error(`module "${m.id}" registered twice`);
      seen.add(m.id);
    }
  }

  async start(kernel: Kernel): Promise<void> {
    for (const module of this.modules) {
      const log = kernel.log.child({ area: `module:${module.id}` });
      if (module.errors) registerErrorCodes(module.errors);
      if (module.migrations) migrate(kernel.db, module.id, module.migrations);
      const dir = join(kernel.dir, 'config', 'modules', module.id);
      const config = module.configSchema ? loadModuleConfig(module, dir, log) : {};
      const ctx: ModuleContext = { kernel, log, config, dir };
      await module.init?.(ctx);
      for (const command of module.commands?.(ctx) ?? []) kernel.commands.register(command);
      this.started.push({ module, ctx });
      kernel.bus.publish('MODULE_LOADED', { moduleId: module.id, moduleName: module.name, moduleVersion: module.version });
      log.info({ version: module.version }, 'module loaded');
    }
  }

  /** The doctor sections of every started module, in start order. */
  doctorSections(): DoctorSection[] {
    return this.started.flatMap(({ module, ctx }) => module.doctorChecks?.(ctx) ?? []);
  }

  routes(): AnyRoute[] {
    return this.started.flatMap(({ module, ctx }) => module.routes?.(ctx) ?? []);
  }

  list(): ModuleInfo[] {
    const active = new Set(this.started.map((s) => s.module.id));
    return this.modules.map((m) => ({
      id: m.id,
      name: m.name,
      version: m.version,
      description: m.description,
      status: active.has(m.id) ? 'active' : 'available',
      dashboard: m.dashboard ?? null,
    }));
  }

  async stop(): Promise<void> {
    for (const { module, ctx } of this.started.reverse()) {
      try {
        await module.stop?.();
      } catch (error) {
        ctx.log.error({ err: error }, 'module stop failed');
      }
    }
    this.started.length = 0;
  }
}

function loadModuleConfig(module: SvcModule, dir: string, log: Logger): Record<string, Record<string, unknown>> {
  const schema = module.configSchema!;
  const file = join(dir, `${module.id}.toml`);
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    writeFileAtomic(file, renderDefaultToml(schema, `${module.name} module configuration`));
  }
  const { value, warnings } = parseTomlAgainst(schema, readFileSync(file, 'utf8'), file);
  for (const warning of warnings) log.warn(warning);
  return value;
}
