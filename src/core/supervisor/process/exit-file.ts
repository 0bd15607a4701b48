import { readFileSync } from 'node:fs';
import { errnoCode } from './errno';

/**
 * The exit-code file: undefined while it does not exist or its line is not complete yet (no
 * "\n": the wrapper is writing it, or died before it could), else the code, or null when the
 * line holds no number.
 */
export function readExitFile(path: string): number | null | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    return null;
  }
  if (!text.endsWith('\n')) return undefined;
  const code = Number.parseInt(text.trim(), 10);
  return Number.isInteger(code) && code >= 0 ? code : null;
}
