import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../config/load';
import type { Config } from '../../config/schema';
import { pathsOf } from '../../config/paths';
import type { TokenSource } from '../../config/token-source';
import { GroupStore } from '../groups/store';
import { ServiceStateFile } from '../services/state-file';
import { configurationFindings } from './configuration';
import { environmentFindings } from './environment';
import { probeJava, type JavaProbe } from './java-probe';
import { isolationFindings } from './isolation';
import { previewIsolation } from '../isolation';
import { fail, info, ok, runDoctor, warn, type DoctorReport, type DoctorSection, type Finding } from './model';
import { storageFindings } from './storage';
import { offlineDatabaseFindings } from './database';
import { brokenFileFindings, quarantineFindings } from './groups';
import { QuarantineFileSchema } from '../services/quarantine';
import { Value } from '@sinclair/typebox/value';
import { registryFindings } from './runtime-checks';
import { NodeRegistry, type NodeEnrolment } from '../../cluster/identity/registry';

/**
 * `svc doctor`: the same checks against a working directory, without starting the controller
 * (nothing is created or changed). What only a running controller knows (live services, nodes)
 * is reported from what it left on disk, and says where to look for the live view.
 */
export async function offlineDoctor(dir: string, configPath: string, env: Record<string, string | undefined>, probe: JavaProbe = probeJava): Promise<DoctorReport> {
  if (!existsSync(configPath)) {
    return runDoctor([{ name: 'Configuration', run: () => [fail(`${configPath} does not exist`, 'run `svc init` (or start the controller once) to write it')] }]);
  }
  const { config, warnings } = loadConfig(configPath, env);
  const paths = pathsOf(dir, config);
  const groups = new GroupStore(join(paths.config, 'groups'));
  const groupReport = existsSync(join(paths.config, 'groups')) ? groups.load() : { broken: [], warnings: [] };
  const tokenSource: TokenSource = env.SVC_API_TOKEN ? 'environment' : config.api.token ? 'config' : 'generated';
  const sections: DoctorSection[] = [
    { name: 'Environment', run: () => [...environmentFindings(groups.list(), config.java, probe), ...isolationOffline(dir, configPath, config)] },
    {
      name: 'Configuration',
      run: () => [
        ...warnings.map((w) => warn(w)),
        ...brokenFileFindings(groupReport.broken),
        ...configurationFindings(config, tokenSource, dir),
      ],
    },
    { name: 'Storage', run: () => storageFindings(paths) },
    { name: 'Database', run: () => offlineDatabaseFindings(join(paths.data, `${config.database.name}.db`), paths.data) },
    { name: 'Services', run: () => [...quarantineOffline(join(paths.data, 'state', 'quarantine.json')), ...servicesOffline(join(paths.data, 'state', 'services.json'))] },
    { name: 'Cluster', run: () => (config.cluster.enabled ? clusterOffline(join(paths.data, 'cluster', 'nodes.json')) : [info('the cluster is not enabled')]) },
  ];
  return runDoctor(sections);
}

/** What the controller would choose if it started now (it resolves once, at start): the same probes, nothing changed. */
function isolationOffline(dir: string, configPath: string, config: Config): Finding[] {
  const paths = pathsOf(dir, config);
  const preview = previewIsolation({
    setting: config.services.isolation,
    uidBase: config.services.isolation_uid_base,
    dir,
    configFile: configPath,
    dataDir: paths.data,
    ownerOnly: [],
    serviceRoots: [
      { root: paths.services, sub: ['static', 'temp'] },
      { root: paths.dedicated, sub: [] },
    ],
  });
  if ('error' in preview) return [fail(`the controller would not start: ${preview.error}`, 'fix what it names, or choose another [services] isolation')];
  const findings = isolationFindings(preview, config.services.isolation_uid_base);
  return findings.map((f) => ({ ...f, message: `${f.message} (as the controller would choose now; the running one logged its choice at start)` }));
}

/** The enrolled nodes as data/cluster/nodes.json has them; who is online only the running controller knows. */
function clusterOffline(registryFile: string): Finding[] {
  const findings = [info('the cluster is enabled; its nodes are checked by GET /api/doctor on the running controller')];
  let enrolments: NodeEnrolment[];
  try {
    enrolments = new NodeRegistry(registryFile).list();
  } catch (error) {
    return [...findings, fail((error as Error).message, 'the controller does not start until the node registry is repaired or moved away')];
  }
  findings.push(info(`${enrolments.length} node(s) enrolled (${registryFile})`));
  return [...findings, ...registryFindings(enrolments)];
}

/** The quarantines the controller keeps; read only (a damaged file is reported, never moved, by the offline doctor). */
function quarantineOffline(file: string): Finding[] {
  if (!existsSync(file)) return [];
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    if (!Value.Check(QuarantineFileSchema, parsed)) return [warn(`${file} has an unexpected shape`, 'the controller moves it aside at its next start and forgets the quarantines in it')];
    return quarantineFindings(parsed.quarantined);
  } catch (error) {
    return [warn(`${file} cannot be read: ${(error as Error).message}`, 'the controller moves it aside at its next start and forgets the quarantines in it')];
  }
}

function servicesOffline(stateFile: string): Finding[] {
  const { services, problem } = new ServiceStateFile(stateFile).load();
  const findings: Finding[] = [];
  if (problem) findings.push(warn(problem));
  findings.push(info(`${services.length} service(s) were running when the controller last stopped`, 'GET /api/doctor on the running controller checks live services'));
  return findings;
}
