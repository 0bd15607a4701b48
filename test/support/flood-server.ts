/** Lines the flood server prints on `flood`: five bursts of 5,000, 0.2 s apart (over 10,000 lines a second). */
export const FLOOD_LINES = 25_000;

/**
 * A game server in sh for console floods (test/browser/service-page.browser.ts, bench dashboard):
 * READY at once; `flood` prints FLOOD_LINES numbered lines, a line in a 24-bit colour, then
 * `flood-end`; `stop` ends it; any other line is echoed back.
 */
export const FLOOD_SCRIPT = [
  `echo 'Done (0.1s)! For help, type "help"'`,
  'while read -r line; do',
  '  if [ "$line" = flood ]; then',
  '    for burst in 0 1 2 3 4; do seq $((burst * 5000 + 1)) $((burst * 5000 + 5000)) | sed "s/^/flood line /"; sleep 0.2; done',
  `    printf '\\033[38;2;255;120;0mflood in orange\\033[0m\\n'`,
  '    echo flood-end',
  '  elif [ "$line" = stop ]; then exit 0',
  '  else echo "echo: $line"; fi',
  'done',
].join('\n');

/** A CUSTOM group of flood servers. */
export const floodGroup = (name = 'Flood') => ({ name, software: 'CUSTOM', version: '1.21.1', jarName: 'server.jar', startCommand: ['sh', '-c', FLOOD_SCRIPT], minInstances: 0, maxInstances: 1 });
