import { ADMIN_NODE } from '../../core/auth';
import { candidatesFor } from './nodes';
import { decide, resolve, type Decision } from './resolve';
import { describeScope } from './scope';
import type { Group, Membership, PermPlayer, PermSnapshot, Scope } from './types';

/**
 * Which changes hand out admin, so that only an admin may make them (Changes.apply asks this
 * for every write of a caller without admin, inside the write's transaction).
 *
 * A node is admin-equivalent when a dashboard session holding it passes `svc.dashboard.admin`:
 * sessions ask this module `has(uuid, "svc.dashboard.admin")` at no server and no world, which
 * the node itself answers, or a wildcard of a proper ancestor, or `*` (nodes.ts): exactly
 * `svc.dashboard.admin`, `svc.dashboard.*`, `svc.*` and `*`. A negation grants nothing.
 * A group carries admin when it, or a group it inherits from (transitively), holds such a node
 * in any scope: a grant scoped to a server or a time is still that node.
 *
 * A change is an escalation, refused without admin, when it
 *  1. gives a group a row of an admin-equivalent node that its own rows did not already cover
 *     (the same node, at least as wide a server and world, at least as late an expiry);
 *  2. gives a group a parent that carries admin;
 *  3. puts a player in a group that carries admin by a membership their memberships did not
 *     already cover (everyone is in the default group);
 *  4. makes a group that carries admin the default group (every player holds it);
 *  5. makes a player, or a group on its own, pass `svc.dashboard.admin` now or at some moment
 *     ahead where they did not: the resolver's own answer (weights, negations), asked now and
 *     at every expiry that can change it. This is what a re-weight, a lifted negation or a
 *     left negating group does.
 * Writing the same state again is none of these; nor is any removal that lifts no negation
 * holding someone back from admin.
 */

export const ADMIN_EQUIVALENT: readonly string[] = candidatesFor(ADMIN_NODE);
const NEEDS_ADMIN = 'needs an admin token or an admin dashboard session';

export const isAdminEquivalent = (node: string): boolean => ADMIN_EQUIVALENT.includes(node);

/** A model before and after a write, as escalation() compares them. */
export interface ModelChange {
  before: PermSnapshot;
  after: PermSnapshot;
  /** Every stored player as before the change. */
  players: Iterable<PermPlayer>;
  /** The players the write rewrote: as before (undefined: new) and after (undefined: gone). */
  changed: readonly { before: PermPlayer | undefined; after: PermPlayer | undefined }[];
  now: number;
}

/** Why the change hands out admin (a message for the person who tried), or undefined. */
export function escalation(change: ModelChange): string | undefined {
  const carriers = new Carriers(change.after);
  return grantedNodes(change) ?? addedParents(change, carriers) ?? newDefault(change, carriers) ?? addedMemberships(change, carriers) ?? newAdmins(change);
}

// ---- 1-4: what the change hands out ---------------------------------------------------------

/** `wide` applies wherever `narrow` does, for at least as long. */
function covers(wide: Scope, narrow: Scope): boolean {
  const place = (w: string, n: string) => w === '' || w.toLowerCase() === n.toLowerCase();
  const time = wide.expiresAt === null || (narrow.expiresAt !== null && narrow.expiresAt <= wide.expiresAt);
  return place(wide.server, narrow.server) && place(wide.world, narrow.world) && time;
}

const scopeText = (scope: Scope) => {
  const text = describeScope(scope);
  return text ? ` (${text})` : '';
};

/** The groups the write rewrote or created: replaced objects (groups are never mutated). */
function changedGroups(change: ModelChange): Group[] {
  return [...change.after.groups.values()].filter((g) => change.before.groups.get(g.key) !== g);
}

function grantedNodes(change: ModelChange): string | undefined {
  for (const group of changedGroups(change)) {
    const held = change.before.groups.get(group.key)?.grants ?? [];
    for (const grant of group.grants) {
      if (!isAdminEquivalent(grant.node)) continue;
      if (held.some((h) => h.node === grant.node && covers(h, grant))) continue;
      return `granting "${grant.node}" (admin-equivalent) to group "${group.name}"${scopeText(grant)} ${NEEDS_ADMIN}`;
    }
  }
  return undefined;
}

