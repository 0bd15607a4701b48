/**
 * A stand-in game server for update.bench.ts: prints `tick <seq> <epoch ms>` every 10 ms and
 * answers each console line `cmd <seq>` with `got <seq> <epoch ms>`, so the bench can see how
 * long its output and its input were cut off while the controller swapped its binary.
 */
import { createInterface } from 'node:readline';

let seq = 0;
console.log('ticker ready');
setInterval(() => console.log(`tick ${++seq} ${Date.now()}`), 10);
createInterface({ input: process.stdin }).on('line', (line) => {
  const match = /^cmd (\d+)$/.exec(line.trim());
  if (match) console.log(`got ${match[1]} ${Date.now()}`);
});
process.on('SIGTERM', () => process.exit(0));
