/**
 * The service lifecycle. One table decides every transition; nothing else moves a state.
 *
 *   PREPARING ──► PREPARED ──► STARTING ──► READY ──► DRAINING
 *       │            │            │           │          │
 *       │            │            ▼           ▼          ▼
 *       └────────────┴──────► STOPPING ─────────────► STOPPED
 *       │                         │                      │
 *       └──────────► CRASHED ◄────┴──────────────────────┘
 *                       │
 *                       └──► PREPARING (a replacement on restart)
 *
 * Every state may also go straight to STOPPED or CRASHED where the table says so (a process
 * that dies is CRASHED from wherever it was). Moving to the current state is a silent success.
 */
export const SERVICE_STATES = ['PREPARING', 'PREPARED', 'STARTING', 'READY', 'DRAINING', 'STOPPING', 'STOPPED', 'CRASHED'] as const;
export type ServiceState = (typeof SERVICE_STATES)[number];

export const TRANSITIONS: Readonly<Record<ServiceState, readonly ServiceState[]>> = {
  PREPARING: ['PREPARED', 'STARTING', 'STOPPING', 'STOPPED', 'CRASHED'],
  PREPARED: ['STARTING', 'STOPPING', 'STOPPED'],
  STARTING: ['READY', 'STOPPING', 'CRASHED', 'STOPPED'],
  READY: ['DRAINING', 'STOPPING', 'STOPPED', 'CRASHED'],
  DRAINING: ['STOPPING', 'STOPPED', 'CRASHED'],
  STOPPING: ['STOPPED', 'CRASHED'],
  STOPPED: ['CRASHED'],
  CRASHED: ['PREPARING', 'STOPPING', 'STOPPED'],
};

export type TransitionResult = { ok: true; changed: boolean } | { ok: false; reason: string };

/** Whether `from` may move to `to`; same-state moves succeed without a change. */
export function transition(from: ServiceState, to: ServiceState): TransitionResult {
  if (from === to) return { ok: true, changed: false };
  if (TRANSITIONS[from].includes(to)) return { ok: true, changed: true };
  return { ok: false, reason: `a ${from} service cannot become ${to}` };
}

/** States that hold (or are about to hold) a process and count as running instances. */
export const ACTIVE_STATES: ReadonlySet<ServiceState> = new Set(['PREPARING', 'PREPARED', 'STARTING', 'READY', 'DRAINING', 'STOPPING']);

/** States whose instance slot (`<Group>-<N>`) may be reused by a new service. */
export const REUSABLE_STATES: ReadonlySet<ServiceState> = new Set(['STOPPED', 'CRASHED']);
