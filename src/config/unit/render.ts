import type { TObject, TSchema } from '@sinclair/typebox';
import { stringify } from 'smol-toml';

/**
 * A schema of sections as a commented TOML file holding every key at its default, each
 * preceded by its description: the file a module (or any sections file) gets on first launch.
 * Later changes go through `patchToml`, which keeps these comments and the operator's.
 */
export function renderSectionsToml(schema: TObject, title: string): string {
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
