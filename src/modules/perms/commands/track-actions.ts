import { expectArgs } from '../../../core/commands/args';
import { UsageError, type CommandOutput } from '../../../core/commands/command';
import type { Author } from '../author';
import type { PermsRuntime } from '../runtime';
import { groupNames } from './format';

export const TRACK_ACTIONS = ['list', 'info', 'create', 'delete'] as const;

const U = {
  all: 'perms track <list | info <track> | create <track> <g1,g2,…> | delete <track>>',
  list: 'perms track list',
  info: 'perms track info <track>',
  create: 'perms track create <track> <g1,g2,…>',
  delete: 'perms track delete <track>',
} as const;
export const TRACK_USAGE = U.all;

/** `perms track …`: ladders of groups, lowest rank first, through the track service. */
export function trackAction(runtime: PermsRuntime, words: string[], out: CommandOutput, by: Author): void {
  const { tracks, state } = runtime;
  const [action, ...rest] = words;
  if (action === undefined) throw new UsageError(U.all, 'missing action');
  switch (action.toLowerCase()) {
    case 'list': {
      expectArgs({ usage: U.list }, rest, 0);
      const all = state.tracks().sort((a, b) => a.name.localeCompare(b.name));
      out.header(`${all.length} track(s)`);
      for (const t of all) out.item(`${t.name}: ${groupNames(state, t.groups).join(' → ')}`);
      return;
    }
    case 'info': {
      const [name] = expectArgs({ usage: U.info }, rest, 1);
      const track = state.track(name!);
      out.header(`track ${track.name}, lowest rank first`);
      groupNames(state, track.groups).forEach((group, i) => out.item(`${i + 1}. ${group}`));
      return;
    }
    case 'create': {
      // Groups may be one comma list or several words ("a,b c" is a, b, c).
      const [name, ...lists] = expectArgs({ usage: U.create }, rest, 2, Infinity);
      const groups = lists.flatMap((w) => w.split(',')).map((g) => g.trim()).filter(Boolean);
      const track = tracks.create(name!, groups, by);
      return out.success(`created track ${track.name}: ${groupNames(state, track.groups).join(' → ')}`);
    }
    case 'delete': {
      const [name] = expectArgs({ usage: U.delete }, rest, 1);
      const track = state.track(name!);
      tracks.delete(track.name, by);
      return out.success(`deleted track ${track.name}`);
    }
    default:
      throw new UsageError(U.all, `unknown action "${action}"`);
  }
}
