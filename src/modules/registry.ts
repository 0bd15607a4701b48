import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { ApiError } from '../errors';
import { join } from 'node:path';
import { registerErrorCodes } from '../errors';
import { registerModuleEvents } from '../events/catalogue';
import { ConfigError } from '../config/unit/config-error';
import { SectionsFile, type SectionsSchema } from '../config/unit/sections-file';
import { fail } from '../core/doctor/model';
import { writeFileAtomic } from '../config/write';
import type { AnyRoute } from '../http/route';
import type { Kernel } from '../kernel';
import type { Logger } from '../log';
import { migrate } from '../storage/migrate';
import { startupMark } from '../startup-trace';
import { kernelView } from './kernel-view';
import type { ModuleContext, ModuleEntry, ModuleManifest, SvcModule } from './module';
import type { ModuleServices } from './services';
import type { ModuleHost, ModuleInfo } from '../core/module-host';
import type { DoctorSection } from '../core/doctor/model';

export type { ModuleInfo };

const MODULE_ID = /^[a-z][a-z0-9-]{0,31}$/;
const MODULE_FILE = '.module';

/**
 * Holds the modules compiled into this binary and runs their lifecycle. Which of them load is
 * decided by `modules/<id>.module` files in the working directory: on the very first start
 * (no modules/ folder) every module is installed; `install` writes a module's file and
 * `uninstall` removes it, each taking effect on the next start.
 */
export class ModuleRegistry implements ModuleHost {
  private readonly started: { module: SvcModule; ctx: ModuleContext }[] = [];
  private readonly provided = new Map<keyof ModuleServices, ModuleServices[keyof ModuleServices]>();
  private dir: string | null = null;
  private readonly configProblems: string[] = [];
  /** Modules whose start failed this run, with the reason. */
  private readonly failures = new Map<string, string>();

  constructor(private readonly modules: readonly ModuleEntry[]) {
    const seen = new Set<string>();
    for (const m of modules) {
      if (!MODULE_ID.test(m.id)) throw new Error(`module id "${m.id}" must match ${MODULE_ID}`);
      if (m.id === 'core') throw new Error('module id "core" is reserved for the core schema');
      if (seen.has(m.id)) throw new Error(`module "${m.id}" registered twice`);
      seen.add(m.id);
      // Every compiled-in module's codes and events are known, installed or not: a client may
      // meet them (and the audit log may hold them) whichever modules this start loads.
      registerContract(m);
    }
  }

  async start(kernel: Kernel): Promise<void> {
    this.dir = join(kernel.dir, 'modules');
    if (!existsSync(this.dir)) {
      mkdirSync(this.dir, { recursive: true });
      for (const module of this.modules) this.writeFile(module);
    }
    for (const file of readdirSync(this.dir).filter((f) => f.endsWith(MODULE_FILE))) {
      const id = file.slice(0, -MODULE_FILE.length);
      if (!this.modules.some((m) => m.id === id)) kernel.log.warn({ file: join(this.dir, file) }, `module file for "${id}", which this build does not contain: ignored`);
    }
    for (const entry of this.modules) {
      if (!this.isInstalled(entry.id)) continue;
      const log = kernel.log.child({ area: `module:${entry.id}` });
      let module: SvcModule;
      try {
        module = 'load' in entry ? await entry.load() : entry;
        startupMark(`module ${entry.id} code loaded`);
        if (module.id !== entry.id) throw new Error(`the code loaded for module "${entry.id}" says it is "${module.id}"`);
      } catch (error) {
        this.failures.set(entry.id, error instanceof Error ? error.message : String(error));
        log.error({ err: error }, `module "${entry.id}" could not be loaded; it is off until the next start, the rest runs on`);
        continue;
      }
      registerContract(module);
      if (module.migrations) migrate(kernel.db, module.id, module.migrations);
      const dir = join(kernel.dir, 'config', 'modules', module.id);
      const config = module.configSchema ? this.loadConfig(module, module.configSchema, dir, log) : {};
      // A module that declared `uses` gets a view with those members only (its hooks are typed
      // by the same list); one without (a test's throwaway module) gets the kernel itself. Typed
      // here as the whole kernel: the registry reads only ctx.log, the module's own U is erased.
      const ctx: ModuleContext = { kernel: module.uses ? kernelView(kernel, module.uses) : kernel, log, config, dir };
      try {
        await module.init?.(ctx);
        for (const command of module.commands?.(ctx) ?? []) kernel.commands.register(command);
      } catch (error) {
        await this.disable(kernel, module, ctx, 'init', error);
        continue;
      }
      this.started.push({ module, ctx });
      startupMark(`module ${module.id} started`);
      kernel.bus.publish('MODULE_LOADED', { moduleId: module.id, moduleName: module.name, moduleVersion: module.version });
      log.info({ version: module.version }, 'module loaded');
    }
  }

  /**
   * Calls every started module's ready hook, in start order, once services are recovered; a
   * module whose hook throws is stopped and left out (its routes are not mounted). Each one
   * that is ready publishes MODULE_ENABLED.
   */
  async ready(kernel: Kernel): Promise<void> {
    for (const entry of [...this.started]) {
      const { module, ctx } = entry;
      try {
        await module.ready?.(ctx);
      } catch (error) {
        this.started.splice(this.started.indexOf(entry), 1);
        await this.disable(kernel, module, ctx, 'ready', error);
        continue;
      }
      kernel.bus.publish('MODULE_ENABLED', { moduleId: module.id, moduleName: module.name });
    }
  }

