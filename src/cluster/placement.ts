/**
 * Which node a new instance runs on: pure, so every rule is table-tested.
 *
 *   the group names a node ──connected, has room──▶ that node
 *            │ otherwise: fallback  wait ─▶ refused (retried by the caller later, quietly)
 *            │                      local ─▶ this machine, if it has room
 *            │                      fail ─▶ refused (an error)
 *   no node named ──▶ the strategy over every candidate with room (this machine included)
 *
 * "Room" is fewer services than the node's maxServices (0 = no limit) and the instance's
 * memory within what is left of its maxMemory (0 = no limit).
 */
export type PlacementStrategy = 'least-services' | 'least-memory' | 'round-robin';
export type PlacementFallback = 'wait' | 'local' | 'fail';

export interface Candidate {
  nodeId: string;
  connected: boolean;
  maxServices: number;
  maxMemoryMb: number;
  services: number;
  memoryUsedMb: number;
}

export interface PlacementRequest {
  memoryMb: number;
  strategy: PlacementStrategy;
  preferredNode: string;
  fallback: PlacementFallback;
  /** Never this node (a migration away from it). */
  exclude?: string;
  /** Round-robin: the node chosen last time. */
  lastChosen?: string;
}

export type PlacementDecision = { ok: true; nodeId: string } | { ok: false; reason: string; wait: boolean };

export function roomOn(candidate: Candidate, memoryMb: number): string | null {
  if (!candidate.connected) return `node ${candidate.nodeId} is not connected`;
  if (candidate.maxServices > 0 && candidate.services >= candidate.maxServices) return `node ${candidate.nodeId} runs ${candidate.services} of its ${candidate.maxServices} services`;
  if (candidate.maxMemoryMb > 0 && candidate.memoryUsedMb + memoryMb > candidate.maxMemoryMb) {
    return `node ${candidate.nodeId} has ${candidate.maxMemoryMb - candidate.memoryUsedMb} MB of its ${candidate.maxMemoryMb} MB left, ${memoryMb} MB needed`;
  }
  return null;
}

/** `candidates` includes this machine as `localNode`; the order of the rest breaks ties. */
export function choosePlacement(candidates: readonly Candidate[], request: PlacementRequest, localNode: string): PlacementDecision {
  const usable = candidates.filter((c) => c.nodeId !== request.exclude);
  if (request.preferredNode !== '') {
    const preferred = usable.find((c) => c.nodeId === request.preferredNode);
    const problem = preferred ? roomOn(preferred, request.memoryMb) : `node ${request.preferredNode} is not known`;
    if (!problem) return { ok: true, nodeId: preferred!.nodeId };
    if (request.fallback === 'local') {
      const local = usable.find((c) => c.nodeId === localNode);
      const localProblem = local ? roomOn(local, request.memoryMb) : 'this machine is excluded';
      if (!localProblem) return { ok: true, nodeId: localNode };
      return { ok: false, reason: `${problem}; fallback local: ${localProblem}`, wait: false };
    }
    return { ok: false, reason: request.fallback === 'wait' ? `${problem}; waiting for it (placement.fallback = wait)` : problem, wait: request.fallback === 'wait' };
  }
  const fitting = usable.filter((c) => roomOn(c, request.memoryMb) === null);
  if (fitting.length === 0) {
    const reasons = usable.map((c) => roomOn(c, request.memoryMb)).filter(Boolean);
    return { ok: false, reason: `no node has room: ${reasons.join('; ') || 'no node is available'}`, wait: false };
  }
  return { ok: true, nodeId: pick(fitting, request) };
}

function pick(fitting: Candidate[], request: PlacementRequest): string {
  switch (request.strategy) {
    case 'least-memory':
      return fitting.reduce((best, c) => (c.memoryUsedMb < best.memoryUsedMb ? c : best)).nodeId;
    case 'round-robin': {
      const sorted = [...fitting].sort((a, b) => (a.nodeId < b.nodeId ? -1 : a.nodeId > b.nodeId ? 1 : 0));
      const next = sorted.find((c) => request.lastChosen !== undefined && c.nodeId > request.lastChosen);
      return (next ?? sorted[0]!).nodeId;
    }
    default:
      return fitting.reduce((best, c) => (c.services < best.services ? c : best)).nodeId;
  }
}
