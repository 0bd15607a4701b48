import { ApiError } from '../../errors';
import type { GroupStore } from '../groups/store';
import type { Roster } from '../players/roster';
import type { ServiceRecord, ServiceRegistry } from '../services/registry';

/**
 * Console commands that act on players. `send` is Velocity's own; `velocity kick` and
 * `velocity broadcast` are the subcommands the svc bridge plugin adds to Velocity. Names and
 * targets are validated to one token each before they get here, so a value can never become
 * a second argument or a second command.
 */
export const PROXY_COMMANDS = {
  send: (player: string, target: string) => `send ${player} ${target}`,
  kick: (player: string, reason: string) => (reason === '' ? `velocity kick ${player}` : `velocity kick ${player} ${reason}`),
  broadcast: (message: string) => `velocity broadcast ${message}`,
} as const;

/** How a backend announces: vanilla `say`. */
export const backendBroadcast = (message: string) => `say ${message}`;

export interface NetworkActionsDeps {
  registry: ServiceRegistry;
  groups: GroupStore;
  roster: Roster;
  /** Writes one console line to a service; throws when it has no running process. */
  exec: (service: string, command: string) => void;
}

/**
 * Operator actions on the network: move or kick a player through the proxies, broadcast a
 * message. A player is on exactly one proxy, and the controller does not know which, so the
 * command goes to every READY proxy; those without the player ignore it.
 */
export class NetworkActions {
  constructor(private readonly deps: NetworkActionsDeps) {}

  /** Spec order: no READY proxy is a 503 before the target or the player is looked at. */
  send(player: string, target: string): string[] {
    const proxies = this.readyProxies();
    const service = this.deps.registry.get(target);
    if (!service) throw new ApiError('SERVICE_NOT_FOUND', `target service "${target}" does not exist`);
    if (service.isProxy) throw new ApiError('VALIDATION_FAILED', `"${target}" is a proxy; a player can only be sent to a backend service`);
    if (service.state !== 'READY') throw new ApiError('SERVICE_NOT_READY', `target service "${target}" is ${service.state}; players can only be sent to a READY service`);
    return this.throughProxies(proxies, player, PROXY_COMMANDS.send(player, target));
  }

  kick(player: string, reason: string): string[] {
    return this.throughProxies(this.readyProxies(), player, PROXY_COMMANDS.kick(player, reason));
  }

  /** Writes the message to every READY service (of `group` when given); returns those reached and those targeted. */
  broadcast(message: string, group: string | undefined): { reached: string[]; targets: string[] } {
    if (group !== undefined && !this.deps.groups.get(group)) throw new ApiError('GROUP_NOT_FOUND', `group "${group}" does not exist`);
    const targets = (group === undefined ? this.deps.registry.all() : this.deps.registry.ofGroup(group)).filter((s) => s.state === 'READY');
    if (targets.length === 0) {
      throw new ApiError('SERVICE_UNAVAILABLE', group === undefined ? 'no service is READY to receive the broadcast' : `no service of group "${group}" is READY to receive the broadcast`);
    }
    const reached = targets.filter((s) => this.tryExec(s, s.isProxy ? PROXY_COMMANDS.broadcast(message) : backendBroadcast(message)));
    if (reached.length === 0) throw new ApiError('SERVICE_UNAVAILABLE', 'no READY service accepted the broadcast (their processes just went away)');
    return { reached: reached.map((s) => s.name), targets: targets.map((s) => s.name) };
  }

  private readyProxies(): ServiceRecord[] {
    const proxies = this.deps.registry.all().filter((s) => s.isProxy && s.state === 'READY');
    if (proxies.length === 0) throw new ApiError('PROXY_NOT_AVAILABLE', 'no proxy is READY to carry out the command; start one and try again');
    return proxies;
  }

  private throughProxies(proxies: ServiceRecord[], player: string, command: string): string[] {
    if (this.deps.roster.knownOffline(player)) throw new ApiError('PLAYER_NOT_ONLINE', `player "${player}" is not online (the proxy reported them leaving)`);
    const reached = proxies.filter((proxy) => this.tryExec(proxy, command));
    if (reached.length === 0) throw new ApiError('PROXY_NOT_AVAILABLE', 'no proxy accepted the command (their processes just went away)');
    return reached.map((s) => s.name);
  }

  private tryExec(service: ServiceRecord, command: string): boolean {
    try {
      this.deps.exec(service.name, command);
      return true;
    } catch {
      return false;
    }
  }
}
