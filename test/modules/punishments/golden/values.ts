import { MESSAGE_DEFAULTS, type MessageTemplates } from '../../../../src/modules/punishments/messages';

/** The templates messages.toml's golden files (next to this) were written from, by the writer it had before it was rendered from its schema. */
export const GOLDEN_VALUES: Record<string, MessageTemplates> = {
  defaults: { ...MESSAGE_DEFAULTS },
  custom: {
    ...MESSAGE_DEFAULTS,
    ban: 'say "hi" \\ there\n&cline two\ttab',
    mute: "'''\"\"\" [section] # not a comment",
    kick: '',
    warn: '&b★ Ünïcödé 🎉 中文 \u2028 \u007f',
  },
};
