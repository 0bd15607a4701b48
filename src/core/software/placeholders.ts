/** Values a group's own `startCommand` may name as `{port}`, `{memory}`, `{name}`, `{group}`. */
export interface StartPlaceholders {
  port: number;
  memory: string;
  name: string;
  group: string;
}

const PLACEHOLDER = /\{(port|memory|name|group)\}/g;

/**
 * Replaces every placeholder in every element, in one pass: a value that itself contains
 * `{port}` (a service named so) is not expanded again. Unknown `{...}` stay as written.
 */
export function substitutePlaceholders(command: readonly string[], values: StartPlaceholders): string[] {
  return command.map((part) =>
    part.replace(PLACEHOLDER, (_, key: keyof StartPlaceholders) => String(values[key])),
  );
}
