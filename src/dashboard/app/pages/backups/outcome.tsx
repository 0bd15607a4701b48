/** Answers in words: a refusal with the API's message (and its code, to look up), a success as a status. */
import type { ComponentChildren } from 'preact';
import { ApiFailure } from '../../api';
import { NODE } from './model';
import { sentence } from '../../sentence';

/**
 * What a failed request means for the operator: a missing node said as such (with who to ask),
 * too many requests, the controller unreachable, or the API's own words with its code.
 */
export function refusalText(error: unknown, what: string): string {
  if (error instanceof ApiFailure) {
    if (error.status === 403) {
      const missing = /Missing permission: (\S+)/.exec(error.message);
      if (missing?.[1] === NODE.manage) return `${what}: this account may look at backups but not change them; that needs the permission ${NODE.manage}. The controller said: “${sentence(error.message)}” Ask an admin of this network for it.`;
      return `${what}: your account may not do this. ${sentence(error.message)} Ask an admin of this network if you need it.`;
    }
    if (error.status === 429) return `${what}: too many requests. ${sentence(error.message)}`;
    return `${what} (${error.code}): ${sentence(error.message)}`;
  }
  if (error instanceof Error && !(error instanceof TypeError)) return `${what}: ${sentence(error.message)}`;
  return `${what}: the controller could not be reached. Try again.`;
}

export interface Outcome {
  ok: boolean;
  text: ComponentChildren;
}

export function OutcomeLine({ outcome }: { outcome: Outcome | null }) {
  if (!outcome) return null;
  return outcome.ok ? (
    <p role="status" class="bk-ok">
      {outcome.text}
    </p>
  ) : (
    <p role="alert" class="bk-error">
      {outcome.text}
    </p>
  );
}
