/** The page's words for the API's answers: refusals, decisions, times. */
import { ApiFailure } from '../../api';

/** The text with a full stop at its end (its first letter kept: it may be a key's name). */
export const withStop = (text: string) => (/[.!?]$/.test(text) ? text : `${text}.`);

/** What a failed request means, for the operator: forbidden, limited, unreachable or the API's words. */
export function refusalText(error: unknown, what: string): string {
  if (error instanceof ApiFailure) {
    if (error.status === 403) return `${what}: your account may not do this. ${withStop(error.message)} Ask an admin of this network for that permission.`;
    if (error.status === 429) return `${what}: too many requests. ${withStop(error.message)}`;
    return `${what} (${error.code}): ${withStop(error.message)}`;
  }
  if (error instanceof Error && !(error instanceof TypeError)) return `${what}: ${withStop(error.message)}`;
  return `${what}: the controller could not be reached. Try again.`;
}

/** A decision's action in words, with who took it. */
export const ACTION_WORDS: Readonly<Record<string, string>> = {
  scale_up: 'Scale-up',
  scale_down: 'Scale-down',
  smart_schedule: 'Schedule start',
  smart_warmup: 'Warm-up start',
  smart_prediction: 'Prediction start',
};

export const SOURCE_WORDS: Readonly<Record<string, string>> = {
  engine: 'the autoscaler',
  schedule: 'a schedule rule',
  warmup: 'a rule’s warm-up',
  prediction: 'a prediction',
};

export const actionText = (action: string) => ACTION_WORDS[action] ?? action;
export const sourceText = (source: string) => SOURCE_WORDS[source] ?? source;

/** A moment as this browser writes it, with the date when it is not today. */
export function momentText(iso: string, now = Date.now()): string {
  const at = new Date(iso);
  const sameDay = at.toDateString() === new Date(now).toDateString();
  return sameDay ? at.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' }) : at.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
