/** A Minecraft UUID as the API accepts it: dashed (8-4-4-4-12) or the 32-digit undashed form Mojang's API returns. */
export const UUID_PATTERN = '^(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[0-9a-fA-F]{32})$';
const UUID_RE = new RegExp(UUID_PATTERN);

/** The nil UUID, which servers that hide their players put in a status sample. */
export const NIL_UUID = '00000000-0000-0000-0000-000000000000';

/** The one spelling the controller stores and compares: lower-case and dashed. Undefined when malformed. */
export function normalizeUuid(value: string): string | undefined {
  if (!UUID_RE.test(value)) return undefined;
  const hex = value.replace(/-/g, '').toLowerCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * Player names as they travel in console commands: no spaces or control characters, so a
 * name can never smuggle a second argument or a second command. Covers Java names (3–16 of
 * A–Z, 0–9, _), offline-mode names and the prefixed names of Bedrock players (".Steve").
 */
export const PLAYER_NAME_PATTERN = '^[A-Za-z0-9_.*+-]{1,32}$';
