/** Answers in words: a refusal with the API's message (and its code, to look up), a success as a status. */
import type { ComponentChildren } from 'preact';
import { ApiFailure } from '../../api';
import { sentence } from '../../sentence';

/** What a failed request means, for the operator: forbidden, limited, unreachable or the API's words. */
export function refusalText(error: unknown, what = 'Refused'): string {
  if (error instanceof ApiFailure) {
    if (error.status === 403) return `${what}: your account may not do this. ${sentence(error.message)} Ask an admin of this network for that permission.`;
    if (error.status === 429) return `${what}: too many requests. ${sentence(error.message)}`;
    return `${what} (${error.code}): ${sentence(error.message)}`;
  }
  if (error instanceof Error && !(error instanceof TypeError)) return sentence(error.message);
  return 'The controller could not be reached: try again.';
}

export interface Outcome {
  ok: boolean;
  text: ComponentChildren;
}

export function OutcomeLine({ outcome }: { outcome: Outcome | null }) {
  if (!outcome) return null;
  return outcome.ok ? (
    <p role="status" class="pn-ok">
      {outcome.text}
    </p>
  ) : (
    <p role="alert" class="pn-error">
      {outcome.text}
    </p>
  );
}
