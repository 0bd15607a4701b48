import type { Kernel } from '../../kernel';
import { configurationFindings } from './configuration';
import { environmentFindings } from './environment';
import { probeJava, type JavaProbe } from './java-probe';
import { brokenFileFindings, quarantineFindings } from './groups';
import { isolationFindings } from './isolation';
import type { DoctorSection } from './model';
import { clusterFindings, serviceFindings } from './runtime-checks';
import { storageFindings } from './storage';
import { configFileFindings, liveDatabaseFindings } from './database';

/** The running controller's report: the reference's sections in order, then each module's. */
export function controllerSections(kernel: Kernel, probe: JavaProbe = probeJava): DoctorSection[] {
  return [
    // Isolation belongs to the environment: what the host lets svc do to keep game servers apart.
    { name: 'Environment', run: () => [...environmentFindings(kernel.groups.list(), kernel.config.java, probe), ...isolationFindings(kernel.isolation, kernel.config.services.isolation_uid_base)] },
    { name: 'Configuration', run: () => [...brokenFileFindings(kernel.groups.brokenFiles(), kernel.dedicated.brokenFiles()), ...configFileFindings(kernel.configPath), ...configurationFindings(kernel.config, kernel.apiToken.source, kernel.dir)] },
    { name: 'Storage', run: () => storageFindings(kernel.paths) },
    { name: 'Database', run: () => liveDatabaseFindings(kernel.db) },
    { name: 'Services', run: () => [...quarantineFindings(kernel.manager.quarantines(), kernel.manager.quarantineProblem()), ...serviceFindings(kernel.services)] },
    { name: 'Cluster', run: () => clusterFindings(kernel.cluster?.cluster ?? null) },
    ...kernel.modules.doctorSections(),
  ];
}
