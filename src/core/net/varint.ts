/**
 * Minecraft protocol VarInt: a 32-bit two's-complement integer written as 1-5 bytes of
 * little-endian 7-bit groups, the high bit of each byte meaning "another byte follows".
 * Negative numbers always take the full 5 bytes (the value is encoded as unsigned 32-bit).
 */

/** A VarInt never spans more than 5 bytes; a 6th continuation byte is a protocol error. */
export const VARINT_MAX_BYTES = 5;

const INT32_MIN = -0x8000_0000;
const INT32_MAX = 0x7fff_ffff;

/** Encodes a signed 32-bit integer. Throws on anything that is not one (fractions, NaN, out of range). */
export function encodeVarInt(value: number): Uint8Array {
  if (!Number.isInteger(value) || value < INT32_MIN || value > INT32_MAX) {
    throw new RangeError(`VarInt out of range: ${value}`);
  }
  const out: number[] = [];
  let rest = value >>> 0; // two's complement as unsigned, so -1 becomes ff ff ff ff 0f
  while (rest > 0x7f) {
    out.push((rest & 0x7f) | 0x80);
    rest >>>= 7;
  }
  out.push(rest);
  return Uint8Array.from(out);
}

/** Number of bytes `encodeVarInt(value)` produces. */
export function varIntSize(value: number): number {
  let rest = value >>> 0;
  let size = 1;
  while (rest > 0x7f) {
    rest >>>= 7;
    size++;
  }
  return size;
}

export interface DecodedVarInt {
  value: number;
  /** How many bytes of the input the VarInt occupied. */
  bytes: number;
}

/**
 * Decodes the VarInt starting at `offset` in the first `end` bytes of `buf`.
 * Returns null when the input stops before the VarInt does (wait for more bytes);
 * throws when the VarInt runs past 5 bytes, which no valid stream ever does.
 */
export function decodeVarInt(buf: Uint8Array, offset = 0, end = buf.length): DecodedVarInt | null {
  let value = 0;
  for (let i = 0; i < VARINT_MAX_BYTES; i++) {
    const at = offset + i;
    if (at >= end) return null;
    const byte = buf[at] ?? 0;
    // The 5th byte's shift of 28 pushes bits into the sign position: the `| 0` below keeps int32 semantics.
    value |= (byte & 0x7f) << (7 * i);
    if ((byte & 0x80) === 0) return { value: value | 0, bytes: i + 1 };
  }
  throw new RangeError(`VarInt longer than ${VARINT_MAX_BYTES} bytes`);
}