  /**
   * A module that failed to start: stopped (what it set up is released), reported, and off for
   * this run; the controller and the other modules go on.
   */
  private async disable(kernel: Kernel, module: SvcModule, ctx: ModuleContext, stage: 'init' | 'ready', error: unknown): Promise<void> {
    const reason = error instanceof Error ? error.message : String(error);
    this.failures.set(module.id, reason);
    ctx.log.error({ err: error }, `module "${module.id}" failed to start (${stage}): ${reason}; it is off until the next start, the rest runs on`);
    try {
      await module.stop?.(ctx);
    } catch (stopError) {
      ctx.log.warn({ err: stopError }, 'module stop after a failed start failed too');
    }
    kernel.bus.publish('MODULE_DISABLED', { moduleId: module.id, moduleName: module.name });
  }

  /** Offers a typed service to core and other modules (during init); one provider per key. */
  provide<K extends keyof ModuleServices>(key: K, service: ModuleServices[K]): void {
    if (this.provided.has(key)) throw new Error(`module service "${key}" is provided twice`);
    this.provided.set(key, service);
  }

  /** The typed service under `key`; undefined when the module that provides it is not loaded. */
  lookup<K extends keyof ModuleServices>(key: K): ModuleServices[K] | undefined {
    return this.provided.get(key) as ModuleServices[K] | undefined;
  }

  /** The doctor sections of every started module, in start order (config files that could not be used first). */
  doctorSections(): DoctorSection[] {
    const problems = [...this.configProblems];
    const files: DoctorSection[] = problems.length === 0 ? [] : [{ name: 'Module configuration', run: () => problems.map((p) => fail(p, 'fix the file and restart; until then the module runs on its defaults')) }];
    return [...files, ...this.started.flatMap(({ module, ctx }) => module.doctorChecks?.(ctx) ?? [])];
  }

  /**
   * The module's config file (written with defaults on first start). A file that cannot be used
   * stops nothing: the module runs on its defaults, and the log and the doctor name the file,
   * the key and what was expected.
   */
  private loadConfig(module: SvcModule, schema: SectionsSchema, dir: string, log: Logger): Record<string, Record<string, unknown>> {
    const unit = new SectionsFile({ schema, title: `${module.name} module configuration` });
    try {
      const { value, warnings } = unit.load(join(dir, `${module.id}.toml`));
      for (const warning of warnings) log.warn(warning);
      return value;
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      this.configProblems.push(error.message);
      log.error(`${error.message}: the module runs on its defaults until the file is fixed`);
      return unit.defaults();
    }
  }

  routes(): AnyRoute[] {
    return this.started.flatMap(({ module, ctx }) => module.routes?.(ctx) ?? []);
  }

  list(): ModuleInfo[] {
    const active = new Set(this.started.map((s) => s.module.id));
    return this.modules.map((m) => {
      const installed = this.isInstalled(m.id);
      return {
        id: m.id,
        name: m.name,
        version: m.version,
        description: m.description,
        status: active.has(m.id) ? 'active' : this.failures.has(m.id) ? 'failed' : 'available',
        error: this.failures.get(m.id) ?? null,
        loaded: active.has(m.id),
        installed,
        restartRequired: installed !== active.has(m.id),
        dashboard: m.dashboard ?? null,
      };
    });
  }

  /** Writes the module's file; true when it was not installed before. Loaded on the next start. */
  install(id: string): boolean {
    const module = this.require(id);
    if (this.isInstalled(id)) return false;
    this.writeFile(module);
    return true;
  }

  /** Removes the module's file; true when it was installed. It stays loaded until the next start. */
  uninstall(id: string): boolean {
    this.require(id);
    if (!this.isInstalled(id)) return false;
    rmSync(this.fileOf(id), { force: true });
    return true;
  }

  private require(id: string): ModuleManifest {
    const module = this.modules.find((m) => m.id === id);
    if (!module) {
      const known = this.modules.map((m) => m.id).join(', ') || 'none';
      throw new ApiError('VALIDATION_FAILED', `this build has no module "${id}" (modules: ${known})`);
    }
    return module;
  }

  private isInstalled(id: string): boolean {
    return this.dir !== null && existsSync(this.fileOf(id));
  }

  private fileOf(id: string): string {
    return join(this.dir!, `${id}${MODULE_FILE}`);
  }

  private writeFile(module: ModuleManifest): void {
    writeFileAtomic(this.fileOf(module.id), `${JSON.stringify({ id: module.id, version: module.version, installedAt: new Date().toISOString() })}\n`);
  }

  async stop(kernel: Kernel): Promise<void> {
    for (const { module, ctx } of this.started.reverse()) {
      try {
        await module.stop?.(ctx);
      } catch (error) {
        ctx.log.error({ err: error }, 'module stop failed');
      }
      kernel.bus.publish('MODULE_DISABLED', { moduleId: module.id, moduleName: module.name });
    }
    this.started.length = 0;
    this.provided.clear();
  }
}

/**
 * Makes a module's declared codes and events known (again: registering is idempotent). Each of
 * its events must name it as the owner, which `moduleEvents(id, ...)` does.
 */
function registerContract(module: ModuleManifest): void {
  if (module.errors) registerErrorCodes(module.errors);
  if (!module.events) return;
  for (const [type, spec] of Object.entries(module.events)) {
    if (spec.module !== module.id) throw new Error(`module "${module.id}" declares event ${type}, which names module "${spec.module}" as its owner`);
  }
  registerModuleEvents(module.events);
}
