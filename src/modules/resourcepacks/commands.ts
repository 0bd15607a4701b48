import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { CommandFailure, UsageError, type Command } from '../../core/commands/command';
import { dispatchSubcommands, subcommandUsage, type SubcommandHandler } from '../../core/commands/subcommands';
import type { Assignment, Pack } from './model';
import type { ResourcePacksRuntime } from './runtime';
import { parseScope } from './service';

const USAGE = 'resourcepacks <list|add|upload|remove|assign|unassign|assignments|stack> …';
const SUBCOMMANDS = [
  { name: 'list', description: 'Every pack, newest first', usage: 'resourcepacks list' },
  { name: 'add', description: 'Register a pack hosted elsewhere', usage: 'resourcepacks add <name> <url> <sha1> [--force] [--prompt <text>]', args: ['text', 'text', 'text'] },
  { name: 'upload', description: 'Host a zip from this machine (local console only)', usage: 'resourcepacks upload <name> <path> [--force] [--prompt <text>]', args: ['text', 'text'] },
  { name: 'remove', description: 'Delete a pack, its assignments and its hosted file', usage: 'resourcepacks remove <id>', args: ['number'] },
  { name: 'assign', description: 'Assign a pack everywhere, to a group or to one service', usage: 'resourcepacks assign <id> <global | group <name> | service <name>> [priority]', args: ['number', ['global', 'group', 'service']] },
  { name: 'unassign', description: 'Remove one assignment', usage: 'resourcepacks unassign <assignment-id>', args: ['number'] },
  { name: 'assignments', description: 'Every assignment, or one pack’s', usage: 'resourcepacks assignments [pack-id]', args: ['number'] },
  { name: 'stack', description: 'The packs a backend of that group (and service) applies, in order', usage: 'resourcepacks stack <group> [service]', args: ['group', 'service'] },
] as const;

const usageOf = (name: (typeof SUBCOMMANDS)[number]['name']): string => subcommandUsage(SUBCOMMANDS, name);

function id(raw: string | undefined, usage: string, what = 'id'): number {
  if (raw === undefined || !/^\d{1,15}$/.test(raw) || Number(raw) < 1) throw new UsageError(usage, raw === undefined ? `give the ${what}` : `"${raw}" is not a ${what}`);
  return Number(raw);
}

/** `--force` and `--prompt <text…>` (the rest of the line) taken out of the arguments. */
function flags(args: string[]): { force: boolean; prompt?: string; rest: string[] } {
  const rest: string[] = [];
  let force = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--force') force = true;
    else if (arg === '--prompt') return { force, prompt: args.slice(i + 1).join(' '), rest };
    else rest.push(arg);
  }
  return { force, rest };
}

const describePack = (p: Pack) => `#${p.id} ${p.name} [${p.source}] ${p.url} sha1 ${p.sha1Hash}${p.source === 'LOCAL' ? ` ${(p.fileSize / 1024 / 1024).toFixed(1)} MiB` : ''}${p.force ? ' forced' : ''}`;
const describeAssignment = (a: Assignment) => `#${a.id} pack ${a.packId} ${a.scope}${a.target ? ` ${a.target}` : ''} priority ${a.priority}`;

