/** One console command as stdin bytes: the line plus "\n". A line break inside would smuggle in a second command, so it is refused. */
export function encodeConsoleLine(line: string): Uint8Array {
  if (line.includes('\n') || line.includes('\r')) throw new Error(`a console line must not contain a line break: ${JSON.stringify(line)}`);
  return new TextEncoder().encode(`${line}\n`);
}
