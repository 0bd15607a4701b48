import { expect, test } from 'bun:test';
import type { UpdateType } from '../../../src/core/info/update-check';
import { appliesAutomatically, type AutoUpdateMode } from '../../../src/core/update/policy';

const TABLE: [AutoUpdateMode, UpdateType | null, boolean][] = [
  ['off', 'MAJOR', false],
  ['off', 'MINOR', false],
  ['off', 'PATCH', false],
  ['off', null, false],
  ['patch', 'MAJOR', false],
  ['patch', 'MINOR', false],
  ['patch', 'PATCH', true],
  ['patch', null, false],
  ['minor', 'MAJOR', false],
  ['minor', 'MINOR', true],
  ['minor', 'PATCH', true],
  ['minor', null, false],
];

test.each(TABLE)('auto_update = %p, a %p release → applied automatically: %p', (mode, type, applies) => {
  expect(appliesAutomatically(mode, type)).toBe(applies);
});
