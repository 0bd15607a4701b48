import { expectArgs } from '../../../core/commands/args';
import { CommandFailure, UsageError, type CommandOutput } from '../../../core/commands/command';
import type { Author } from '../author';
import { checkedNode } from '../groups-service';
import type { ChainStep } from '../resolve';
import type { PermsRuntime } from '../runtime';
import { describeScope } from '../scope';
import type { Where } from '../types';
import { listOrNone, quoted, scopeSuffix } from './format';
import { expiryOf, findPlayer, freeText, splitOptions, whereOf } from './options';

export const USER_ACTIONS = ['list', 'info', 'check', 'addgroup', 'removegroup', 'promote', 'demote', 'meta'] as const;

/** Players `user list` prints at most. */
export const USER_LIST_MAX = 50;

const U = {
  all: 'perms user <list | info | check | addgroup | removegroup | promote | demote | meta> …',
  list: 'perms user list [query]',
  info: 'perms user info <name|uuid> [server=<s>] [world=<w>]',
  check: 'perms user check <name|uuid> <node> [server=<s>] [world=<w>]',
  addgroup: 'perms user addgroup <name|uuid> <group> [server=<s>] [world=<w>] [expires=<30m|12h|7d|ISO time>]',
  removegroup: 'perms user removegroup <name|uuid> <group> [server=<s>] [world=<w>]',
  promote: 'perms user promote <name|uuid> <track>',
  demote: 'perms user demote <name|uuid> <track>',
  meta: 'perms user meta <name|uuid> <set <key> <value…> | remove <key> | list>',
} as const;
export const USER_USAGE = U.all;

/** " at server=… world=…" for a question or a removal, nothing when unscoped. */
const atWhere = (where: Where) => {
  const text = describeScope({ server: where.server ?? '', world: where.world ?? '', expiresAt: null });
  return text ? ` at ${text}` : '';
};

/**
 * `perms user …`: a player is named by uuid (any spelling) or by a name the module has stored.
 * Changes go through the player and track services with the caller as actor.
 */
