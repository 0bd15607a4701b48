/**
 * The editor's live preview: the sign, the NPC's hologram and the server picker as players
 * would see them with the fields as typed, for a state and numbers the operator picks.
 *
 * Where each part comes from, as the page says beside it: the state's label is the
 * controller's (GET /api/displays/{name}/state/{state}) while the state labels are as saved,
 * and the page's own (the same rule: the label from `states`, else the state itself) while
 * they hold unsaved changes. Placeholders and colour codes are filled and drawn by the page the
 * way the display plugin does on the servers (render.tsx): the controller renders no text.
 * The numbers come from the group as it is now when this sign-in may read it (its player
 * limit from GET /api/groups/{name}, players and servers from GET /api/services), else from
 * examples; the operator may change any of them.
 */
import { useState } from 'preact/hooks';
import { useQuery } from '@tanstack/preact-query';
import { api } from '../../api';
import type { DisplayAccess } from './access';
import { applied, displayPath, draftMap, KEYS, SERVICE_STATES, type Display, type Draft, type StateLabel } from './model';
import { KEY_PATTERN } from './rules';
import { fill, labelOf, McLine, plain, SignBoard, signLines, statusItemOf, type Sample } from './render';

interface GroupFacts {
  maxPlayers: number;
}
interface ServiceFacts {
  name: string;
  playerCount: number;
  state: string;
}

/** The group's numbers now, each undefined when this sign-in may not read it (or while read). */
function useGroupNumbers(name: string, access: DisplayAccess) {
  const group = useQuery({
    queryKey: [...KEYS.sample(name), 'group'],
    queryFn: () => api<GroupFacts>(`/api/groups/${encodeURIComponent(name)}`),
    enabled: access.groups,
    staleTime: 10_000,
  });
  const services = useQuery({
    queryKey: [...KEYS.sample(name), 'services'],
    queryFn: () => api<{ services: ServiceFacts[] }>(`/api/services?group=${encodeURIComponent(name)}`),
    enabled: access.services,
    staleTime: 10_000,
  });
  const running = services.data?.services.filter((s) => s.state !== 'STOPPED' && s.state !== 'CRASHED');
  return {
    maxPlayers: group.data?.maxPlayers,
    players: running?.reduce((sum, s) => sum + s.playerCount, 0),
    servers: running?.length,
    firstServer: running?.[0]?.name,
  };
}

const KEY = new RegExp(KEY_PATTERN);

/** Core states a server cannot be joined in; READY and the custom states an SDK sets on a running server can. */
const NOT_JOINABLE: ReadonlySet<string> = new Set(['PREPARING', 'PREPARED', 'STARTING', 'DRAINING', 'STOPPING', 'STOPPED', 'CRASHED']);

/** A wool or dye colour's swatch for a picker slot (the item's name says the rest). */
const DYES: Record<string, string> = {
  WHITE: '#e9ecec', ORANGE: '#f9801d', MAGENTA: '#c74ebd', LIGHT_BLUE: '#3ab3da', YELLOW: '#fed83d', LIME: '#80c71f', PINK: '#f38baa', GRAY: '#474f52',
  LIGHT_GRAY: '#9d9d97', CYAN: '#169c9c', PURPLE: '#8932b8', BLUE: '#3c44aa', BROWN: '#835432', GREEN: '#5e7c16', RED: '#b02e26', BLACK: '#1d1d21',
};
function swatchOf(item: string): string | undefined {
  const upper = item.toUpperCase().replace(/^MINECRAFT:/, '');
  const dye = Object.keys(DYES)
    .sort((a, b) => b.length - a.length)
    .find((d) => upper.startsWith(`${d}_`));
  return dye ? DYES[dye] : undefined;
}

interface Props {
  display: Display;
  draft: Draft;
  access: DisplayAccess;
}

