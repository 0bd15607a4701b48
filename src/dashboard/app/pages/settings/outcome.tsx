/**
 * What an operator's action came to, in words, for the Settings, Profile, Plugins and Stress
 * pages: the API's own message when it refuses (its code beside it, for a search in the spec),
 * the success message otherwise (a browser-side failure, e.g. WebAuthn's, in its own words). `useAction` runs one request at a time and keeps its outcome.
 */
import { useState } from 'preact/hooks';
import { ApiFailure } from '../../api';
import './shared.css';
import { sentence } from '../../sentence';

export interface Outcome {
  ok: boolean;
  text: string;
}

/** A refusal as the operator reads it: the message, then the code; a network failure named as one. */
export function refusalText(error: unknown): string {
  if (error instanceof ApiFailure) {
    if (error.status === 429) return `Refused, too many requests: ${error.message}.`;
    return `Refused (${error.code}): ${error.message}`;
  }
  // fetch fails with a TypeError when the controller cannot be reached; other errors say what failed.
  if (error instanceof Error && !(error instanceof TypeError)) return error.message;
  return 'The controller could not be reached: try again.';
}

/** `run(work)`: work resolves to the success text or throws the refusal. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const run = async (work: () => Promise<string>): Promise<boolean> => {
    setBusy(true);
    setOutcome(null);
    try {
      setOutcome({ ok: true, text: sentence(await work()) });
      return true;
    } catch (error) {
      setOutcome({ ok: false, text: refusalText(error) });
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, outcome, run, clear: () => setOutcome(null) };
}

/** A success as a polite status, a refusal as an alert (read out at once). */
export function OutcomeLine({ outcome }: { outcome: Outcome | null }) {
  if (!outcome) return null;
  return outcome.ok ? (
    <p role="status" class="op-ok">
      {outcome.text}
    </p>
  ) : (
    <p role="alert" class="op-error">
      {outcome.text}
    </p>
  );
}

/** A query's failure in words (the page's own section stays). */
export function LoadFailure({ error }: { error: unknown }) {
  return (
    <p role="alert" class="op-error">
      {refusalText(error).replace(/^Refused/, 'Could not load')}
    </p>
  );
}
