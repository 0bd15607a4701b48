import type { Logger } from '../log';
import { RUNNING_BINARY } from '../core/update/running-binary';
import { parsePublicKey } from '../core/update/signature';
import { updateBinary, UpdateError } from '../core/update/updater';
import { parseRelease } from '../core/info/update-check';
import { VERSION } from '../version';

export interface AgentRelease {
  feedUrl: string;
  publicKey: string;
}

/** What the agent knows when the controller names its version at login. */
export interface AgentUpdateInput {
  /** This agent's version. */
  running: string;
  /** AUTH_RESPONSE's controllerVersion. */
  target: string | undefined;
  /** agent.toml `auto_update`. */
  enabled: boolean;
  /** Whether there is a binary to replace (false when it runs from source). */
  hasBinary: boolean;
  /** AUTH_RESPONSE's release: the controller's feed and key; absent when it has no feed. */
  release: AgentRelease | undefined;
  /** agent.toml `update_public_key`. */
  agentKey: string;
  /**
   * The controller's key came over TLS to the certificate this agent pinned: it is the
   * controller speaking. Over plain ws:// anyone on the path could have put their own key (and
   * feed) there, so it is not taken.
   */
  channelPinned: boolean;
  /** agent.toml `allow_downgrade`. */
  allowDowngrade: boolean;
}

export type AgentUpdateDecision =
  /** Nothing to do: same version, or auto_update off. */
  | { kind: 'none' }
  | { kind: 'update'; version: string; publicKey: string; keyFrom: 'agent.toml' | 'controller'; downgrade: boolean }
  /** Not updating, and why (one line for the log, naming what to set). */
  | { kind: 'refuse'; reason: string };

/**
 * Whether an agent follows its controller to `target`, and with which signature key. Pure.
 *
 * - A release is only installed with a signature key: agent.toml `update_public_key` when set
 *   (then it is the only key taken), else the controller's `[controller] update_public_key`
 *   when it came over the pinned TLS channel. The controller already decides what runs on this
 *   node, and the key is its operator's setting in svc.toml sent over the channel that pinning
 *   authenticates, so taking it adds no one new to trust; what it does not cover is a
 *   controller whose own host is taken over (its key can then be swapped for the attacker's,
 *   and an update runs as the agent's user, outside service isolation). An agent that must not
 *   follow a compromised controller sets its own key. With no key at all nothing is installed:
 *   a SHA256SUMS that is only served, not signed, proves nothing about the binary.
 * - A release older than this agent is a downgrade (perhaps to a release with a known flaw):
 *   refused unless agent.toml `allow_downgrade = true`.
 */
export function decideAgentUpdate(input: AgentUpdateInput): AgentUpdateDecision {
  const { running, target } = input;
  if (!target || target === running || !input.enabled) return { kind: 'none' };
  const from = parseRelease(running);
  const to = parseRelease(target);
  if (from && to && compare(to, from) === 0) return { kind: 'none' };
  const lead = `the controller runs svc ${target}, this agent ${running}`;
  if (!input.hasBinary) return { kind: 'refuse', reason: `${lead}: it runs from source, update it by hand` };
  if (!input.release) return { kind: 'refuse', reason: `${lead}: the controller has no [controller] update_check_url to update from; update this agent by hand` };
  if (!from || !to) return { kind: 'refuse', reason: `${lead}: not updating, ${!to ? target : running} is not a release version (like 0.15.1) to compare` };
  if (compare(to, from) < 0 && !input.allowDowngrade) {
    return { kind: 'refuse', reason: `${lead}: not downgrading to an older release; set allow_downgrade = true in agent.toml to follow the controller down` };
  }
  const agentKey = input.agentKey.trim();
  const controllerKey = input.release.publicKey.trim();
  let key: { publicKey: string; keyFrom: 'agent.toml' | 'controller' };
  if (agentKey) key = { publicKey: agentKey, keyFrom: 'agent.toml' };
  else if (controllerKey && input.channelPinned) key = { publicKey: controllerKey, keyFrom: 'controller' };
  else if (controllerKey) {
    return { kind: 'refuse', reason: `${lead}: not updating, the controller's update key came over a channel without a pinned TLS certificate (plain ws://), where anyone on the path could have replaced it; set update_public_key in agent.toml` };
  } else {
    return {
      kind: 'refuse',
      reason: `${lead}: not updating without a signature key; set update_public_key in agent.toml, or [controller] update_public_key in the controller's svc.toml (the Ed25519 key the release's SHA256SUMS.sig is made with)`,
    };
  }
  try {
    parsePublicKey(key.publicKey);
  } catch (error) {
    const where = key.keyFrom === 'agent.toml' ? 'agent.toml' : "the controller's svc.toml [controller]";
    return { kind: 'refuse', reason: `${lead}: not updating, the update_public_key of ${where} is unusable: ${(error as Error).message}` };
  }
  return { kind: 'update', version: target, ...key, downgrade: compare(to, from) < 0 };
}

