import type { SectionsSchema } from '../config/unit/sections';
import type { DashboardManifest } from '../core/module-host';

export type { DashboardManifest };
import type { AnyRoute } from '../http/route';
import type { Command } from '../core/commands/command';
import type { Kernel } from '../kernel';
import type { Logger } from '../log';
import type { Migration } from '../storage/migrate';
import type { DoctorSection } from '../core/doctor/model';

/**
 * What the dashboard needs to show a module: its sidebar entry (title, icon: a lucide icon
 * name the existing dashboard reads), where its routes live, the tables its generic page
 * renders (`endpoint` is relative to `apiPrefix`), and the pages it adds.
 */

/** Everything a module may use; core never imports a module. */
export interface ModuleContext {
  kernel: Kernel;
  log: Logger;
  /** The module's own config (config/modules/<id>/<id>.toml), validated against its schema. */
  config: Record<string, Record<string, unknown>>;
  /** The module's folder under config/modules/. */
  dir: string;
}

/**
 * An optional feature of the controller, as a plain object. The registry applies its
 * migrations (numbered in the module's own scope), registers its error codes, loads its
 * config file (written with defaults on first launch), calls init, mounts its routes, and
 * calls stop in reverse order at shutdown.
 */
/** What is known of a module without loading its code: enough to list, install and uninstall it. */
export interface ModuleManifest {
  id: string;
  name: string;
  version: string;
  description: string;
  dashboard?: DashboardManifest;
}

/**
 * A module compiled into the binary whose code loads only when it is installed (builtin.ts):
 * an uninstalled module costs its manifest and nothing more at start.
 */
export interface LazyModule extends ModuleManifest {
  load(): Promise<SvcModule>;
}

/** What the registry is given: a module, or one to load when it is installed. */
export type ModuleEntry = SvcModule | LazyModule;

export interface SvcModule {
  /** Lower-case, stable: the migration scope, the config folder, and `moduleId` on events. */
  id: string;
  name: string;
  version: string;
  description: string;
  configSchema?: SectionsSchema;
  migrations?: readonly Migration[];
  /** Error codes the module adds, with their HTTP statuses. */
  errors?: Record<string, number>;
  dashboard?: DashboardManifest;
  init?(ctx: ModuleContext): void | Promise<void>;
  /**
   * Called once the services the last controller left are known again (after recovery) and
   * before the API answers: the moment to reconcile state kept across restarts with them.
   */
  ready?(ctx: ModuleContext): void | Promise<void>;
  routes?(ctx: ModuleContext): AnyRoute[];
  /** Sections the module adds to the doctor report (after core's); a throwing check is a FAIL. */
  doctorChecks?(ctx: ModuleContext): DoctorSection[];
  /** Console commands the module adds (after init); names must not clash with core's. */
  commands?(ctx: ModuleContext): Command[];
  /** Called at shutdown with the context init had; several controllers may share one module object (tests). */
  stop?(ctx: ModuleContext): void | Promise<void>;
}