/** `resourcepacks`: the registry from the console (and /api/commands, except uploads from a path). */
export function resourcePacksCommand(runtime: ResourcePacksRuntime): Command {
  const { service } = runtime;
  const subcommands: Record<string, SubcommandHandler> = {
    list(ctx) {
      const packs = service.list();
      ctx.out.header(`${packs.length} resource pack(s)`);
      for (const p of packs) ctx.out.item(describePack(p));
    },
    add(ctx, rest) {
      const { force, prompt, rest: words } = flags(rest);
      if (words.length !== 3) throw new UsageError(usageOf('add'), 'give the name (one word), the URL and the SHA-1');
      const [name, url, sha1] = words as [string, string, string];
      if (!/^[0-9a-fA-F]{40}$/.test(sha1)) throw new UsageError(usageOf('add'), `"${sha1}" is not a SHA-1 (40 hex characters)`);
      const pack = service.createUrlPack({ name, url, sha1Hash: sha1, force, ...(prompt !== undefined ? { promptMessage: prompt } : {}) }, ctx.actor);
      ctx.out.success(`registered ${describePack(pack)}`);
    },
    async upload(ctx, rest) {
      // A path on the controller's disk: only the operator at its console may name one.
      if (ctx.actor !== 'console') throw new CommandFailure('upload reads a file on the controller’s machine and works on its local console only; remotely, use POST /api/resourcepacks/upload');
      const { force, prompt, rest: words } = flags(rest);
      if (words.length !== 2) throw new UsageError(usageOf('upload'), 'give the name (one word) and the path of the zip');
      const [name, path] = words as [string, string];
      const file = resolve(path);
      const info = statSync(file, { throwIfNoEntry: false });
      if (!info?.isFile()) throw new CommandFailure(`${file} is not a file`);
      const request = new Request('http://console.local/upload', { method: 'POST', body: Bun.file(file), headers: { 'content-length': String(info.size) } });
      const pack = await service.upload(request, { name, force, ...(prompt !== undefined ? { prompt } : {}) }, ctx.actor);
      ctx.out.success(`uploaded ${describePack(pack)}`);
    },
    async remove(ctx, rest) {
      if (rest.length !== 1) throw new UsageError(usageOf('remove'));
      const pack = await service.delete(id(rest[0], usageOf('remove')), ctx.actor);
      ctx.out.success(`deleted pack #${pack.id} ${pack.name}`);
    },
    assign(ctx, rest) {
      const usage = usageOf('assign');
      const packId = id(rest[0], usage, 'pack id');
      const scope = parseScope(rest[1] ?? '');
      const target = scope === 'GLOBAL' ? '' : rest[2];
      if (target === undefined) throw new UsageError(usage, `name the ${scope.toLowerCase()}`);
      const tail = rest.slice(scope === 'GLOBAL' ? 2 : 3);
      if (tail.length > 1 || (tail.length === 1 && !/^-?\d{1,7}$/.test(tail[0]!))) throw new UsageError(usage, 'the priority is a whole number');
      const created = service.assign(packId, { scope, target, ...(tail.length === 1 ? { priority: Number(tail[0]) } : {}) }, ctx.actor);
      ctx.out.success(`assigned: ${describeAssignment(created)}`);
    },
    unassign(ctx, rest) {
      if (rest.length !== 1) throw new UsageError(usageOf('unassign'));
      const removed = service.unassign(id(rest[0], usageOf('unassign'), 'assignment id'), ctx.actor);
      ctx.out.success(`removed ${describeAssignment(removed)}`);
    },
    assignments(ctx, rest) {
      if (rest.length > 1) throw new UsageError(usageOf('assignments'));
      const list = service.assignments(rest[0] === undefined ? undefined : id(rest[0], usageOf('assignments'), 'pack id'));
      ctx.out.header(`${list.length} assignment(s)`);
      for (const a of list) ctx.out.item(describeAssignment(a));
    },
    stack(ctx, rest) {
      if (rest.length < 1 || rest.length > 2) throw new UsageError(usageOf('stack'));
      const packs = service.stack(rest[0]!, rest[1]);
      ctx.out.header(`${packs.length} pack(s) for ${rest[0]}${rest[1] ? ` / ${rest[1]}` : ''}, in apply order`);
      for (const p of packs) ctx.out.item(`${p.name} ${p.url} (priority ${p.priority}${p.force ? ', forced' : ''})`);
    },
  };
  return {
    name: 'resourcepacks',
    aliases: ['resourcepack'],
    description: 'Resource packs: register, upload, assign, and the stack a backend applies',
    usage: USAGE,
    permission: 'svc.command.resourcepacks',
    level: 'service',
    subcommands: SUBCOMMANDS,
    run: dispatchSubcommands(USAGE, subcommands),
  };
}
