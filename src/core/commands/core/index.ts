import type { Kernel } from '../../../kernel';
import type { NetworkActions } from '../../proxy/network-actions';
import type { CommandRegistry } from '../registry';
import { groupCommand } from './group-command';
import { maintenanceCommand } from './maintenance-command';
import { networkCommands } from './network-commands';
import { nodesCommand } from './node-commands';
import { proxyCommand } from './proxy-command';
import { quarantineCommand } from './quarantine-command';
import { serviceCommands } from './service-commands';
import { systemCommands } from './system-commands';

/** Registers every core command; modules add theirs through the module interface. */
export function registerCoreCommands(kernel: Kernel, registry: CommandRegistry, actions: NetworkActions): void {
  for (const command of [...systemCommands(kernel, registry), ...networkCommands(kernel, actions), maintenanceCommand(kernel), proxyCommand(kernel), nodesCommand(kernel), quarantineCommand(kernel), ...serviceCommands(kernel)]) {
    registry.register(command);
  }
  registry.register(groupCommand(kernel));
}
