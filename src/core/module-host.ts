import type { DoctorSection } from './doctor/model';
import type { ModuleServices } from './module-services';

/**
 * What core sees of the optional modules (the registry in src/modules implements it): the typed
 * services they provide, looked up by key, and what the module routes and the doctor show.
 * Core never imports a module; this is the only way it reaches one.
 */
export interface ModuleHost {
  /** The typed service under `key`; undefined when the module that provides it is not loaded. */
  lookup<K extends keyof ModuleServices>(key: K): ModuleServices[K] | undefined;
  /** Offers a typed service to core and other modules (during a module's init); one provider per key. */
  provide<K extends keyof ModuleServices>(key: K, service: ModuleServices[K]): void;
  list(): ModuleInfo[];
  /** Writes the module's file; true when it was not installed before. Loaded on the next start. */
  install(id: string): boolean;
  /** Removes the module's file; true when it was installed. It stays loaded until the next start. */
  uninstall(id: string): boolean;
  /** The doctor sections of every started module. */
  doctorSections(): DoctorSection[];
}

export interface DashboardManifest {
  title: string;
  icon?: string;
  apiPrefix?: string;
  sections?: { title: string; type: 'table'; endpoint: string }[];
  pages: { path: string; title: string }[];
}

export interface ModuleInfo {
  id: string;
  name: string;
  version: string;
  description: string;
  /** active: loaded by this run; failed: installed, but its start failed (see `error`); available: in the binary, not loaded. */
  status: 'active' | 'available' | 'failed';
  /** Why it failed to start this run; null otherwise. */
  error: string | null;
  /** Loaded by this run (status active), under the name the dashboard's settings page reads. */
  loaded: boolean;
  /** Whether its module file is in modules/ now (loaded on the next start). */
  installed: boolean;
  /** Installed or uninstalled since this run started: a restart applies it. */
  restartRequired: boolean;
  dashboard: DashboardManifest | null;
}
