import { ApiError } from '../../errors';
import type { Config } from '../../config/schema';
import type { SoftwareName } from './kinds';
import { buildStartCommand } from './start-command';
import { checkJar } from './jar-check';
import { findForgeArgsFile } from './forge-args';

/** What a start command is made of: a group's launch settings, or the same fields in an agent's START_SERVICE. */
export interface LaunchSettings {
  software: SoftwareName;
  version: string;
  memory: string;
  jvmArgs: readonly string[];
  jvmOptimize: boolean;
  jarName: string;
  javaPath: string;
  startCommand: readonly string[];
}

/**
 * The argv for a prepared work dir, on the controller and on agents alike: the settings' own
 * startCommand, or the one built for the software once its jar is known to be there
 * (SERVICE_START_FAILED naming what is missing otherwise).
 */
export function serviceCommand(settings: LaunchSettings, service: { name: string; group: string; port: number; workDir: string }, java: Config['java'], apiPort: number): string[] {
  if (settings.startCommand.length === 0) {
    const problem = checkJar(service.workDir, settings.software, settings.jarName || null, settings.version);
    if (problem) throw new ApiError('SERVICE_START_FAILED', problem);
  }
  const loader = settings.software === 'FORGE' || settings.software === 'NEOFORGE' ? settings.software : null;
  return buildStartCommand({
    software: settings.software,
    version: settings.version,
    memory: settings.memory,
    jvmArgs: settings.jvmArgs,
    jvmOptimize: settings.jvmOptimize,
    jarName: settings.jarName || null,
    javaPath: settings.javaPath || null,
    javaConfig: java,
    serviceName: service.name,
    groupName: service.group,
    port: service.port,
    apiPort,
    startCommand: settings.startCommand,
    forgeArgsFile: loader ? findForgeArgsFile(service.workDir, loader) : null,
  });
}

/** The environment a service inherits: ours without SVC_* (those may hold secrets; each service gets its own). */
export function inheritedEnv(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined && !key.startsWith('SVC_')) out[key] = value;
  return out;
}
