import type { SectionsSchema } from '../config/unit/sections';
import type { DashboardManifest } from '../core/module-host';
import type { AnyRoute } from '../http/route';
import type { Command } from '../core/commands/command';
import type { Kernel } from '../kernel';
import type { Logger } from '../log';
import type { Migration } from '../storage/migrate';
import type { DoctorSection } from '../core/doctor/model';
import type { EventSpec } from '../events/catalogue';

/**
 * What the dashboard needs to show a module: its sidebar entry (title, icon: a lucide icon
 * name the existing dashboard reads), where its routes live, the tables its generic page
 * renders (`endpoint` is relative to `apiPrefix`), and the pages it adds.
 */
export type { DashboardManifest };

/**
 * The kernel members a module may declare in `uses` (a module logs through `ctx.log`, its own
 * child logger, rather than the kernel's).
 */
export type KernelMember = keyof Kernel;

/**
 * The part of the kernel a module declared it uses: its hooks, and the helpers they hand the
 * kernel to, reach these members and no other (a compile error otherwise; at run time the
 * registry hands the module a view with only these members, kernel-view.ts). Helpers that need
 * less take a smaller `ModuleKernel<...>` of their own.
 */
export type ModuleKernel<U extends KernelMember> = Pick<Kernel, U>;

/**
 * What a module's hooks receive; core never imports a module. `U` is what the module declared
 * in `uses`; the default (every member) is the registry's own view and that of modules written
 * without `defineModule` (test fixtures).
 */
export interface ModuleContext<U extends KernelMember = KernelMember> {
  /** The kernel members the module declared, and no other (a view the registry makes from the kernel). */
  kernel: ModuleKernel<U>;
  log: Logger;
  /** The module's own config (config/modules/<id>/<id>.toml), validated against its schema. */
  config: Record<string, Record<string, unknown>>;
  /** The module's folder under config/modules/. */
  dir: string;
}

/** One of a module's events as the bus and the audit log read it. */
export type ModuleEventSpec = EventSpec & { readonly module: string };

/** What is known of a module without loading its code: enough to list, install and uninstall it. */
export interface ModuleManifest {
  id: string;
  name: string;
  version: string;
  description: string;
  dashboard?: DashboardManifest;
  /**
   * The module's error codes with their HTTP statuses (its errors.ts, made with `moduleErrors`).
   * Part of the manifest: the codes are known, installed or not, before the code loads.
   */
  errors?: Readonly<Record<string, number>>;
  /** The module's events (its events.ts, made with `moduleEvents`): data keys, audit rule, owner. */
  events?: Readonly<Record<string, ModuleEventSpec>>;
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

/**
 * An optional feature of the controller, as a plain object. The registry applies its
 * migrations (numbered in the module's own scope), registers its error codes and events, loads its
 * config file (written with defaults on first launch), calls init, mounts its routes, and
 * calls stop in reverse order at shutdown.
 */
export interface SvcModule<U extends KernelMember = KernelMember> {
  /** Lower-case, stable: the migration scope, the config folder, and `moduleId` on events. */
  id: string;
  name: string;
  version: string;
  description: string;
  /**
   * The kernel members the module uses, e.g. `['bus', 'db']`: its context is typed by this list
   * (see `defineModule`, which requires it). Every built-in module declares it.
   */
  uses?: readonly U[];
  configSchema?: SectionsSchema;
  migrations?: readonly Migration[];
  /** Error codes the module adds, with their HTTP statuses (see ModuleManifest). */
  errors?: Readonly<Record<string, number>>;
  /** Events the module publishes (see ModuleManifest); each names this module as its owner. */
  events?: Readonly<Record<string, ModuleEventSpec>>;
  dashboard?: DashboardManifest;
  init?(ctx: ModuleContext<U>): void | Promise<void>;
  /**
   * Called once the services the last controller left are known again (after recovery) and
   * before the API answers: the moment to reconcile state kept across restarts with them.
   */
  ready?(ctx: ModuleContext<U>): void | Promise<void>;
  routes?(ctx: ModuleContext<U>): AnyRoute[];
  /** Sections the module adds to the doctor report (after core's); a throwing check is a FAIL. */
  doctorChecks?(ctx: ModuleContext<U>): DoctorSection[];
  /** Console commands the module adds (after init); names must not clash with core's. */
  commands?(ctx: ModuleContext<U>): Command[];
  /** Called at shutdown with the context init had; several controllers may share one module object (tests). */
  stop?(ctx: ModuleContext<U>): void | Promise<void>;
}

/**
 * A module, typed by what it declares: `uses` lists the kernel members its hooks may reach,
 * and every hook's `ctx.kernel` has exactly those. A module that did not declare `services`
 * cannot name `ctx.kernel.services` (test/modules/context.test.ts shows the compile error).
 */
export function defineModule<const U extends KernelMember>(module: SvcModule<U> & { readonly uses: readonly U[] }): SvcModule<U> {
  return module;
}
