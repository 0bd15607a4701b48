import { expectArgs } from '../../core/commands/args';
import type { Command, CommandOutput } from '../../core/commands/command';
import { dispatchSubcommands } from '../../core/commands/subcommands';
import type { Display } from './model';
import type { DisplayStore } from './store';

const USAGE = 'display [list | show <group> | label <group> <state> | reset <group>]';

/** `a=b, c=d` of a label map, in key order; "none" when empty. */
function pairs(map: Record<string, string>): string {
  const entries = Object.entries(map).sort(([a], [b]) => a.localeCompare(b));
  return entries.length === 0 ? 'none' : entries.map(([key, value]) => `${key}=${value}`).join(', ');
}

/** One display, as `display show` and `display reset` print it (the text keeps its & colour codes and placeholders). */
function print(display: Display, out: CommandOutput): void {
  const { sign, npc, states } = display;
  out.header(`display of ${display.name}`);
  out.item(`sign: ${sign.line1} | ${sign.line2} | ${sign.line3} | ${sign.line4Online} (offline: ${sign.line4Offline})`);
  out.item(`npc: ${npc.displayName} | ${npc.subtitle} (offline: ${npc.subtitleOffline}), item ${npc.floatingItem}`);
  out.item(`inventory: ${npc.inventory.title}, ${npc.inventory.size} slots, items "${npc.inventory.itemName}"`);
  out.item(`state labels: ${pairs(states)}`);
  out.item(`status items: ${pairs(npc.statusItems)}`);
}

/**
 * `display`: the same displays as /api/displays, from the console. Editing a field stays with
 * the API and the dashboard (a patch of nested fields reads badly as words); `reset` rewrites a
 * group's display with the defaults, as POST /api/displays/{name}/reset does, and publishes
 * DISPLAY_UPDATED with the caller as actor. Groups are named in any case.
 */
export function displayCommand(store: DisplayStore): Command {
  const command: Command = {
    name: 'display',
    description: 'The signs, NPC and state labels of each group (display module)',
    usage: USAGE,
    permission: 'svc.command.display',
    // The level of the routes it stands for: service (GET and PUT /api/displays…).
    level: 'service',
    subcommands: [
      { name: 'list', description: 'Every non-proxy group with its NPC name and item', usage: 'display list' },
      { name: 'show', description: 'One group’s display', usage: 'display show <group>', args: ['group'] },
      { name: 'label', description: 'The label a group shows for a state', usage: 'display label <group> <state>', args: ['group', 'text'] },
      { name: 'reset', description: 'Rewrite a group’s display with the defaults', usage: 'display reset <group>', args: ['group'] },
    ],
    run: dispatchSubcommands(USAGE, {
      list({ out }, rest) {
        expectArgs(command, rest, 0);
        const displays = store.list();
        out.header(`${displays.length} display(s)`);
        for (const d of displays) out.item(`${d.name}: ${d.npc.displayName}, item ${d.npc.floatingItem}, ${Object.keys(d.states).length} state label(s)`);
      },
      show({ out }, rest) {
        const [group] = expectArgs({ usage: 'display show <group>' }, rest, 1);
        print(store.get(group!), out);
      },
      label({ out }, rest) {
        const [group, state] = expectArgs({ usage: 'display label <group> <state>' }, rest, 2);
        const { raw, label } = store.label(group!, state!);
        out.info(label === raw ? `${raw} has no label of its own: shown as it is` : `${raw} is shown as ${label}`);
      },
      reset({ out, actor }, rest) {
        const [group] = expectArgs({ usage: 'display reset <group>' }, rest, 1);
        const display = store.reset(group!, actor);
        out.success(`the display of ${display.name} is the default again`);
        print(display, out);
      },
    }, { whenNone: 'list' }),
  };
  return command;
}
