import type { TObject, TSchema } from '@sinclair/typebox';
import { stringify } from 'smol-toml';

/**
 * Renders a schema of sections as a commented TOML file holding every key at its default,
 * each preceded by its description. Module configs are written this way on first launch.
 */
export function renderDefaultToml(schema: TObject, title: string): string {
  const lines = [`# ${title}`, '# Every key is listed with its default.', ''];
  for (const [section, sectionSchema] of Object.entries(schema.properties)) {
    lines.push(`[${section}]`);
    for (const [key, keySchema] of Object.entries((sectionSchema as TObject).properties)) {
      const description = (keySchema as TSchema).description;
      if (description) lines.push(`# ${description}`);
      lines.push(stringify({ [key]: (keySchema as TSchema).default }).trim());
    }
    lines.push('');
  }
  return lines.join('\n');
}
