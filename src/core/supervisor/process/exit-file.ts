import { readFileSync } from 'node:fs';
import { errnoCode } from './errno';

/**
 * The exit-code file: undefined while it does not exist (not ended, or the wrapper died before
 * recording), else the code, or null when the file holds no number. The wrapper moves it into
 * place whole, so a present file is complete.
 */
export function readExitFile(path: string): number | null | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    return null;
  }
  const code = Number.parseInt(text.trim(), 10);
  return Number.isInteger(code) && code >= 0 ? code : null;
}
