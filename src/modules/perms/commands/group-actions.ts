import { expectArgs } from '../../../core/commands/args';
import { CommandFailure, UsageError, type CommandOutput } from '../../../core/commands/command';
import type { Author } from '../author';
import type { PermsRuntime } from '../runtime';
import { normalizeNode } from '../nodes';
import { describeScope } from '../scope';
import type { Group } from '../types';
import { groupNames, listOrNone, quoted, scopeSuffix } from './format';
import { expiryOf, freeText, splitOptions, wholeNumber } from './options';

export const GROUP_ACTIONS = ['list', 'info', 'create', 'delete', 'addperm', 'removeperm', 'setdefault', 'addparent', 'removeparent', 'setprefix', 'setsuffix', 'setpriority', 'setweight', 'meta'] as const;

const U = {
  all: 'perms group <list | info | create | delete | addperm | removeperm | setdefault | addparent | removeparent | setprefix | setsuffix | setpriority | setweight | meta> …',
  list: 'perms group list',
  info: 'perms group info <group>',
  create: 'perms group create <group> [default]',
  delete: 'perms group delete <group>',
  addperm: 'perms group addperm <group> <node> [server=<s>] [world=<w>] [expires=<30m|12h|7d|ISO time>]',
  removeperm: 'perms group removeperm <group> <node> [server=<s>] [world=<w>]',
  setdefault: 'perms group setdefault <group>',
  addparent: 'perms group addparent <group> <parent>',
  removeparent: 'perms group removeparent <group> <parent>',
  setprefix: 'perms group setprefix <group> <text…|"">',
  setsuffix: 'perms group setsuffix <group> <text…|"">',
  setpriority: 'perms group setpriority <group> <number>',
  setweight: 'perms group setweight <group> <number>',
  meta: 'perms group meta <group> <set <key> <value…> | remove <key> | list>',
} as const;
export const GROUP_USAGE = U.all;

/**
 * `perms group …`: every change goes through the group service with the caller as actor, so the
 * checks (names, nodes, cycles), the events and the module audit are those of the API.
 */
export function groupAction(runtime: PermsRuntime, words: string[], out: CommandOutput, by: Author): void {
  const { groups, state } = runtime;
  const [action, ...rest] = words;
  if (action === undefined) throw new UsageError(U.all, 'missing action');
  const nameOf = (key: string) => groupNames(state, [key])[0]!;

  switch (action.toLowerCase()) {
    case 'list': {
      expectArgs({ usage: U.list }, rest, 0);
      const all = state.groups().sort((a, b) => b.priority - a.priority || a.name.localeCompare(b.name));
      out.header(`${all.length} permission group(s)`);
      for (const g of all) out.item(`${g.name}${g.isDefault ? ' (default)' : ''}  priority ${g.priority}, weight ${g.weight}, ${g.grants.length} node(s)${g.parents.length ? `, inherits ${groupNames(state, g.parents).join(', ')}` : ''}`);
      return;
    }
    case 'info': {
      const [name] = expectArgs({ usage: U.info }, rest, 1);
      return showGroup(runtime, state.group(name!), out);
    }
    case 'create': {
      const [name, flag] = expectArgs({ usage: U.create }, rest, 1, 2);
      if (flag !== undefined && flag.toLowerCase() !== 'default') throw new UsageError(U.create, `"${flag}" is not "default"`);
      const group = groups.create(name!, flag !== undefined, by);
      return out.success(`created permission group ${group.name}${group.isDefault ? ' (the default group now)' : ''}`);
    }
    case 'delete': {
      const [name] = expectArgs({ usage: U.delete }, rest, 1);
      const group = state.group(name!);
      groups.delete(group.name, by);
      return out.success(`deleted permission group ${group.name}`);
    }
    case 'addperm': {
      const { positional, options } = splitOptions(U.addperm, rest, ['server', 'world', 'expires']);
      const [name, node] = expectArgs({ usage: U.addperm }, positional, 2);
      const expiresAt = expiryOf(U.addperm, options.expires, runtime.changes.now());
      groups.addPermission(name!, node!, { server: options.server, world: options.world, expiresAt }, by);
      const group = state.group(name!);
      const stored = normalizeNode(node!);
      const row = group.grants.find((g) => g.node === stored && g.server.toLowerCase() === (options.server ?? '').toLowerCase() && g.world.toLowerCase() === (options.world ?? '').toLowerCase());
      return out.success(`${group.name} has ${stored}${row ? scopeSuffix(row) : ''}`);
    }
    case 'removeperm': {
      const { positional, options } = splitOptions(U.removeperm, rest, ['server', 'world']);
      const [name, node] = expectArgs({ usage: U.removeperm }, positional, 2);
      const removed = groups.removePermission(name!, node!, { server: options.server, world: options.world }, by);
      const group = state.group(name!);
      const where = describeScope({ server: options.server ?? '', world: options.world ?? '', expiresAt: null });
      const at = where ? ` at ${where}` : '';
      const stored = normalizeNode(node!);
      return removed ? out.success(`removed ${stored}${at} from ${group.name}`) : out.info(`${group.name} did not have ${stored}${at}; nothing changed`);
    }
    case 'setdefault': {
      const [name] = expectArgs({ usage: U.setdefault }, rest, 1);
      const group = state.group(name!);
      if (group.isDefault) return out.info(`${group.name} is already the default group`);
      groups.update(group.name, { default: true }, by);
      return out.success(`${group.name} is now the default group`);
    }
    case 'addparent':
    case 'removeparent': {
      const adding = action.toLowerCase() === 'addparent';
      const [name, parentName] = expectArgs({ usage: adding ? U.addparent : U.removeparent }, rest, 2);
      const group = state.group(name!);
      const parent = state.findGroup(parentName!);
      const has = parent !== undefined && group.parents.includes(parent.key);
      if (adding) {
        if (has) return out.info(`${group.name} already inherits from ${parent.name}`);
        // The new full list goes through update, which refuses unknown parents and cycles.
        const updated = groups.update(group.name, { parents: [...group.parents.map(nameOf), parentName!] }, by);
        return out.success(`${updated.name} now inherits from ${listOrNone(groupNames(state, updated.parents))}`);
      }
      if (!has) throw new CommandFailure(`${group.name} does not inherit from ${parent?.name ?? parentName}`);
      const updated = groups.update(group.name, { parents: group.parents.filter((k) => k !== parent.key).map(nameOf) }, by);
      return out.success(`${updated.name} now inherits from ${listOrNone(groupNames(state, updated.parents))}`);
    }
    case 'setprefix':
    case 'setsuffix': {
      const field = action.toLowerCase() === 'setprefix' ? 'prefix' : 'suffix';
      const usage = field === 'prefix' ? U.setprefix : U.setsuffix;
      const [name, ...text] = rest;
      if (name === undefined || text.length === 0) throw new UsageError(usage, rest.length === 0 ? 'missing arguments' : `missing the ${field} (give "" to clear it)`);
      const updated = groups.update(name, field === 'prefix' ? { prefix: freeText(text) } : { suffix: freeText(text) }, by);
      return out.success(`${field} of ${updated.name} is now ${quoted(updated[field])}`);
    }
    case 'setpriority':
    case 'setweight': {
      const field = action.toLowerCase() === 'setpriority' ? 'priority' : 'weight';
      const usage = field === 'priority' ? U.setpriority : U.setweight;
      const [name, number] = expectArgs({ usage }, rest, 2);
      const value = wholeNumber(usage, number!);
      const updated = groups.update(name!, field === 'priority' ? { priority: value } : { weight: value }, by);
      return out.success(`${field} of ${updated.name} is now ${updated[field]}`);
    }
    case 'meta':
      return groupMeta(runtime, rest, out, by);
    default:
      throw new UsageError(U.all, `unknown action "${action}"`);
  }
}

