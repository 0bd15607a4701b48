/** Small helpers for the node streams the archive code drives (tar-stream, zstd). */
import type { Pack } from 'tar-stream';

/** `error` as an Error (a stream may be destroyed with anything). */
export function errorOf(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** Resolves on a node stream's `event` or 'close', rejects on 'error'; removes its listeners either way. */
export function settleOn(emitter: NodeJS.EventEmitter, event: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const cleanup = (): void => {
      emitter.off(event, onEvent);
      emitter.off('close', onEvent);
      emitter.off('error', onError);
    };
    const onEvent = (): void => {
      cleanup();
      resolve();
    };
    const onError = (error: unknown): void => {
      cleanup();
      reject(errorOf(error));
    };
    emitter.once(event, onEvent);
    emitter.once('close', onEvent);
    emitter.once('error', onError);
  });
}

/** Resolves when a tar entry's sink drains or closes (its `done` promise reports errors); removes its listeners either way. */
export function drained(sink: ReturnType<Pack['entry']>): Promise<void> {
  return new Promise<void>((resolve) => {
    const onEvent = (): void => {
      sink.off('drain', onEvent);
      sink.off('close', onEvent);
      resolve();
    };
    sink.once('drain', onEvent);
    sink.once('close', onEvent);
  });
}
