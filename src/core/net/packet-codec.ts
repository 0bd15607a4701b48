import { decodeVarInt, encodeVarInt } from './varint';

/**
 * Field encoders and the packet envelope of the uncompressed Minecraft protocol:
 * `VarInt length` (of id + payload), `VarInt packet id`, payload.
 * Only what the status exchange needs; compression and encryption never apply to it.
 */

const utf8 = new TextEncoder();
const utf8Strict = new TextDecoder('utf-8', { fatal: true });

/** Concatenates byte arrays into one new array. */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** Protocol String: VarInt byte length, then UTF-8. */
export function encodeString(text: string): Uint8Array {
  const bytes = utf8.encode(text);
  return concatBytes([encodeVarInt(bytes.length), bytes]);
}

/** Unsigned Short, big-endian. */
export function encodeUnsignedShort(value: number): Uint8Array {
  if (!Number.isInteger(value) || value < 0 || value > 0xffff) throw new RangeError(`unsigned short out of range: ${value}`);
  return Uint8Array.of(value >> 8, value & 0xff);
}

/** A whole length-prefixed packet ready to write to the socket. */
export function encodePacket(packetId: number, ...fields: Uint8Array[]): Uint8Array {
  const body = concatBytes([encodeVarInt(packetId), ...fields]);
  return concatBytes([encodeVarInt(body.length), body]);
}

export interface DecodedPacket {
  id: number;
  /** Bytes after the packet id (a view into the frame, not a copy). */
  payload: Uint8Array;
}

/** Splits a frame (as returned by PacketReader, length prefix already removed) into id and payload. */
export function decodePacket(frame: Uint8Array): DecodedPacket {
  const id = decodeVarInt(frame);
  if (!id) throw new Error('packet ends inside its id');
  return { id: id.value, payload: frame.subarray(id.bytes) };
}

/**
 * Reads a protocol String that must fill `payload` exactly: trailing bytes or a short
 * string both mean the peer is not speaking this protocol. Invalid UTF-8 throws.
 */
export function decodeWholeString(payload: Uint8Array): string {
  const length = decodeVarInt(payload);
  if (!length) throw new Error('string ends inside its length');
  const remaining = payload.length - length.bytes;
  if (length.value !== remaining) {
    throw new Error(`string length ${length.value} does not match the ${remaining} bytes that follow`);
  }
  return utf8Strict.decode(payload.subarray(length.bytes));
}