function showGroup(runtime: PermsRuntime, group: Group, out: CommandOutput): void {
  const { state } = runtime;
  out.header(`permission group ${group.name}${group.isDefault ? ' (default)' : ''}`);
  out.item(`prefix ${quoted(group.prefix)}, suffix ${quoted(group.suffix)}`);
  out.item(`priority ${group.priority}, weight ${group.weight}`);
  out.item(`inherits ${listOrNone(groupNames(state, group.parents))}`);
  out.info(`${group.grants.length} permission(s)`);
  for (const grant of [...group.grants].sort((a, b) => a.node.localeCompare(b.node))) out.item(`${grant.node}${scopeSuffix(grant)}`);
  const meta = Object.entries(group.meta);
  if (meta.length) out.info(`${meta.length} meta key(s)`);
  for (const [key, value] of meta) out.item(`${key} = ${quoted(value)}`);
}

function groupMeta(runtime: PermsRuntime, words: string[], out: CommandOutput, by: Author): void {
  const { groups, state } = runtime;
  const [name, op, key, ...value] = words;
  if (name === undefined || op === undefined) throw new UsageError(U.meta, 'missing arguments');
  switch (op.toLowerCase()) {
    case 'list': {
      expectArgs({ usage: U.meta }, words, 2);
      const group = state.group(name);
      const meta = Object.entries(group.meta);
      out.header(`${meta.length} meta key(s) of ${group.name}`);
      for (const [k, v] of meta) out.item(`${k} = ${quoted(v)}`);
      return;
    }
    case 'set': {
      if (key === undefined || value.length === 0) throw new UsageError(U.meta, 'missing the key or the value');
      const text = freeText(value);
      groups.setMeta(name, key, text, by);
      return out.success(`meta ${key} of ${state.group(name).name} is now ${quoted(text)}`);
    }
    case 'remove': {
      expectArgs({ usage: U.meta }, words, 3);
      const removed = groups.removeMeta(name, key!, by);
      const group = state.group(name);
      return removed ? out.success(`removed meta ${key} from ${group.name}`) : out.info(`${group.name} has no meta ${key}; nothing changed`);
    }
    default:
      throw new UsageError(U.meta, `unknown meta action "${op}"`);
  }
}
