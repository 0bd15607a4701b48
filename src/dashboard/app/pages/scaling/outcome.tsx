/** A save's answer under the form that sent it: saved (a status, in words) or refused (an alert, in the API's words). */
import type { SaveOutcome } from './save';

export function SaveOutcomeView({ outcome, savedText }: { outcome: SaveOutcome | null; savedText: string }) {
  if (!outcome) return null;
  if (outcome.kind === 'saved') {
    return (
      <p role="status" class="sc-ok">
        {savedText}
      </p>
    );
  }
  return (
    <p role="alert" class="sc-error">
      {outcome.text}
    </p>
  );
}