export function Preview({ display, draft, access }: Props) {
  const shown = applied(display, draft);
  const numbers = useGroupNumbers(display.name, access);
  const [state, setState] = useState('READY');
  const [joinable, setJoinable] = useState(true);
  const [typed, setTyped] = useState<{ players?: string; maxPlayers?: string; servers?: string }>({});

  const states = draftMap(display, draft, 'states');
  const custom = states.map(([key]) => key).filter((key) => !(SERVICE_STATES as readonly string[]).includes(key));
  const options = [...SERVICE_STATES, ...custom.sort()];
  const chosen = options.includes(state) ? state : 'READY';

  // The controller's label for the state, as saved; asked once per state and read again on the module's events.
  const statesEdited = Object.keys(draft.maps.states).length > 0;
  const served = useQuery({
    queryKey: KEYS.label(display.name, chosen),
    queryFn: () => api<StateLabel>(`${displayPath(display.name)}/state/${encodeURIComponent(chosen)}`),
    // A key typed here that the route's pattern refuses is read by the page alone.
    enabled: KEY.test(chosen),
    staleTime: 30_000,
  });
  const ownLabel = labelOf(states, chosen);
  const label = statesEdited || !served.data ? ownLabel : served.data.label;

  const numberOf = (key: 'players' | 'maxPlayers' | 'servers', live: number | undefined, fallback: number) => {
    const text = typed[key];
    if (text !== undefined) return Math.max(0, Math.floor(Number(text) || 0));
    return live ?? fallback;
  };
  const players = numberOf('players', numbers.players, 0);
  const maxPlayers = numberOf('maxPlayers', numbers.maxPlayers, 50);
  const servers = numberOf('servers', numbers.servers, 1);
  const sample: Sample = { name: display.name, players, maxPlayers, servers, label };
  // The picker has one item per server: {name} is the server's; its own players, one server.
  const serverName = numbers.firstServer ?? `${display.name}-1`;
  const itemSample: Sample = { ...sample, name: serverName, servers: 1 };

  const frames = shown.npc.displayName.split('||');
  const statusItem = statusItemOf(Object.entries(shown.npc.statusItems), label);
  const swatch = swatchOf(statusItem);
  const size = shown.npc.inventory.size;
  const filled = Math.min(servers, size);

  const numberField = (key: 'players' | 'maxPlayers' | 'servers', labelText: string, value: number) => (
    <div class="dp-field dp-number">
      <label for={`dp-sample-${key}`}>{labelText}</label>
      <input
        id={`dp-sample-${key}`}
        type="number"
        min={0}
        step={1}
        inputMode="numeric"
        value={typed[key] ?? String(value)}
        onInput={(e) => {
          const text = (e.currentTarget as HTMLInputElement).value;
          setTyped((t) => ({ ...t, [key]: text }));
        }}
      />
    </div>
  );

  const liveNote =
    numbers.servers !== undefined
      ? `Numbers from ${display.name} now: ${numbers.servers} ${numbers.servers === 1 ? 'server' : 'servers'} running, ${numbers.players} ${numbers.players === 1 ? 'player' : 'players'}${numbers.maxPlayers === undefined ? '' : `, a limit of ${numbers.maxPlayers}`}.`
      : numbers.maxPlayers !== undefined
        ? `The player limit is ${display.name}’s; players and servers are examples (this sign-in may not read the services).`
        : 'Example numbers: this sign-in may not read the group and its services.';

  return (
    <section class="dp-preview" aria-labelledby="dp-preview-title">
      <h3 id="dp-preview-title">Preview</h3>
      <p class="dp-muted dp-small">
        As players will see it, following what you type. The page fills the placeholders and draws the colour codes the way the display plugin does on the servers: the
        controller renders no text, it answers each state’s label.
      </p>
      <fieldset class="dp-sample">
        <legend>Shown for</legend>
        <div class="dp-field">
          <label for="dp-sample-state">State</label>
          <select
            id="dp-sample-state"
            value={chosen}
            onChange={(e) => {
              const next = (e.currentTarget as HTMLSelectElement).value;
              setState(next);
              setJoinable(!NOT_JOINABLE.has(next));
            }}
          >
            {options.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
        {numberField('players', 'Players', players)}
        {numberField('maxPlayers', 'Max players', maxPlayers)}
        {numberField('servers', 'Servers', servers)}
        <div class="dp-check">
          <input id="dp-sample-joinable" type="checkbox" checked={joinable} onChange={(e) => setJoinable((e.currentTarget as HTMLInputElement).checked)} />
          <label for="dp-sample-joinable">A server of the group can be joined</label>
        </div>
        <p class="dp-muted dp-small dp-sample-note">{liveNote}</p>
      </fieldset>
      <p class="dp-small dp-label-source" data-source={statesEdited || !served.data ? 'page' : 'controller'}>
        {chosen} shows as <strong>“{plain(label)}”</strong>
        {statesEdited
          ? `: from your unsaved state labels (the page’s own reading: a state’s label, else the state itself)${served.data ? `; the controller answers “${plain(served.data.label)}” for the saved ones` : ''}.`
          : served.data
            ? `: the controller’s label (GET ${displayPath(display.name)}/state/${chosen}).`
            : served.isError
              ? ': from the labels as read (the controller’s label for this state could not be read).'
              : ': from the labels as read.'}
      </p>

      <h4>Sign</h4>
      <SignBoard lines={signLines(shown, sample, joinable)} label="Sign preview" />

      <h4>NPC</h4>
      <div class="dp-holo" role="group" aria-label="NPC preview">
        {frames.map((frame, i) => (
          <div key={i} class="dp-frame">
            {frames.length > 1 && <span class="dp-frame-no">Frame {i + 1} of {frames.length}</span>}
            <McLine text={fill(frame, sample)} class="dp-holo-name" />
          </div>
        ))}
        <McLine text={fill(joinable ? shown.npc.subtitle : shown.npc.subtitleOffline, sample)} class="dp-holo-sub" />
      </div>
      <p class="dp-small">
        Floating item: <code>{shown.npc.floatingItem}</code>
        {frames.length > 1 && ` · the name cycles through ${frames.length} frames`}
      </p>

      <h4>Server picker</h4>
      <div class="dp-inv" role="group" aria-label="Server picker preview">
        <McLine text={fill(shown.npc.inventory.title, sample)} class="dp-inv-title" />
        <div class="dp-slots" aria-hidden="true">
          {Array.from({ length: size }, (_, i) => (
            <span key={i} class={i < filled ? 'dp-slot dp-slot-item' : 'dp-slot'} style={i < filled && swatch ? { background: swatch } : undefined} />
          ))}
        </div>
        <p class="dp-small dp-inv-note">
          {size} slots ({size / 9} {size === 9 ? 'row' : 'rows'}), {servers} {servers === 1 ? 'server' : 'servers'}
          {servers > size ? `: more than fit, so the plugin shows pages of ${size - 9} with arrows in the bottom row` : ''}.
        </p>
      </div>
      <div class="dp-tooltip" role="group" aria-label="Server item preview">
        <McLine text={fill(shown.npc.inventory.itemName, itemSample)} class="dp-tip-name" />
        {shown.npc.inventory.itemLore.map((line, i) => (
          <McLine key={i} text={fill(line, itemSample)} class="dp-tip-lore" />
        ))}
      </div>
      <p class="dp-small">
        Item for “{plain(label)}”: <code>{statusItem}</code>
        {Object.hasOwn(shown.npc.statusItems, label) ? '' : ' (no status item for this label: the plugin shows GRAY_WOOL)'}.
      </p>
    </section>
  );
}