function compare(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

/**
 * An agent follows its controller's version: told at login that the controller runs another
 * version, it installs exactly that release from the controller's feed, signed with a key it
 * accepts (decideAgentUpdate), with every check of `svc update`, then hands over to the new
 * binary (services detached and re-attached, as after an agent restart). One attempt per
 * controller version, so a release that fails its checks is not downloaded again at every
 * reconnect; a refusal is logged once (the decision is made again at each login, so setting
 * a key on the controller and restarting it is enough).
 */
export class AgentSelfUpdate {
  private attempted = new Set<string>();
  private refusals = new Set<string>();
  private running = false;

  constructor(
    private readonly deps: {
      enabled: boolean;
      /** agent.toml's key; blank: the controller's (over the pinned channel only). */
      publicKey: string;
      /** agent.toml `allow_downgrade`. */
      allowDowngrade?: boolean;
      /** The channel to the controller is TLS to a pinned certificate (see AgentUpdateInput). */
      channelPinned?: boolean;
      log: Logger;
      /** The binary is replaced: stop and exec it. */
      restart: (reason: string) => void;
      binary?: string | null;
      fetch?: typeof fetch;
      /** This agent's version (default VERSION). */
      version?: string;
    },
  ) {}

  consider(controllerVersion: string | undefined, release: AgentRelease | undefined): void {
    if (this.running) return;
    const binary = this.deps.binary === undefined ? RUNNING_BINARY : this.deps.binary;
    const decision = decideAgentUpdate({
      running: this.version,
      target: controllerVersion,
      enabled: this.deps.enabled,
      hasBinary: Boolean(binary),
      release,
      agentKey: this.deps.publicKey,
      channelPinned: this.deps.channelPinned ?? false,
      allowDowngrade: this.deps.allowDowngrade ?? false,
    });
    if (decision.kind === 'none') return;
    if (decision.kind === 'refuse') {
      if (this.refusals.has(decision.reason)) return;
      this.refusals.add(decision.reason);
      this.deps.log.warn(decision.reason);
      return;
    }
    if (this.attempted.has(decision.version)) return;
    this.attempted.add(decision.version);
    this.running = true;
    void this.update(binary!, decision, release!).finally(() => (this.running = false));
  }

  private get version(): string {
    return this.deps.version ?? VERSION;
  }

  private async update(binary: string, decision: Extract<AgentUpdateDecision, { kind: 'update' }>, release: AgentRelease): Promise<void> {
    const { log } = this.deps;
    const { version } = decision;
    log.warn(`the controller runs svc ${version}, this agent ${this.version}: updating to it (${decision.downgrade ? 'a downgrade, allow_downgrade = true; ' : ''}signature key from ${decision.keyFrom})`);
    try {
      const result = await updateBinary({ feedUrl: release.feedUrl, publicKey: decision.publicKey, currentVersion: this.version, binary, fetch: this.deps.fetch }, { version });
      if (result.outcome !== 'installed') return;
      log.warn(`svc ${result.toVersion} is installed; restarting in place (services keep running)`);
      this.deps.restart(`update to ${result.toVersion}`);
    } catch (error) {
      const message = error instanceof UpdateError ? error.message : `unexpected: ${(error as Error).message}`;
      log.error(`agent update to ${version} failed, the binary is unchanged: ${message}`);
    }
  }
}
