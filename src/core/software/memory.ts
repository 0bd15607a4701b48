import { Type } from '@sinclair/typebox';
import { ApiError } from '../../errors';

/** The `-Xmx` value of a group: a whole number of megabytes or gigabytes (`512M`, `2G`, `2g`). */
export const MEMORY_PATTERN = '^[1-9]\\d*[MmGg]$';
const MEMORY = new RegExp(MEMORY_PATTERN);

export const MemorySchema = Type.String({ pattern: MEMORY_PATTERN, description: 'heap size, e.g. 512M or 2G' });

/** Room a JVM needs beyond its heap (metaspace, threads, buffers) is at least this many MB. */
const MIN_OVERHEAD_MB = 384;

/** Megabytes in `memory` (`2G` → 2048); VALIDATION_FAILED for anything else, zero included. */
export function parseMemory(memory: string): number {
  if (!MEMORY.test(memory)) {
    throw new ApiError('VALIDATION_FAILED', `memory "${memory}" is not a heap size like 512M or 2G`);
  }
  const amount = Number(memory.slice(0, -1));
  const unit = memory.slice(-1).toUpperCase();
  return unit === 'G' ? amount * 1024 : amount;
}

/** The memory form of a megabyte count, as svc.toml writes it: `8G` when whole gigabytes, else `1536M`. */
export function formatMemory(mb: number): string {
  const whole = Math.max(0, Math.round(mb));
  return whole > 0 && whole % 1024 === 0 ? `${whole / 1024}G` : `${whole}M`;
}

export function isMemory(memory: string): boolean {
  return MEMORY.test(memory);
}

/**
 * What a service may use in total, in MB, for placement and the `[controller] max_memory`
 * budget: the heap plus half of it for the JVM's own needs, never less than 384 MB of overhead.
 * Integer division: an odd heap rounds the overhead down.
 */
export function memoryMaxMb(memory: string): number {
  const heap = parseMemory(memory);
  return heap + Math.max(MIN_OVERHEAD_MB, Math.floor(heap / 2));
}
