/** Characters of one agent log message that reach the controller's log. */
export const AGENT_LOG_MAX_CHARS = 1000;
/** Messages a node may log in a burst, and per second after it. */
export const AGENT_LOG_BURST = 20;
export const AGENT_LOG_PER_SECOND = 2;

// Terminal escapes: CSI (ESC [ or the one-byte 0x9B), OSC and the string commands (ESC ] P X ^ _ up to BEL or ST), and two-byte ESC sequences.
// eslint-disable-next-line no-control-regex
const ESCAPES = /(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]|\x1b[\]PX^_][\s\S]*?(?:\x07|\x1b\\|$)|\x1b[ -~]?/g;
// Line and tab breaks become spaces, so one message stays one log line.
// eslint-disable-next-line no-control-regex
const BREAKS = /[\r\n\t\v\f\u2028\u2029\u0085]+/g;
// What is left of C0, DEL, C1, and the bidirectional overrides and marks that reorder what a reader sees.
// eslint-disable-next-line no-control-regex
const INVISIBLE = /[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * An agent's LOG_MESSAGE text as the controller's log may show it: no terminal escapes, no
 * control characters (a forged second line, a cleared screen), no reordering marks, at most
 * AGENT_LOG_MAX_CHARS characters. Game console lines (SERVICE_STDOUT) are not passed through here.
 */
export function cleanAgentText(text: string): string {
  const clean = text.replace(ESCAPES, '').replace(BREAKS, ' ').replace(INVISIBLE, '').trim();
  return clean.length <= AGENT_LOG_MAX_CHARS ? clean : `${clean.slice(0, AGENT_LOG_MAX_CHARS)}… (${clean.length - AGENT_LOG_MAX_CHARS} more characters dropped)`;
}

/**
 * Per-node token buckets for agent log messages, on the monotonic clock. What is dropped is
 * counted, and the count is told with the next message the node may log.
 */
export class AgentLogThrottle {
  private readonly buckets = new Map<string, { tokens: number; at: number; dropped: number }>();

  constructor(
    private readonly burst = AGENT_LOG_BURST,
    private readonly perSecond = AGENT_LOG_PER_SECOND,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Whether this message may be logged, and how many were dropped since the last one that was. */
  take(nodeId: string): { allowed: boolean; dropped: number } {
    const now = this.now();
    const bucket = this.buckets.get(nodeId) ?? { tokens: this.burst, at: now, dropped: 0 };
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond);
    bucket.at = now;
    this.buckets.set(nodeId, bucket);
    if (bucket.tokens < 1) {
      bucket.dropped++;
      return { allowed: false, dropped: 0 };
    }
    bucket.tokens -= 1;
    const dropped = bucket.dropped;
    bucket.dropped = 0;
    return { allowed: true, dropped };
  }

  forget(nodeId: string): void {
    this.buckets.delete(nodeId);
  }
}