export function userAction(runtime: PermsRuntime, words: string[], out: CommandOutput, by: Author): void {
  const { players, tracks, state } = runtime;
  const [action, ...rest] = words;
  if (action === undefined) throw new UsageError(U.all, 'missing action');
  /** How a player is shown: the stored name, else the uuid. */
  const label = (uuid: string) => state.player(uuid)?.name ?? uuid;

  switch (action.toLowerCase()) {
    case 'list': {
      const [query = ''] = expectArgs({ usage: U.list }, rest, 0, 1);
      const found = players.search(query, USER_LIST_MAX + 1);
      const shown = found.slice(0, USER_LIST_MAX);
      out.header(`${shown.length} player(s)${query ? ` matching "${query}"` : ''}`);
      for (const p of shown) out.item(`${p.name} (${p.uuid})  groups ${listOrNone(p.groups)}${p.displayGroup ? `, shown as ${p.displayGroup}` : ''}`);
      if (found.length > USER_LIST_MAX) out.info(`more than ${USER_LIST_MAX} match; give a narrower query`);
      return;
    }
    case 'info': {
      const { positional, options } = splitOptions(U.info, rest, ['server', 'world']);
      const [word] = expectArgs({ usage: U.info }, positional, 1);
      const { uuid } = findPlayer(state, word!);
      const where = whereOf(options);
      const view = players.view(uuid, where);
      const stored = state.player(uuid);
      out.header(`${view.name} (${uuid})${atWhere(where)}`);
      if (!stored) out.info('not stored by the permissions module yet: only the default group applies');
      for (const m of stored?.memberships ?? []) {
        const group = state.groupByKey(m.group);
        if (group) out.item(`in ${group.name}${scopeSuffix(m)}`);
      }
      out.item(`shown as ${view.displayGroup || 'no group'}: prefix ${quoted(view.prefix)}, suffix ${quoted(view.suffix)}, priority ${view.priority}`);
      out.info(`${view.effectivePermissions.length} effective permission(s)`);
      for (const node of view.effectivePermissions) out.item(node);
      const meta = Object.entries(view.meta);
      if (meta.length) out.info(`${meta.length} meta key(s)`);
      for (const [key, value] of meta) out.item(`${key} = ${quoted(value)}`);
      return;
    }
    case 'check': {
      const { positional, options } = splitOptions(U.check, rest, ['server', 'world']);
      const [word, rawNode] = expectArgs({ usage: U.check }, positional, 2);
      const { uuid } = findPlayer(state, word!);
      const node = checkedNode(rawNode!);
      if (node.startsWith('-')) throw new UsageError(U.check, `check asks about a node, not a negation: give ${node.slice(1)}`);
      const where = whereOf(options);
      const explanation = players.debug(uuid, node, where);
      out.header(`${label(uuid)}: ${node}${atWhere(where)} is ${explanation.allowed ? 'allowed' : 'denied'}`);
      out.info(explanation.reason);
      for (const step of explanation.chain) out.item(chainLine(step));
      return;
    }
    case 'addgroup': {
      const { positional, options } = splitOptions(U.addgroup, rest, ['server', 'world', 'expires']);
      const [word, groupName] = expectArgs({ usage: U.addgroup }, positional, 2);
      const { uuid, name } = findPlayer(state, word!);
      const expiresAt = expiryOf(U.addgroup, options.expires, runtime.changes.now());
      players.addGroup(uuid, groupName!, { server: options.server, world: options.world, expiresAt }, name, by);
      const group = state.group(groupName!);
      const server = (options.server ?? '').toLowerCase();
      const world = (options.world ?? '').toLowerCase();
      const row = state.player(uuid)?.memberships.find((m) => m.group === group.key && m.server.toLowerCase() === server && m.world.toLowerCase() === world);
      return out.success(`${label(uuid)} is in ${group.name}${row ? scopeSuffix(row) : ''}`);
    }
    case 'removegroup': {
      const { positional, options } = splitOptions(U.removegroup, rest, ['server', 'world']);
      const [word, groupName] = expectArgs({ usage: U.removegroup }, positional, 2);
      const { uuid } = findPlayer(state, word!);
      const where = whereOf(options);
      const removed = players.removeGroup(uuid, groupName!, where, by);
      const group = state.group(groupName!);
      return removed ? out.success(`${label(uuid)} left ${group.name}${atWhere(where)}`) : out.info(`${label(uuid)} was not in ${group.name}${atWhere(where)}; nothing changed`);
    }
    case 'promote':
    case 'demote': {
      const up = action.toLowerCase() === 'promote';
      const [word, track] = expectArgs({ usage: up ? U.promote : U.demote }, splitOptions(up ? U.promote : U.demote, rest, []).positional, 2);
      const { uuid } = findPlayer(state, word!);
      const result = up ? tracks.promote(track!, uuid, by) : tracks.demote(track!, uuid, by);
      if (!result.success) throw new CommandFailure(result.message);
      return out.success(result.message);
    }
    case 'meta':
      return userMeta(runtime, rest, out, by);
    default:
      throw new UsageError(U.all, `unknown action "${action}"`);
  }
}

/** One row of a check's chain; the deciding row is marked with "→". */
function chainLine(step: ChainStep): string {
  const through = step.inheritedFrom ? `, through ${step.inheritedFrom}` : '';
  const scope = describeScope({ server: step.server ?? '', world: step.world ?? '', expiresAt: step.expiresAt ?? null });
  return `${step.decisive ? '→' : ' '} ${step.source}: ${step.permission} (${step.type}, weight ${step.weight}${through})${scope ? ` [${scope}]` : ''}`;
}

function userMeta(runtime: PermsRuntime, words: string[], out: CommandOutput, by: Author): void {
  const { players, state } = runtime;
  const [word, op, key, ...value] = words;
  if (word === undefined || op === undefined) throw new UsageError(U.meta, 'missing arguments');
  const { uuid } = findPlayer(state, word);
  const label = state.player(uuid)?.name ?? uuid;
  switch (op.toLowerCase()) {
    case 'list': {
      expectArgs({ usage: U.meta }, words, 2);
      const meta = Object.entries(players.meta(uuid));
      out.header(`${meta.length} meta key(s) of ${label}`);
      for (const [k, v] of meta) out.item(`${k} = ${quoted(v)}`);
      return;
    }
    case 'set': {
      if (key === undefined || value.length === 0) throw new UsageError(U.meta, 'missing the key or the value');
      const text = freeText(value);
      players.setMeta(uuid, key, text, by);
      return out.success(`meta ${key} of ${label} is now ${quoted(text)}`);
    }
    case 'remove': {
      expectArgs({ usage: U.meta }, words, 3);
      return players.removeMeta(uuid, key!, by) ? out.success(`removed meta ${key} from ${label}`) : out.info(`${label} has no meta ${key}; nothing changed`);
    }
    default:
      throw new UsageError(U.meta, `unknown meta action "${op}"`);
  }
}