function addedParents(change: ModelChange, carriers: Carriers): string | undefined {
  for (const group of changedGroups(change)) {
    const had = change.before.groups.get(group.key)?.parents ?? [];
    for (const parent of group.parents) {
      if (had.includes(parent)) continue;
      const carried = carriers.of(parent);
      if (carried) return `making "${group.name}" inherit from "${carried.group.name}" (admin-equivalent: ${carried.how}) ${NEEDS_ADMIN}`;
    }
  }
  return undefined;
}

function newDefault(change: ModelChange, carriers: Carriers): string | undefined {
  const key = change.after.defaultGroup;
  if (key === undefined || key === change.before.defaultGroup) return undefined;
  const carried = carriers.of(key);
  return carried && `making "${carried.group.name}" the default group, which every player holds (admin-equivalent: ${carried.how}), ${NEEDS_ADMIN}`;
}

function addedMemberships(change: ModelChange, carriers: Carriers): string | undefined {
  for (const { before, after } of change.changed) {
    for (const m of after?.memberships ?? []) {
      // Everyone already holds the default group, unscoped and for good.
      if (m.group === change.before.defaultGroup) continue;
      const carried = carriers.of(m.group);
      if (!carried) continue;
      if (before?.memberships.some((h) => h.group === m.group && covers(h, m))) continue;
      return `putting ${after!.name} (${after!.uuid}) in group "${carried.group.name}"${scopeText(m)} (admin-equivalent: ${carried.how}) ${NEEDS_ADMIN}`;
    }
  }
  return undefined;
}

/** Which groups carry admin in one model, and through what. */
class Carriers {
  private readonly known = new Map<string, { group: Group; how: string } | null>();

  constructor(private readonly snapshot: PermSnapshot) {}

  /** Undefined when the group holds no admin-equivalent node, directly or through parents. */
  of(key: string): { group: Group; how: string } | undefined {
    if (!this.known.has(key)) this.known.set(key, this.find(key));
    return this.known.get(key) ?? undefined;
  }

  private find(key: string): { group: Group; how: string } | null {
    const group = this.snapshot.groups.get(key);
    if (!group) return null;
    const seen = new Set<string>();
    const stack = [key];
    while (stack.length > 0) {
      const current = this.snapshot.groups.get(stack.pop()!);
      if (!current || seen.has(current.key)) continue;
      seen.add(current.key);
      const node = current.grants.find((g) => isAdminEquivalent(g.node))?.node;
      if (node !== undefined) return { group, how: current === group ? `it holds "${node}"` : `it inherits "${node}" from "${current.name}"` };
      stack.push(...current.parents);
    }
    return null;
  }
}

// ---- 5: who passes svc.dashboard.admin ------------------------------------------------------

const bare = (node: string) => (node.startsWith('-') ? node.slice(1) : node);
/** Memberships a session's question (no server, no world) can see. */
const unplaced = (list: readonly Membership[]) => list.filter((m) => m.server === '' && m.world === '');
const keyOf = (list: readonly Membership[]) => list.map((m) => `${m.group}:${m.expiresAt ?? ''}`).sort().join(',');

/** The resolver's answer to `svc.dashboard.admin` for a set of memberships at a time, remembered per model. */
class AdminAnswers {
  private readonly answers = new Map<string, Decision>();

  constructor(private readonly snapshot: PermSnapshot) {}

  ask(memberships: readonly Membership[], at: number): Decision {
    const key = `${keyOf(memberships)}@${at}`;
    let answer = this.answers.get(key);
    if (!answer) {
      const player: PermPlayer = { id: 0, uuid: '', name: '', memberships: [...memberships], meta: {} };
      answer = decide(resolve(this.snapshot, player, {}, at).shared, ADMIN_NODE);
      this.answers.set(key, answer);
    }
    return answer;
  }
}

interface Subject {
  label: string;
  before: readonly Membership[];
  after: readonly Membership[];
}

const EMPTY_VIEW = JSON.stringify([[], [], null]);

/**
 * What of a group can change an answer to svc.dashboard.admin: the rows answering it, its
 * parents (what it reaches), and its weight when it holds such rows (a layer without one takes
 * no part in the decision). A missing group counts as an empty one, as resolution treats it.
 */
