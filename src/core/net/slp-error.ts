/**
 * Why a Server List Ping failed, for callers that react differently to each
 * (e.g. "refused" = process not listening yet, "timeout" = listening but hung).
 */
export type ServerListPingFailure =
  /** No status response (or no connection) within the deadline. */
  | 'timeout'
  /** Nothing listens on the port: the OS refused the connection. */
  | 'refused'
  /** Any other connect failure (unreachable, DNS, reset during connect). */
  | 'connect'
  /** The server closed or reset the connection before a whole status response arrived. */
  | 'closed'
  /** Bytes arrived but were not a valid status response (wrong packet, bad framing, too large, bad JSON). */
  | 'protocol';

export class ServerListPingError extends Error {
  override readonly name = 'ServerListPingError';

  constructor(
    readonly code: ServerListPingFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
