/**
 * Shared pieces of the dashboard-login route tests: a real controller with the builtin modules
 * (optionally with an auth.toml written before the module reads it), every event it publishes,
 * the audit log read back through GET /api/audit, and the login calls the files repeat.
 */
import { expect } from 'bun:test';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateSync } from 'otplib';
import type { SvcEvent } from '../../../src/events/catalogue';
import { BUILTIN_MODULES } from '../../../src/modules/builtin';
import type { ModuleEntry } from '../../../src/modules/module';
import { expectErrorBody, readJson, startController, type TestController } from '../../support/controller';
import { bringOnline, grant, loginCode, type Player } from '../../support/dashboard-login';

export interface AuthSetup {
  /** Written to config/modules/auth/auth.toml before the module first reads its config. */
  auth?: string;
  /** Appended to svc.toml (e.g. a [dashboard] table). */
  toml?: string;
  /** Extra lines of svc.toml's [api] table. */
  apiToml?: string;
  modules?: readonly ModuleEntry[];
}

/** A controller under test; `c` changes on restart (same directory, new port). */
export interface AuthTest {
  c: TestController;
  /** Every event published on the controller's bus, across restarts. */
  events: SvcEvent[];
  restart(): Promise<void>;
  /** Starts again on the same directory after `c.stopKeepingDir()` (to change files in between). */
  restartStopped(): Promise<void>;
  /** Stops the controller and removes its directory. */
  stop(): Promise<void>;
}

export const authTomlPath = (dir: string): string => join(dir, 'config', 'modules', 'auth', 'auth.toml');

/**
 * Starts a controller. With `auth`, a first start lays out the directory (svc.toml, module
 * files), the auth.toml is replaced, and the controller is started again on the same directory.
 */
export async function startAuth(setup: AuthSetup = {}): Promise<AuthTest> {
  const modules = setup.modules ?? BUILTIN_MODULES;
  let c = await startController({ modules, toml: setup.toml, apiToml: setup.apiToml });
  const dir = c.dir;
  if (setup.auth !== undefined) {
    await c.stopKeepingDir();
    mkdirSync(join(dir, 'config', 'modules', 'auth'), { recursive: true });
    writeFileSync(authTomlPath(dir), setup.auth);
    c = await startController({ modules, dir });
  }
  const events: SvcEvent[] = [];
  const test: AuthTest = {
    c,
    events,
    async restart() {
      await test.c.stopKeepingDir();
      await test.restartStopped();
    },
    async restartStopped() {
      test.c = await startController({ modules, dir });
      test.c.controller.kernel.bus.subscribe((e) => void events.push(e));
    },
    async stop() {
      await test.c.stopKeepingDir();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  c.controller.kernel.bus.subscribe((e) => void events.push(e));
  return test;
}

/** Asserts the status and the error code of the spec's error body; returns the body. */
export async function expectError(response: Response, status: number, code: string, mention?: string | RegExp) {
  const body = await expectErrorBody(response);
  expect({ status: response.status, error: body.error }).toEqual({ status, error: code });
  if (typeof mention === 'string') expect(body.message).toContain(mention);
  else if (mention) expect(body.message).toMatch(mention);
  return body;
}

/** Asserts the status and parses the JSON body. */
export async function expectJson(response: Response, status = 200): Promise<ReturnType<typeof JSON.parse>> {
  const text = await response.text();
  if (response.status !== status) throw new Error(`expected ${status}, got ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

export interface AuditRow {
  actor: string;
  target: string;
  data: Record<string, string>;
}

/** The audit log's entries of one action, oldest first, with the details split back into keys. */
export async function auditOf(c: TestController, action: string): Promise<AuditRow[]> {
  const body = await expectJson(await c.api(`/api/audit?limit=500&action=${action}`));
  const entries = body.entries as { actor: string; target: string; details: string }[];
  return entries.reverse().map((e) => ({ actor: e.actor, target: e.target, data: parseDetails(e.details) }));
}

/** `key=value, key=value` (the audit recorder's format) back into a map. */
function parseDetails(details: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (details === '') return out;
  for (const part of details.split(', ')) {
    const at = part.indexOf('=');
    out[part.slice(0, at)] = part.slice(at + 1);
  }
  return out;
}

/** The events of one type published so far (in-process bus). */
export const eventsOf = (t: AuthTest, type: string): SvcEvent[] => t.events.filter((e) => e.type === type);

/** POST /api/auth/consume-challenge without credentials. */
export function consume(c: TestController, challenge: string, headers: Record<string, string> = {}): Promise<Response> {
  return c.api('/api/auth/consume-challenge', { method: 'POST', token: null, json: { challenge }, headers });
}

export function totpVerify(c: TestController, challengeId: string, code: string): Promise<Response> {
  return c.api('/api/auth/totp-verify', { method: 'POST', token: null, json: { challengeId, code } });
}

/** Brings the player online, grants nodes, and logs in with a fresh code: the full login answer. */
export async function login(c: TestController, player: Player, nodes: readonly string[] = []) {
  await bringOnline(c, player);
  await grant(c, player, nodes);
  return expectJson(await consume(c, await loginCode(c, player)));
}

/** GET with a session token (or any token). */
export const getAs = (c: TestController, path: string, token: string | null) => c.api(path, { token });

export async function meOf(c: TestController, token: string) {
  return expectJson(await getAs(c, '/api/auth/me', token));
}

/**
 * The TOTP code of the 30-second step `offset` steps from now, as an authenticator app would
 * show it then. A live code is accepted once per step and only for a step newer than the last
 * accepted one, so a test uses offset 0 and then +1 (both stay inside the ±1 window even when
 * the clock crosses a step boundary on the way to the server; -1 would not).
 */
export function totpCode(secret: string, offset = 0): string {
  const step = Math.floor(Date.now() / 30_000) + offset;
  return generateSync({ secret, epoch: step * 30 });
}

/** Six digits that are none of the codes valid right now (window ±1, with a step of margin). */
export function wrongTotpCode(secret: string): string {
  const valid = new Set([-2, -1, 0, 1, 2].map((o) => totpCode(secret, o)));
  for (let n = 0; ; n++) {
    const candidate = String(n).padStart(6, '0');
    if (!valid.has(candidate)) return candidate;
  }
}

/** Enrols the session's player in TOTP and confirms with the current code (the next live code must use offset +1). */
export async function enableTotp(c: TestController, token: string): Promise<{ secret: string; recoveryCodes: string[] }> {
  const enrolment = await expectJson(await c.api('/api/profile/totp/enroll', { method: 'POST', token }));
  const confirmed = await c.api('/api/profile/totp/confirm', { method: 'POST', token, json: { code: totpCode(enrolment.secret, 0) } });
  await expectJson(confirmed);
  return enrolment;
}

export { readJson };
