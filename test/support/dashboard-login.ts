import { deriveServiceToken } from '../../src/core/auth';
import type { TestController } from './controller';

/**
 * Dashboard logins in tests, the way a player gets one: the proxy reports them online, the
 * in-game command's route mints a code, the dashboard consumes it. Nodes are granted through a
 * permission group of their own (perms module API), so a test says exactly what a session holds.
 */
export interface Player {
  uuid: string;
  name: string;
}

let groupCounter = 0;

/** Reports the player online through the bridge's event route (players module). */
export async function bringOnline(c: TestController, player: Player, service = 'Lobby-1'): Promise<void> {
  const response = await c.api('/api/proxy/events', { method: 'POST', token: c.service, json: { type: 'PLAYER_CONNECTED', player: player.name, uuid: player.uuid, service } });
  if (response.status !== 200) throw new Error(`bringing ${player.name} online answered ${response.status}: ${await response.text()}`);
}

/** Gives the player exactly these extra nodes (a fresh group holding them). */
export async function grant(c: TestController, player: Player, nodes: readonly string[]): Promise<void> {
  if (nodes.length === 0) return;
  const group = `grant${++groupCounter}`;
  const created = await c.api('/api/permissions/groups', { method: 'POST', json: { name: group } });
  if (created.status !== 201) throw new Error(`creating group ${group} answered ${created.status}: ${await created.text()}`);
  for (const node of nodes) {
    const added = await c.api(`/api/permissions/groups/${group}/permissions`, { method: 'POST', json: { permission: node } });
    if (added.status !== 200) throw new Error(`granting ${node} answered ${added.status}: ${await added.text()}`);
  }
  const joined = await c.api(`/api/permissions/players/${player.uuid}/groups`, { method: 'POST', json: { group } });
  if (joined.status !== 200) throw new Error(`adding ${player.name} to ${group} answered ${joined.status}: ${await joined.text()}`);
}

/** A login code for an online player, as the in-game command gets it. */
export async function loginCode(c: TestController, player: Player): Promise<string> {
  const response = await c.api('/api/auth/generate-code', { method: 'POST', token: c.service, json: player });
  if (response.status !== 200) throw new Error(`generate-code answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { code: string }).code;
}

/** Brings the player online, grants the nodes, logs in with a code; the session token. */
export async function loginAs(c: TestController, player: Player, nodes: readonly string[] = []): Promise<string> {
  await bringOnline(c, player);
  await grant(c, player, nodes);
  const code = await loginCode(c, player);
  const response = await c.api('/api/auth/consume-challenge', { method: 'POST', token: null, json: { challenge: code } });
  const body = (await response.json()) as { token?: string; totpRequired?: boolean };
  if (response.status !== 200 || !body.token) throw new Error(`consume-challenge answered ${response.status}: ${JSON.stringify(body)}`);
  return body.token;
}

/** Version-4-looking uuids for test players, one per index. */
export const testPlayer = (index: number, name = `Player${index}`): Player => ({
  uuid: `00000000-0000-4000-8000-${index.toString(16).padStart(12, '0')}`,
  name,
});

/**
 * What these helpers need of a controller, over HTTP to a running binary at `url` with the
 * master `token`: `api` (JSON bodies, `token: null` for none) and the derived service token.
 */
export function binaryController(url: string, token: string): TestController {
  const api = (path: string, init: { method?: string; json?: unknown; token?: string | null } = {}) =>
    fetch(url + path, {
      method: init.method ?? 'GET',
      headers: { ...(init.token === null ? {} : { authorization: `Bearer ${init.token ?? token}` }), ...(init.json === undefined ? {} : { 'content-type': 'application/json' }) },
      body: init.json === undefined ? undefined : JSON.stringify(init.json),
    });
  return { api, service: deriveServiceToken(token), master: token } as unknown as TestController;
}
