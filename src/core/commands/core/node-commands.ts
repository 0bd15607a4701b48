import type { Kernel } from '../../../kernel';
import type { NodeOverview } from '../../../cluster/cluster';
import { expectArgs } from '../args';
import { CommandFailure, UsageError, type Command, type CommandOutput } from '../command';
import { dispatchSubcommands } from '../subcommands';

const NODE_ID = /^[a-zA-Z0-9_-]{1,64}$/;
const HOST = /^[A-Za-z0-9._:-]{1,253}$/;
const USAGE = 'nodes [list | revoke <node> | forget <node> | host <node> <host>]';

/** `nodes`: the agent nodes and their enrolment, as /api/nodes and its revoke, forget and host routes do them. */
export function nodesCommand(kernel: Kernel): Command {
  const clusterOf = () => {
    if (!kernel.cluster) throw new CommandFailure('the cluster is not enabled: set [cluster] enabled = true and restart');
    return kernel.cluster.cluster;
  };
  const nodeId = (word: string | undefined, usage: string): string => {
    if (word === undefined) throw new UsageError(usage, 'missing the node id');
    if (!NODE_ID.test(word)) throw new CommandFailure(`"${word}" is not a node id (letters, digits, _ and -, at most 64)`);
    return word;
  };

  const list = (out: CommandOutput) => {
    const entries = clusterOf().overview();
    const online = entries.filter((e) => e.node?.connected).length;
    out.header(`${entries.length} node(s), ${online} online`);
    if (entries.length === 0) out.info('no agent has enrolled yet: run `svc agent` on a machine with this controller\'s cluster token');
    const services = kernel.services.all();
    for (const entry of entries) out.item(describe(entry, services.filter((s) => s.nodeId === entry.nodeId).length));
    const unconfirmed = entries.filter((e) => e.enrolment && !e.enrolment.confirmed && !e.enrolment.revokedAt);
    if (unconfirmed.length > 0) out.info(`unconfirmed: ${unconfirmed.map((e) => e.nodeId).join(', ')} (the agent has not logged in with its own secret yet; an agent older than enrolment stays so until it updates)`);
  };

  const command: Command = {
    name: 'nodes',
    description: 'The agent nodes with their enrolment; revoke or forget one, or set where players reach it',
    usage: USAGE,
    permission: 'svc.command.nodes',
    level: 'admin',
    subcommands: [
      { name: 'list', description: 'Every node: online or not, its enrolment, host and services', usage: 'nodes list' },
      { name: 'revoke', description: 'Its secret stops working now, its session closes, its services count as failed', usage: 'nodes revoke <node>', args: ['text'] },
      { name: 'forget', description: 'Drop a revoked or offline node, so the id may enrol again', usage: 'nodes forget <node>', args: ['text'] },
      { name: 'host', description: 'Where players and proxies reach the node', usage: 'nodes host <node> <host>', args: ['text', 'text'] },
    ],
    args: [['list', 'revoke', 'forget', 'host']],
    run: dispatchSubcommands(USAGE, {
      list({ out }, rest) {
        expectArgs(command, rest, 0);
        return list(out);
      },
      revoke({ out, actor }, rest) {
        const [word] = expectArgs({ usage: 'nodes revoke <node>' }, rest, 1);
        const id = nodeId(word, 'nodes revoke <node>');
        const { services, already } = clusterOf().revoke(id, actor);
        if (already) return out.info(`node ${id} was revoked already`);
        out.success(`node ${id} revoked: its secret opens nothing from now on`);
        if (services > 0) out.info(`${services} service(s) on it are treated as failed; restart-on-crash ones are placed again`);
        return out.info(`to let it enrol again: \`nodes forget ${id}\`, then delete data/node.json on its agent`);
      },
      forget({ out, actor }, rest) {
        const [word] = expectArgs({ usage: 'nodes forget <node>' }, rest, 1);
        const id = nodeId(word, 'nodes forget <node>');
        clusterOf().forget(id, actor);
        return out.success(`node ${id} forgotten: it may enrol again with the cluster token (its agent deletes data/node.json first)`);
      },
      host({ out, actor }, rest) {
        const [word, host] = expectArgs({ usage: 'nodes host <node> <host>' }, rest, 2);
        const id = nodeId(word, 'nodes host <node> <host>');
        if (!HOST.test(host!)) throw new CommandFailure(`"${host}" is not a host name or an IP address`);
        clusterOf().setHost(id, host!, actor);
        return out.success(`node ${id}: players are routed to ${host} (services started on it from now on)`);
      },
    }, { whenNone: 'list' }),
  };
  return command;
}

function describe(entry: NodeOverview, services: number): string {
  const { node, enrolment } = entry;
  const state = enrolment?.revokedAt ? 'revoked' : node?.connected ? 'online' : 'offline';
  const enrolled = !enrolment ? 'not enrolled' : enrolment.revokedAt ? `revoked ${enrolment.revokedAt.slice(0, 19).replace('T', ' ')}` : enrolment.confirmed ? 'enrolled' : 'enrolled, unconfirmed';
  const host = node?.host ?? enrolment?.host ?? '?';
  const seen = node?.connected ? '' : enrolment?.lastSeenAt ? `, last seen ${enrolment.lastSeenAt.slice(0, 19).replace('T', ' ')}` : '';
  return `${entry.nodeId.padEnd(16)} ${state.padEnd(8)} ${host}  ${services} service(s)  ${enrolled}${seen}${node?.agentVersion ? `  agent ${node.agentVersion}` : ''}`;
}
