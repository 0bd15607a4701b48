/** Answers in words: a refusal with the API's message (and its code, to look up), a success as a status. */
import type { ComponentChildren } from 'preact';
import { ApiFailure } from '../../api';
import { sentence } from '../../sentence';

/** What a failed request means, for the operator: forbidden, too large, unreachable, or the API's words. */
export function refusalText(error: unknown, what: string): string {
  if (error instanceof ApiFailure) {
    if (error.status === 403) return `${what}: your account may not do this. ${sentence(error.message)} Ask an admin of this network for that permission.`;
    if (error.status === 429) return `${what}: too many requests. ${sentence(error.message)}`;
    if (error.status === 0) return `${what}: ${sentence(error.message)}`;
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
    <p role="status" class="rp-ok">
      {outcome.text}
    </p>
  ) : (
    <p role="alert" class="rp-error">
      {outcome.text}
    </p>
  );
}

/** Said before a change is tried by a session that lacks its node (the controller will refuse it). */
export function NeedsNode({ what, node }: { what: string; node: string }) {
  return (
    <p class="rp-needs">
      Your account may not {what}: it needs the permission <code>{node}</code>, so the controller will refuse it.
    </p>
  );
}
