/**
 * Agent self-update policy: no signature key, no update; the controller's key only over the
 * pinned TLS channel, agent.toml's key first; no downgrade unless allow_downgrade. The table
 * is the pure decision; the rest drives AgentSelfUpdate against a real release feed on port 0
 * and reads what it logs.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AgentSelfUpdate, decideAgentUpdate, type AgentUpdateInput } from '../../src/agent/self-update';
import { createLogger } from '../../src/log';
import { startReleaseFeed } from '../support/release-feed';
import { tempDir, waitFor } from '../support/controller';

const ed25519 = () => generateKeyPairSync('ed25519').publicKey.export({ format: 'pem', type: 'spki' }) as string;
const AGENT_KEY = ed25519();
const CONTROLLER_KEY = ed25519();
const FEED = 'https://example.invalid/repos/example/svc/releases/latest';

const base: AgentUpdateInput = {
  running: '0.14.0',
  target: '0.15.0',
  enabled: true,
  hasBinary: true,
  release: { feedUrl: FEED, publicKey: CONTROLLER_KEY },
  agentKey: '',
  channelPinned: true,
  allowDowngrade: false,
};

describe('decideAgentUpdate', () => {
  const rows: { what: string; input: Partial<AgentUpdateInput>; kind: 'none' | 'update' | 'refuse'; keyFrom?: 'agent.toml' | 'controller'; reason?: RegExp }[] = [
    // Same version, or nothing to follow.
    { what: 'same version', input: { target: '0.14.0' }, kind: 'none' },
    { what: 'same version spelt 0.14', input: { target: '0.14' }, kind: 'none' },
    { what: 'no controller version', input: { target: undefined }, kind: 'none' },
    { what: 'auto_update = false', input: { enabled: false, target: '0.13.0', agentKey: '' }, kind: 'none' },
    // Newer: a key decides.
    { what: 'newer, controller key over the pinned channel', input: {}, kind: 'update', keyFrom: 'controller' },
    { what: 'newer, agent key (wins over the controller\'s)', input: { agentKey: AGENT_KEY }, kind: 'update', keyFrom: 'agent.toml' },
    { what: 'newer, agent key, controller sends none', input: { agentKey: AGENT_KEY, release: { feedUrl: FEED, publicKey: '' } }, kind: 'update', keyFrom: 'agent.toml' },
    { what: 'newer, agent key, plain ws:// channel', input: { agentKey: AGENT_KEY, channelPinned: false }, kind: 'update', keyFrom: 'agent.toml' },
    { what: 'newer, no key anywhere', input: { release: { feedUrl: FEED, publicKey: '' } }, kind: 'refuse', reason: /without a signature key; set update_public_key in agent\.toml, or \[controller\] update_public_key/ },
    { what: 'newer, controller key over plain ws://', input: { channelPinned: false }, kind: 'refuse', reason: /without a pinned TLS certificate .*set update_public_key in agent\.toml/ },
    { what: 'newer, agent key unusable', input: { agentKey: 'not a key' }, kind: 'refuse', reason: /update_public_key of agent\.toml is unusable/ },
    { what: 'newer, controller key unusable', input: { release: { feedUrl: FEED, publicKey: 'AAAA' } }, kind: 'refuse', reason: /update_public_key of the controller's svc\.toml \[controller\] is unusable/ },
    { what: 'newer major', input: { target: '1.0.0', agentKey: AGENT_KEY }, kind: 'update', keyFrom: 'agent.toml' },
    // Older: refused unless asked, whatever the key.
    { what: 'older, key present', input: { target: '0.13.9', agentKey: AGENT_KEY }, kind: 'refuse', reason: /not downgrading .*allow_downgrade = true/ },
    { what: 'older, no key', input: { target: '0.13.9', release: { feedUrl: FEED, publicKey: '' } }, kind: 'refuse', reason: /not downgrading/ },
    { what: 'older, allow_downgrade, key present', input: { target: '0.13.9', allowDowngrade: true }, kind: 'update', keyFrom: 'controller' },
    { what: 'older, allow_downgrade, no key', input: { target: '0.13.9', allowDowngrade: true, release: { feedUrl: FEED, publicKey: '' } }, kind: 'refuse', reason: /without a signature key/ },
    { what: 'older minor by number, not by text (0.9 < 0.14)', input: { target: '0.9.0', agentKey: AGENT_KEY }, kind: 'refuse', reason: /not downgrading/ },
    // Nothing to update from or with.
    { what: 'runs from source', input: { hasBinary: false }, kind: 'refuse', reason: /runs from source/ },
    { what: 'controller without a feed', input: { release: undefined }, kind: 'refuse', reason: /no \[controller\] update_check_url/ },
    { what: 'controller version not a release', input: { target: '0.15.0-dev' }, kind: 'refuse', reason: /0\.15\.0-dev is not a release version/ },
  ];
  for (const row of rows) {
    test(row.what, () => {
      const decision = decideAgentUpdate({ ...base, ...row.input });
      expect(decision.kind).toBe(row.kind);
      if (decision.kind === 'update') {
        expect(decision.keyFrom).toBe(row.keyFrom!);
        expect(decision.publicKey).toBe(row.keyFrom === 'agent.toml' ? (row.input.agentKey ?? '').trim() : CONTROLLER_KEY.trim());
        expect(decision.version).toBe(row.input.target ?? base.target!);
      }
      if (decision.kind === 'refuse') expect(decision.reason).toMatch(row.reason!);
    });
  }

  test('a downgrade that is allowed says so', () => {
    const decision = decideAgentUpdate({ ...base, target: '0.13.0', allowDowngrade: true });
    expect(decision).toMatchObject({ kind: 'update', downgrade: true });
    expect(decideAgentUpdate(base)).toMatchObject({ kind: 'update', downgrade: false });
  });
});

describe('AgentSelfUpdate', () => {
  const tmp = tempDir('svc-agent-self-update-');
  const feed = startReleaseFeed();
  afterAll(() => {
    feed.stop();
    tmp.remove();
  });
  const binary = join(tmp.dir, 'svc');
  writeFileSync(binary, 'the running binary');
  const candidate = join(tmp.dir, 'svc-next');
  writeFileSync(candidate, 'not really svc');
  feed.publish({ version: '0.15.0', binary: candidate, fault: 'bad-signature' });
  feed.publish({ version: '0.13.0', binary: candidate, fault: 'bad-signature' });

  function agentUpdate(deps: { publicKey?: string; allowDowngrade?: boolean; channelPinned?: boolean }) {
    const lines: { level: number; msg: string }[] = [];
    const log = createLogger({ format: 'json', colored: false, level: 'debug', stdout: { write: (line: string) => lines.push(JSON.parse(line)) } });
    const restarts: string[] = [];
    const updates = new AgentSelfUpdate({ enabled: true, publicKey: deps.publicKey ?? '', allowDowngrade: deps.allowDowngrade, channelPinned: deps.channelPinned ?? true, log, restart: (r) => restarts.push(r), binary, version: '0.14.0' });
    return { updates, lines, restarts, warnings: () => lines.filter((l) => l.level >= 40).map((l) => l.msg) };
  }
  const release = (publicKey: string) => ({ feedUrl: feed.latestUrl, publicKey });

  test('no key: refused before the feed is asked, logged once over many logins, with what to set', () => {
    const before = feed.requests.length;
    const a = agentUpdate({});
    for (let i = 0; i < 5; i++) a.updates.consider('0.15.0', release(''));
    expect(a.warnings()).toEqual([expect.stringMatching(/not updating without a signature key; set update_public_key in agent\.toml/)]);
    expect(feed.requests.length).toBe(before);
    expect(a.restarts).toEqual([]);
  });

  test('a downgrade: refused once over many logins, never fetched, whatever key comes', () => {
    const before = feed.requests.length;
    const a = agentUpdate({ publicKey: feed.publicKey });
    for (let i = 0; i < 3; i++) a.updates.consider('0.13.0', release(''));
    a.updates.consider('0.13.0', release(feed.publicKey));
    expect(a.warnings()).toEqual([expect.stringMatching(/controller runs svc 0\.13\.0, this agent 0\.14\.0: not downgrading .*allow_downgrade = true in agent\.toml/)]);
    expect(feed.requests.length).toBe(before);
  });

  test('the controller\'s key over plain ws:// is not taken', () => {
    const before = feed.requests.length;
    const a = agentUpdate({ channelPinned: false });
    a.updates.consider('0.15.0', release(feed.publicKey));
    a.updates.consider('0.15.0', release(feed.publicKey));
    expect(a.warnings()).toEqual([expect.stringMatching(/without a pinned TLS certificate/)]);
    expect(feed.requests.length).toBe(before);
  });

  test('a refusal that goes away: the key arrives at a later login and the update is tried, once', async () => {
    const a = agentUpdate({});
    a.updates.consider('0.15.0', release(''));
    a.updates.consider('0.15.0', release(feed.publicKey));
    // The release is signed by a stranger: the key was used, and the signature refused.
    await waitFor(() => a.warnings().some((m) => m.includes('agent update to 0.15.0 failed')), { what: 'the update attempt to end' });
    expect(a.warnings()).toEqual([
      expect.stringMatching(/without a signature key/),
      expect.stringMatching(/updating to it \(signature key from controller\)/),
      expect.stringMatching(/agent update to 0\.15\.0 failed, the binary is unchanged: the signature over SHA256SUMS .* does not verify/),
    ]);
    const asked = feed.requests.length;
    a.updates.consider('0.15.0', release(feed.publicKey));
    expect(feed.requests.length).toBe(asked);
    expect(a.restarts).toEqual([]);
  });

  test('allow_downgrade = true follows the controller down, with the agent\'s own key', async () => {
    const a = agentUpdate({ publicKey: feed.publicKey, allowDowngrade: true });
    a.updates.consider('0.13.0', release(''));
    await waitFor(() => a.warnings().some((m) => m.includes('agent update to 0.13.0 failed')), { what: 'the downgrade attempt to end' });
    expect(a.warnings()[0]).toMatch(/updating to it \(a downgrade, allow_downgrade = true; signature key from agent\.toml\)/);
    expect(feed.requests).toContain('/repos/example/svc/releases/tags/v0.13.0');
  });
});
