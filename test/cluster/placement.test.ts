import { describe, expect, test } from 'bun:test';
import { choosePlacement, type Candidate, type PlacementRequest } from '../../src/cluster/placement';

const node = (nodeId: string, services: number, memoryUsedMb: number, extra: Partial<Candidate> = {}): Candidate => ({ nodeId, connected: true, maxServices: 10, maxMemoryMb: 8192, services, memoryUsedMb, ...extra });
const request = (extra: Partial<PlacementRequest> = {}): PlacementRequest => ({ memoryMb: 1024, strategy: 'least-services', preferredNode: '', fallback: 'wait', ...extra });

describe('choosePlacement', () => {
  const cases: { name: string; nodes: Candidate[]; request: PlacementRequest; expected: string | { wait: boolean; reason: RegExp } }[] = [
    { name: 'least-services picks the emptiest', nodes: [node('a', 3, 100), node('b', 1, 5000), node('local', 2, 0)], request: request(), expected: 'b' },
    { name: 'least-services: a tie goes to the first (agents before this machine)', nodes: [node('a', 0, 0), node('b', 0, 0), node('local', 0, 0)], request: request(), expected: 'a' },
    { name: 'least-memory picks the lightest', nodes: [node('a', 1, 4000), node('b', 5, 1000), node('local', 0, 2000)], request: request({ strategy: 'least-memory' }), expected: 'b' },
    { name: 'round-robin moves past the last choice', nodes: [node('a', 0, 0), node('b', 0, 0), node('c', 0, 0)], request: request({ strategy: 'round-robin', lastChosen: 'a' }), expected: 'b' },
    { name: 'round-robin wraps around', nodes: [node('a', 0, 0), node('b', 0, 0)], request: request({ strategy: 'round-robin', lastChosen: 'b' }), expected: 'a' },
    { name: 'a full node is skipped (services)', nodes: [node('a', 10, 0), node('b', 9, 0)], request: request(), expected: 'b' },
    { name: 'a full node is skipped (memory)', nodes: [node('a', 0, 7900), node('b', 4, 0)], request: request(), expected: 'b' },
    { name: 'a disconnected node is skipped', nodes: [node('a', 0, 0, { connected: false }), node('b', 4, 0)], request: request(), expected: 'b' },
    { name: 'limits of 0 mean no limit', nodes: [node('a', 50, 90000, { maxServices: 0, maxMemoryMb: 0 })], request: request(), expected: 'a' },
    { name: 'the excluded node is never chosen', nodes: [node('a', 0, 0), node('b', 5, 0)], request: request({ exclude: 'a' }), expected: 'b' },
    { name: 'nothing fits: refused with every reason', nodes: [node('a', 10, 0), node('b', 0, 8000)], request: request(), expected: { wait: false, reason: /a runs 10 of its 10 services; node b has 192 MB/ } },
    { name: 'the named node wins over the strategy', nodes: [node('a', 0, 0), node('b', 9, 0)], request: request({ preferredNode: 'b' }), expected: 'b' },
    { name: 'named node away, fallback wait: refused quietly', nodes: [node('a', 0, 0), node('b', 0, 0, { connected: false })], request: request({ preferredNode: 'b', fallback: 'wait' }), expected: { wait: true, reason: /node b is not connected; waiting/ } },
    { name: 'named node away, fallback fail: refused', nodes: [node('b', 0, 0, { connected: false }), node('local', 0, 0)], request: request({ preferredNode: 'b', fallback: 'fail' }), expected: { wait: false, reason: /^node b is not connected$/ } },
    { name: 'named node unknown, fallback local: this machine', nodes: [node('a', 0, 0), node('local', 3, 0)], request: request({ preferredNode: 'x', fallback: 'local' }), expected: 'local' },
    { name: 'named node full, fallback local but this machine is full too', nodes: [node('b', 10, 0), node('local', 10, 0)], request: request({ preferredNode: 'b', fallback: 'local' }), expected: { wait: false, reason: /fallback local: node local runs 10/ } },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const decision = choosePlacement(c.nodes, c.request, 'local');
      if (typeof c.expected === 'string') {
        expect(decision).toEqual({ ok: true, nodeId: c.expected });
        return;
      }
      expect(decision.ok).toBe(false);
      if (decision.ok) return;
      expect(decision.wait).toBe(c.expected.wait);
      expect(decision.reason).toMatch(c.expected.reason);
    });
  }
});
