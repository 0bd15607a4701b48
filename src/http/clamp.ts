/** A query's number held inside the limits a route declares (`limit`s are clamped, never refused). */
export function clamp(n: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, n));
}
