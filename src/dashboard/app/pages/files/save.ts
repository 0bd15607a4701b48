/**
 * Saving the editor's text. PUT takes a JSON body up to the API's body limit (1 MiB); a larger
 * text (the editor opens files up to 5 MiB) is sent as an upload of the same name into its
 * folder instead, which replaces the file the same way (atomically, keeping its mode).
 */
import { baseName, parentOf, type ScopeName } from './paths';
import { MAX_JSON_BODY_BYTES, uploadFile, writeText } from './requests';

/** Room left in the body for the JSON around the content. */
const JSON_FRAME_BYTES = 64;

/** Writes `text` as the file at `path`; resolves with the bytes written. */
export async function saveText(scope: ScopeName, path: string, text: string): Promise<number> {
  const bytes = new TextEncoder().encode(text);
  // JSON escapes grow the body (quotes, backslashes, control characters): measure it as sent.
  const jsonBytes = new TextEncoder().encode(JSON.stringify({ content: text })).byteLength;
  if (jsonBytes + JSON_FRAME_BYTES <= MAX_JSON_BODY_BYTES) {
    await writeText(scope, path, text);
    return bytes.byteLength;
  }
  return uploadFile(scope, parentOf(path), baseName(path), new Blob([bytes]), () => undefined);
}
