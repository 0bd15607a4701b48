/**
 * ANSI helpers for what the dashboard writes into a terminal itself. Text from elsewhere (a
 * command's reply) loses its control characters before colours are added, so a player name or
 * a message cannot move the cursor or rewrite the screen; a server's own output keeps its
 * colours (xterm draws them) and is only stripped for the plain-text copy.
 */
const ESC = '\x1b[';
export const paint = {
  bold: (text: string) => `${ESC}1m${text}${ESC}0m`,
  dim: (text: string) => `${ESC}2m${text}${ESC}0m`,
  red: (text: string) => `${ESC}31m${text}${ESC}0m`,
  green: (text: string) => `${ESC}32m${text}${ESC}0m`,
  yellow: (text: string) => `${ESC}33m${text}${ESC}0m`,
  cyan: (text: string) => `${ESC}36m${text}${ESC}0m`,
};

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f\u009b]/g;
// eslint-disable-next-line no-control-regex
const SEQUENCE = /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)|[@-Z\\-_])/g;

/** Text with no control characters left (tabs kept): safe to colour and write. */
export function plainText(text: string): string {
  return text.replace(SEQUENCE, '').replace(CONTROL, '');
}
