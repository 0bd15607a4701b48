/**
 * Subscriber process of events.bench.ts: opens `--sockets` WebSockets to /api/events and
 * counts the PLAYER_* frames each one receives, so the receiving side of the bench is spread
 * over several processes (one JS thread each) instead of sharing the poster's.
 *
 *   bun test/bench/events-subscriber.ts --url ws://…/api/events?token=… --sockets 250
 *                                       --capacity 10100 --sample-stride 10 --out DIR --id 0
 *
 * Frames are identified by their uuid, which the poster builds as
 *   PPPPPPPP-0000-4000-8000-SSSSSSSSSSSS   (P = phase, S = sequence number, hex)
 * Phase 0 is the probe that proves a socket is subscribed; phases 1.. are measured; sequence
 * END_SEQ closes a phase (frames arrive in publish order, so a socket that has END has every
 * frame of the phase it will ever get). Frames of other types are ignored, and no frame is
 * JSON-parsed: the uuid is sliced out of the text.
 *
 * Output, one JSON line each on stdout:
 *   {"event":"open","sockets":n}                     every socket is open
 *   {"event":"primed","sockets":n}                   every socket has received a probe frame
 *   {"event":"closed","socket":i,"code":c,"reason":r} a socket closed
 *   {"event":"report",…}                             a phase is over (Report below); the receive
 *       times of the sampled sockets (every sample-stride-th) are in the file it names:
 *       Float64Array [sampled socket × capacity], wall-clock ms, 0 = not received
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';

/** The sequence number that ends a phase (the largest 12-hex-digit value). */
export const END_SEQ = 0xffffffffffff;
/** After a socket's END, how long the others may take to deliver theirs before the report goes out anyway. */
export const STRAGGLER_MS = 5000;
const CONNECTS_IN_FLIGHT = 32;

export interface Report {
  event: 'report';
  phase: number;
  /** Per socket: distinct sequence numbers of the phase received (below capacity). */
  distinct: number[];
  /** Frames of the phase received more than once, over every socket. */
  duplicates: number;
  /** Sockets that had no END frame when the report went out. */
  missingEnd: number;
  /** Indexes of the sampled sockets, in the order of the file's rows. */
  sampled: number[];
  file: string;
}

/** Wall clock in ms with sub-ms resolution, comparable across processes on one machine. */
const wall = (): number => performance.timeOrigin + performance.now();
const emit = (line: object): void => {
  process.stdout.write(`${JSON.stringify(line)}\n`);
};

interface Phase {
  seen: Uint8Array;
  distinct: Int32Array;
  times: Float64Array;
  ended: Uint8Array;
  endedCount: number;
  duplicates: number;
  timer: ReturnType<typeof setTimeout> | undefined;
  reported: boolean;
}

function main(): void {
  const { values } = parseArgs({
    args: Bun.argv.slice(2),
    options: {
      url: { type: 'string' },
      sockets: { type: 'string' },
      capacity: { type: 'string' },
      'sample-stride': { type: 'string', default: '10' },
      out: { type: 'string' },
      id: { type: 'string', default: '0' },
    },
  });
  const url = values.url;
  const out = values.out;
  const count = Number(values.sockets);
  const capacity = Number(values.capacity);
  const stride = Number(values['sample-stride']);
  if (!url || !out || !(count > 0) || !(capacity > 0) || !(stride > 0)) throw new Error('--url, --out, --sockets, --capacity and --sample-stride are required');

  // Row of each socket in the receive-time table, or -1 when it is not sampled.
  const sampleRow = new Int32Array(count).fill(-1);
  const sampled: number[] = [];
  for (let i = 0; i < count; i += stride) {
    sampleRow[i] = sampled.length;
    sampled.push(i);
  }

  const phases = new Map<number, Phase>();
  const phaseOf = (p: number): Phase => {
    let phase = phases.get(p);
    if (!phase) {
      phase = {
        seen: new Uint8Array(count * capacity),
        distinct: new Int32Array(count),
        times: new Float64Array(sampled.length * capacity),
        ended: new Uint8Array(count),
        endedCount: 0,
        duplicates: 0,
        timer: undefined,
        reported: false,
      };
      phases.set(p, phase);
    }
    return phase;
  };
  const report = (p: number, phase: Phase): void => {
    if (phase.reported) return;
    phase.reported = true;
    clearTimeout(phase.timer);
    const file = join(out, `recv-${values.id}-${p}.f64`);
    Bun.write(file, phase.times).then(
      () => {
        const line: Report = { event: 'report', phase: p, distinct: [...phase.distinct], duplicates: phase.duplicates, missingEnd: count - phase.endedCount, sampled, file };
        emit(line);
      },
      (error: unknown) => {
        console.error(`writing ${file} failed: ${String(error)}`);
        process.exit(1);
      },
    );
  };

  const primed = new Uint8Array(count);
  let primedCount = 0;
  const onFrame = (socket: number, text: string): void => {
    if (!text.startsWith('{"type":"PLAYER_')) return;
    const at = text.indexOf('"uuid":"');
    if (at < 0) return;
    const p = parseInt(text.slice(at + 8, at + 16), 16);
    const seq = parseInt(text.slice(at + 32, at + 44), 16);
    if (p === 0) {
      if (primed[socket] === 0) {
        primed[socket] = 1;
        if (++primedCount === count) emit({ event: 'primed', sockets: count });
      }
      return;
    }
    const phase = phaseOf(p);
    if (seq === END_SEQ) {
      if (phase.ended[socket] === 1) return;
      phase.ended[socket] = 1;
      phase.endedCount += 1;
      if (phase.endedCount === count) report(p, phase);
      else phase.timer ??= setTimeout(() => report(p, phase), STRAGGLER_MS);
      return;
    }
    if (!(seq < capacity)) return;
    const slot = socket * capacity + seq;
    if (phase.seen[slot] === 1) {
      phase.duplicates += 1;
      return;
    }
    phase.seen[slot] = 1;
    phase.distinct[socket]! += 1;
    const row = sampleRow[socket]!;
    if (row >= 0) phase.times[row * capacity + seq] = wall();
  };

  // Open the sockets a few at a time (a thousand simultaneous handshakes only queue up).
  let next = 0;
  let opened = 0;
  const openOne = (): void => {
    const socket = next++;
    if (socket >= count) return;
    const ws = new WebSocket(url);
    let isOpen = false;
    ws.onopen = () => {
      isOpen = true;
      if (++opened === count) emit({ event: 'open', sockets: count });
      openOne();
    };
    ws.onmessage = (event: MessageEvent) => {
      if (typeof event.data === 'string') onFrame(socket, event.data);
    };
    ws.onclose = (event: CloseEvent) => {
      emit({ event: 'closed', socket, code: event.code, reason: event.reason });
      if (!isOpen) process.exit(1);
    };
  };
  for (let i = 0; i < CONNECTS_IN_FLIGHT; i++) openOne();
}

if (import.meta.main) main();
