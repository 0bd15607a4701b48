import { join, resolve } from 'node:path';
import { mkdirSync } from 'node:fs';
import { loadConfig } from '../config/load';
import type { Config } from '../config/schema';
import { pathsOf } from '../config/paths';
import { AuditStore } from '../core/audit/store';
import { recordAuditedEvents } from '../core/audit/recorder';
import { Authenticator } from '../core/auth';
import { GroupStore } from '../core/groups/store';
import { logIsolation, startIsolation } from '../core/isolation';
import { MetricsRegistry } from '../core/metrics/registry';
import { useTenantLog } from '../core/tenancy/fs/report';
import { EventBus } from '../events/bus';
import { resolveMasterToken } from '../http/master-token';
import type { Paths } from '../kernel';
import { createLogger, type Logger } from '../log';
import { ModuleRegistry } from '../modules/registry';
import { BUILTIN_MODULES } from '../modules/builtin';
import { openCheckedDatabase, type Database } from '../storage/db';
import { prepareStorage } from '../storage/startup';
import { migrate } from '../storage/migrate';
import { CORE_MIGRATIONS } from '../storage/core-migrations';
import { startupMark } from '../startup-trace';
import type { ControllerOptions } from './options';

/** What every later part of the controller stands on. */
export interface Foundation {
  dir: string;
  configPath: string;
  config: Config;
  paths: Paths;
  log: Logger;
  /** The master token and where it came from (svc.toml, SVC_API_TOKEN, or generated into a file). */
  master: ReturnType<typeof resolveMasterToken>;
  db: Database;
  dbPath: string;
  bus: EventBus;
  audit: AuditStore;
  auth: Authenticator;
  metrics: MetricsRegistry;
  modules: ModuleRegistry;
  groups: GroupStore;
  isolated: Awaited<ReturnType<typeof startIsolation>>;
}

/**
 * The first half of the composition, in this order: config → log → storage checks → database
 * (core migrated) → bus and audit → auth, metrics, modules' registry, groups → isolation (its
 * probe runs while the database opens). Throws ConfigError for operator mistakes, having
 * closed the database when it opened it.
 */
export async function openFoundation(options: ControllerOptions): Promise<Foundation> {
  const env = options.env ?? process.env;
  const dir = resolve(options.dir);
  const configPath = resolve(dir, options.configPath ?? 'svc.toml');
  const { config, warnings, created } = loadConfig(configPath, env);
  const paths = resolvePaths(dir, config);
  startupMark('config loaded');
  const log = createLogger({
    format: env.SVC_LOG_FORMAT === 'json' ? 'json' : 'pretty',
    colored: config.console.colored && (options.stdoutIsTerminal ?? (Boolean(process.stdout.isTTY) && !options.stdout)),
    dir: paths.logs,
    level: env.SVC_LOG_LEVEL,
    stdout: options.stdout,
  });
  if (created) log.info({ file: configPath }, 'first launch: wrote the default configuration');
  const stale = options.lock?.stale;
  if (stale) log.warn({ file: options.lock!.file, pid: stale.pid }, `took over the lock of a controller that did not stop cleanly (pid ${stale.pid}, ${stale.reason === 'not running' ? 'no longer running' : 'now another program'})`);
  for (const warning of warnings) log.warn(warning);
  startupMark('logger open');
  // Before anything in data/ is touched: a usable folder, a database not lost since the last run, no temp files of killed writes.
  prepareStorage({ dir, configPath, paths, dbFile: join(paths.data, `${config.database.name}.db`), log });
  // Entries of service directories svc leaves alone (links, FIFOs, hard links: tenancy/fs) are named in this log.
  useTenantLog(log.child({ area: 'tenancy' }));

  // Isolation is resolved once, here; its sandbox probe (a process) runs while the database opens.
  const isolating = startIsolation({
    setting: config.services.isolation,
    uidBase: config.services.isolation_uid_base,
    dir,
    configFile: configPath,
    dataDir: paths.data,
    ownerOnly: [paths.config, paths.templates, paths.logs, join(paths.services, 'state')],
    serviceRoots: [
      { root: paths.services, sub: ['static', 'temp'] },
      { root: paths.dedicated, sub: [] },
    ],
    legacy: [join(paths.services, '.fifos')],
  });
  isolating.catch(() => undefined); // awaited below; a failure before that must not go unhandled

  const master = resolveMasterToken(config.api.token, Boolean(env.SVC_API_TOKEN), paths.data);
  config.api.token = master.token;
  if (master.source === 'generated') log.info({ file: master.file }, `master token ${master.token.slice(0, 8)}… (generated; full token in the file)`);

  let db: Database | undefined;
  const dbPath = join(paths.data, `${config.database.name}.db`);
  try {
    db = openCheckedDatabase(dbPath);
    migrate(db, 'core', CORE_MIGRATIONS);
    startupMark('database open, core migrated');
  } catch (error) {
    db?.close();
    throw error;
  }
  const bus = new EventBus(log.child({ area: 'events' }), db);
  const audit = new AuditStore(db);
  if (config.audit.enabled) recordAuditedEvents(bus, audit, log.child({ area: 'audit' }));
  startupMark('bus, audit');
  const auth = new Authenticator({ masterToken: master.token, clusterToken: config.cluster.token, jwtEnabled: config.api.jwt_enabled });
  const metrics = new MetricsRegistry();
  const modules = new ModuleRegistry(options.modules ?? BUILTIN_MODULES);
  // Dashboard session tokens authenticate while the auth module is loaded.
  auth.useSessions(() => modules.lookup('sessions'));
  const groups = new GroupStore(join(paths.config, 'groups'));
  const groupReport = groups.load();
  for (const broken of groupReport.broken) log.error(`group file skipped: ${broken.message}`);
  for (const warning of groupReport.warnings) log.warn(warning);
  startupMark('auth, metrics, groups loaded');

  let isolated: Awaited<typeof isolating>;
  try {
    isolated = await isolating;
  } catch (error) {
    db.close();
    throw error; // an explicit [services] isolation this host cannot meet: a configuration error
  }
  logIsolation(log, isolated.isolation, isolated.tightened);
  startupMark('isolation resolved');
  return { dir, configPath, config, paths, log, master, db, dbPath, bus, audit, auth, metrics, modules, groups, isolated };
}

function resolvePaths(dir: string, config: Config): Paths {
  const paths = pathsOf(dir, config);
  for (const path of Object.values(paths)) mkdirSync(path, { recursive: true });
  return paths;
}