function adminView(group: Group | undefined): string {
  if (!group) return EMPTY_VIEW;
  const rows = group.grants.filter((g) => isAdminEquivalent(bare(g.node))).map((g) => [g.node, g.server.toLowerCase(), g.world.toLowerCase(), g.expiresAt]);
  return JSON.stringify([group.parents, rows, rows.length > 0 ? group.weight : null]);
}

/** Whether the groups changed in a way that can change anyone's answer (else only rewritten players need asking). */
function answersMayChange(change: ModelChange): boolean {
  const { before, after } = change;
  if (before.defaultGroup !== after.defaultGroup) return true;
  const keys = new Set([...before.groups.keys(), ...after.groups.keys()]);
  for (const key of keys) {
    const was = before.groups.get(key);
    const is = after.groups.get(key);
    if (was !== is && adminView(was) !== adminView(is)) return true;
  }
  return false;
}

function newAdmins(change: ModelChange): string | undefined {
  const { before, after, now } = change;
  const groupsChanged = answersMayChange(change);

  // Who to ask about: players whose counting memberships changed, and when any group changed,
  // everyone (players with the same memberships share one answer).
  const subjects = new Map<string, Subject>();
  const add = (label: string, was: readonly Membership[], is: readonly Membership[]) => {
    const b = unplaced(was);
    const a = was === is ? b : unplaced(is);
    const bKey = keyOf(b);
    const aKey = a === b ? bKey : keyOf(a);
    if (!groupsChanged && bKey === aKey) return;
    const key = `${bKey}\n${aKey}`;
    if (!subjects.has(key)) subjects.set(key, { label, before: b, after: a });
  };
  const changedIds = new Set<number>();
  for (const { before: was, after: is } of change.changed) {
    const player = is ?? was!;
    changedIds.add(player.id);
    add(`${player.name} (${player.uuid})`, was?.memberships ?? [], is?.memberships ?? []);
  }
  if (groupsChanged) {
    add('every player (through the default group)', [], []);
    for (const player of change.players) if (!changedIds.has(player.id)) add(`${player.name} (${player.uuid})`, player.memberships, player.memberships);
  }
  if (subjects.size === 0) return undefined;

  // The moments an answer can change: now, and each expiry ahead of a row answering the node.
  const moments = new Set<number>([now]);
  for (const model of [before, after]) {
    for (const group of model.groups.values()) {
      for (const g of group.grants) if (g.expiresAt !== null && g.expiresAt > now && g.server === '' && g.world === '' && isAdminEquivalent(bare(g.node))) moments.add(g.expiresAt);
    }
  }

  const was = new AdminAnswers(before);
  const is = new AdminAnswers(after);
  for (const subject of subjects.values()) {
    const times = new Set(moments);
    for (const m of [...subject.before, ...subject.after]) if (m.expiresAt !== null && m.expiresAt > now) times.add(m.expiresAt);
    for (const at of [...times].sort((x, y) => x - y)) {
      const answer = is.ask(subject.after, at);
      if (!answer.allowed || was.ask(subject.before, at).allowed) continue;
      return `this would make ${subject.label} a dashboard admin${from(at, now)} (${grantedBy(answer)}), which ${NEEDS_ADMIN}`;
    }
  }

  if (!groupsChanged) return undefined;
  // A group on its own (without the default group): what a player in it alone would hold.
  const wasAlone = new AdminAnswers({ groups: before.groups, defaultGroup: undefined });
  const isAlone = new AdminAnswers({ groups: after.groups, defaultGroup: undefined });
  for (const group of after.groups.values()) {
    const only: Membership[] = [{ group: group.key, server: '', world: '', expiresAt: null }];
    for (const at of [...moments].sort((x, y) => x - y)) {
      const answer = isAlone.ask(only, at);
      if (!answer.allowed || (before.groups.has(group.key) && wasAlone.ask(only, at).allowed)) continue;
      return `this would make group "${group.name}" admin-equivalent${from(at, now)} (${grantedBy(answer)}), which ${NEEDS_ADMIN}`;
    }
  }
  return undefined;
}

const grantedBy = (answer: Decision) => `${ADMIN_NODE} granted by "${answer.by!.node}" in group "${answer.by!.layer.group.name}"`;
const from = (at: number, now: number) => (at > now ? ` from ${new Date(at).toISOString()} on` : '');
