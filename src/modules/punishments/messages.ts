import { copyFileSync, existsSync, readFileSync, statSync } from 'node:fs';
import { ApiError } from '../../errors';
import { Type, type Static } from '@sinclair/typebox';
import { DocumentProblem, documentPath, readDocument, TOML_SPELLING } from '../../config/unit/document';
import type { FileText } from '../../config/unit/file-text';
import { renderToml } from '../../config/unit/render';
import { parseTomlText, TomlSyntaxError } from '../../config/unit/toml-syntax';
import { writeFileAtomic } from '../../config/write';
import { showValue } from '../../describe-schema';
import { closedObject } from '../../http/schemas';
import { formatRemaining } from './duration';

/**
 * The nine texts players see, `config/modules/punishments/messages.toml`. `&` colour codes
 * become `§` when rendered (what the plugins' legacy-section deserializer reads).
 */
export const MESSAGE_DEFAULTS = {
  ban: '&c&lYou are banned from the network\n&7Reason: &f{reason}\n&7Banned by: &f{issuer}\n&7Appeal at our support portal.',
  tempban: '&c&lYou are temporarily banned\n&7Reason: &f{reason}\n&7Banned by: &f{issuer}\n&7Expires in: &f{remaining}',
  ipban: '&c&lYour IP is banned from the network\n&7Reason: &f{reason}',
  mute: '&cYou are muted: &f{reason}',
  tempmute: '&cYou are muted for &f{remaining}&c: &f{reason}',
  kick: '&cKicked: &f{reason}',
  warn: '&e&l⚠ Warning &7from &f{issuer}\n&7Reason: &f{reason}',
  broadcast_issued: '&c[PUNISH] &f{target} &7was &c{type} &7by &f{issuer} &7({reason})',
  broadcast_revoked: '&a[PUNISH] &f{target} &7was un-{type} by &f{issuer}',
} as const;
export type MessageKey = keyof typeof MESSAGE_DEFAULTS;
export type MessageTemplates = Record<MessageKey, string>;
export const MESSAGE_KEYS = Object.keys(MESSAGE_DEFAULTS) as MessageKey[];

const TEMPLATE_LIMIT = 2048;
/** A template's schema; with its default for the file (and the answer), without for an update (a PUT changes only what it sends). */
const template = (key: MessageKey, withDefault: boolean) =>
  Type.String({ maxLength: TEMPLATE_LIMIT, ...(withDefault ? { default: MESSAGE_DEFAULTS[key] } : {}), description: `default: ${JSON.stringify(MESSAGE_DEFAULTS[key])}` });
const templateFields = (withDefault: boolean) => ({
  ban: template('ban', withDefault),
  tempban: template('tempban', withDefault),
  ipban: template('ipban', withDefault),
  mute: template('mute', withDefault),
  tempmute: template('tempmute', withDefault),
  kick: template('kick', withDefault),
  warn: template('warn', withDefault),
  broadcast_issued: template('broadcast_issued', withDefault),
  broadcast_revoked: template('broadcast_revoked', withDefault),
});
/** The file's keys, types and defaults, and the shape GET answers. */
export const MessagesSchema = Type.Object(templateFields(true));
/** A PUT changes the keys it sends and no other; an unknown key is refused by name. */
export const MessagesUpdateSchema = closedObject(Type.Partial(Type.Object(templateFields(false))).properties);
export type MessagesUpdate = Static<typeof MessagesUpdateSchema>;

/** The file's words: a header above the templates, which carry none of their own. */
const MESSAGES_TOML_TEXT: FileText<typeof MessagesSchema> = {
  header: [
    'What players see when punished. Placeholders: {type} {target} {issuer} {reason}',
    '{duration} and {remaining} (time left: 7d 12h 5m, 30s, permanent) {expires} (ISO-8601 or never).',
    '`&` colour codes (&c, &l, ...) become § codes. PUT /api/punishments/messages changes them live;',
    'edits made here by hand are read when the controller starts.',
  ],
  blankAfterHeader: false,
  blankAtEnd: true,
};

/** The file's text: every template under the header; readMessages gives them back. */
export function renderMessagesToml(templates: MessageTemplates): string {
  return renderToml(MessagesSchema, MESSAGES_TOML_TEXT, templates);
}

