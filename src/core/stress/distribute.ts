/** How many simulated players one service holds. */
export interface ServiceShare {
  name: string;
  players: number;
}

export interface Distribution {
  /** One entry per service, in the order given. */
  perService: ServiceShare[];
  /** Players actually placed: min(target, capacity). */
  simulated: number;
  /** Sum of the services' caps. */
  capacity: number;
  /** Players that found no room: target − capacity when positive, else 0. */
  overflow: number;
}

/**
 * Spreads `target` simulated players over `services` (READY backends, in name order): an even
 * split with the remainder going to the first services, each capped at `maxPlayers` (or the
 * service's own entry in `capacities`), and what a cap cut off spilled, in order, into services
 * that still have room. With one cap for every service nothing can spill (a capped service
 * means every service is full); the spill matters once caps differ. No services: everything
 * overflows.
 */
export function distribute(
  target: number,
  services: readonly string[],
  maxPlayers: number,
  capacities: ReadonlyMap<string, number> = new Map(),
): Distribution {
  const wanted = Math.max(0, Math.floor(target));
  const caps = services.map((name) => Math.max(0, Math.floor(capacities.get(name) ?? maxPlayers)));
  const capacity = caps.reduce((sum, cap) => sum + cap, 0);
  if (services.length === 0) return { perService: [], simulated: 0, capacity: 0, overflow: wanted };

  const base = Math.floor(wanted / services.length);
  const remainder = wanted % services.length;
  let excess = 0;
  const players = caps.map((cap, i) => {
    const share = base + (i < remainder ? 1 : 0);
    excess += Math.max(0, share - cap);
    return Math.min(share, cap);
  });
  for (let i = 0; i < players.length && excess > 0; i++) {
    const room = caps[i]! - players[i]!;
    const moved = Math.min(room, excess);
    players[i]! += moved;
    excess -= moved;
  }

  const simulated = players.reduce((sum, n) => sum + n, 0);
  return {
    perService: services.map((name, i) => ({ name, players: players[i]! })),
    simulated,
    capacity,
    overflow: Math.max(0, wanted - capacity),
  };
}

/** `name=count,name=count`, the STRESS_TEST_UPDATED form. */
export function perServiceText(shares: readonly ServiceShare[]): string {
  return shares.map((s) => `${s.name}=${s.players}`).join(',');
}