/** Values a template is filled with. */
export interface MessageValues {
  type: string;
  target: string;
  issuer: string;
  reason: string;
  /** Epoch ms of the end; null when permanent. */
  expiresAt: number | null;
  now: number;
}

/** `&` followed by a legacy formatting code: colours 0-9 a-f, k-o styles, r reset, x hex prefix. */
const LEGACY_CODE = /&([0-9a-fk-orx])/gi;
const PLACEHOLDER = /\{(type|target|issuer|reason|duration|remaining|expires)\}/g;

/** Fills a template; `&` codes (from the template or a staff member's reason) become `§` codes. */
export function renderMessage(text: string, v: MessageValues): string {
  const remaining = formatRemaining(v.expiresAt === null ? null : v.expiresAt - v.now);
  const values: Record<string, string> = {
    type: v.type.toLowerCase(),
    target: v.target,
    issuer: v.issuer,
    reason: v.reason.trim() === '' ? 'No reason given' : v.reason,
    duration: remaining,
    remaining,
    expires: v.expiresAt === null ? 'never' : new Date(v.expiresAt).toISOString(),
  };
  return text.replace(PLACEHOLDER, (_, key: string) => values[key]!).replace(LEGACY_CODE, '§$1');
}

export type MessagesLoad = { templates: MessageTemplates; problem?: string };

/** Reads the file; a missing key takes its default. A file that cannot be used gives the defaults and says why. */
export function readMessages(file: string): MessagesLoad {
  if (!existsSync(file)) return { templates: { ...MESSAGE_DEFAULTS } };
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    return { templates: { ...MESSAGE_DEFAULTS }, problem: `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
  }
  let raw: Record<string, unknown>;
  try {
    raw = parseTomlText(text);
  } catch (error) {
    if (error instanceof TomlSyntaxError) return { templates: { ...MESSAGE_DEFAULTS }, problem: error.problem };
    throw error;
  }
  let templates: MessageTemplates;
  try {
    // Unknown keys are reported below, after the known ones are read.
    templates = readDocument(MessagesSchema, raw, TOML_SPELLING, 'ignore');
  } catch (error) {
    if (error instanceof DocumentProblem) return { templates: { ...MESSAGE_DEFAULTS }, problem: `${documentPath(error.path, TOML_SPELLING)} ${error.what}` };
    throw error;
  }
  const unknown = Object.keys(raw).filter((k) => !(MESSAGE_KEYS as string[]).includes(k));
  if (unknown.length > 0) return { templates, problem: `unknown key(s) ${unknown.join(', ')} (ignored); the keys are ${MESSAGE_KEYS.join(', ')}` };
  return { templates };
}

/**
 * Writes every template atomically. A file that could not be read is kept beside it as
 * `messages.toml.broken` first, so a PUT never silently discards an operator's hand edit.
 */
export function writeMessages(file: string, templates: MessageTemplates, previousProblem: string | undefined): void {
  if (previousProblem !== undefined && existsSync(file)) {
    if (!statSync(file).isFile()) throw new ApiError('SERVICE_UNAVAILABLE', 'config/modules/punishments/messages.toml is not a regular file, so the templates cannot be saved; remove it and send them again');
    copyFileSync(file, `${file}.broken`);
  }
  writeFileAtomic(file, renderMessagesToml(templates));
}

/** The templates in use, and the one place they change. */
export class MessageBook {
  private current: MessageTemplates;
  private problem: string | undefined;

  constructor(private readonly file: string) {
    const loaded = readMessages(file);
    this.current = loaded.templates;
    this.problem = loaded.problem;
    if (!existsSync(file)) writeMessages(file, this.current, undefined);
  }

  templates(): MessageTemplates {
    return this.current;
  }

  /** What was wrong with the file when it was read (the defaults are in use for a broken one). */
  fileProblem(): string | undefined {
    return this.problem;
  }

  get path(): string {
    return this.file;
  }

  /** Sets the templates sent, keeps the rest, writes the whole file; answers every template. */
  update(changes: MessagesUpdate): MessageTemplates {
    const next: MessageTemplates = { ...this.current };
    for (const key of MESSAGE_KEYS) {
      const value = changes[key];
      if (value !== undefined) next[key] = value;
    }
    writeMessages(this.file, next, this.problem);
    this.current = next;
    this.problem = undefined;
    return next;
  }
}
