/**
 * The stack a backend applies (spec "Stack resolution rules"): wider scopes first, by priority
 * within a scope, a pack once at its narrowest place, LOCAL URLs made absolute; and the base
 * URL those are made absolute with.
 */
import { describe, expect, test } from 'bun:test';
import type { Assignment, AssignmentScope, Pack } from '../../../src/modules/resourcepacks/model';
import { publicBaseUrl, resolveStack } from '../../../src/modules/resourcepacks/stack';

const BASE = 'https://packs.example.net';

function pack(id: number, source: Pack['source'] = 'URL'): Pack {
  const packUuid = `00000000-0000-4000-8000-${String(id).padStart(12, '0')}`;
  return {
    id,
    packUuid,
    name: `pack${id}`,
    source,
    url: source === 'URL' ? `https://cdn.example.com/${id}.zip` : `/api/resourcepacks/files/${packUuid}.zip`,
    sha1Hash: String(id).repeat(40).slice(0, 40),
    promptMessage: '',
    force: false,
    fileSize: 0,
    uploadedAt: 0,
    uploadedBy: 'api:admin',
  };
}

let nextId = 1;
const at = (p: Pack, scope: AssignmentScope, priority = 0, target = scope === 'GLOBAL' ? '' : 'x'): { assignment: Assignment; pack: Pack } => ({
  assignment: { id: nextId++, packId: p.id, scope, target, priority },
  pack: p,
});
const names = (items: ReturnType<typeof resolveStack>) => items.map((i) => `${i.name}@${i.priority}`);

describe('resolveStack', () => {
  test('wider scope first, then priority, whatever order the rows come in', () => {
    const [a, b, c, d] = [pack(1), pack(2), pack(3), pack(4)];
    const rows = [at(d!, 'SERVICE', -5), at(c!, 'GROUP', 2), at(b!, 'GROUP', 1), at(a!, 'GLOBAL', 10)];
    expect(names(resolveStack(rows, BASE))).toEqual(['pack1@10', 'pack2@1', 'pack3@2', 'pack4@-5']);
    expect(names(resolveStack([...rows].reverse(), BASE))).toEqual(['pack1@10', 'pack2@1', 'pack3@2', 'pack4@-5']);
  });

  test('equal scope and priority keep the order they were assigned in', () => {
    const rows = [at(pack(7), 'GLOBAL'), at(pack(5), 'GLOBAL'), at(pack(6), 'GLOBAL')];
    expect(names(resolveStack(rows, BASE))).toEqual(['pack7@0', 'pack5@0', 'pack6@0']);
  });

  test('a pack assigned at several applying scopes appears once, at its narrowest place', () => {
    const shared = pack(1);
    const other = pack(2);
    const rows = [at(shared, 'GLOBAL', 0), at(other, 'GROUP', 0), at(shared, 'SERVICE', 3)];
    expect(names(resolveStack(rows, BASE))).toEqual(['pack2@0', 'pack1@3']);
  });

  test('LOCAL urls become absolute under the base; URL packs keep theirs; every field of the item', () => {
    const local = pack(1, 'LOCAL');
    const [item] = resolveStack([at({ ...local, promptMessage: 'Please', force: true }, 'GLOBAL', 4)], BASE);
    expect(item).toEqual({ packUuid: local.packUuid, name: 'pack1', url: `${BASE}/api/resourcepacks/files/${local.packUuid}.zip`, sha1Hash: local.sha1Hash, promptMessage: 'Please', force: true, priority: 4 });
    expect(resolveStack([at(pack(2), 'GLOBAL')], BASE)[0]!.url).toBe('https://cdn.example.com/2.zip');
  });

  test('nothing applies: an empty stack', () => {
    expect(resolveStack([], BASE)).toEqual([]);
  });
});

describe('publicBaseUrl', () => {
  test.each([
    ['https://packs.example.net/', '0.0.0.0', 8080, 'https://packs.example.net'],
    ['  https://packs.example.net/base//  ', '0.0.0.0', 8080, 'https://packs.example.net/base'],
    ['', '0.0.0.0', 8080, 'http://127.0.0.1:8080'],
    ['', '127.0.0.1', 9000, 'http://127.0.0.1:9000'],
    ['', '10.1.2.3', 8080, 'http://10.1.2.3:8080'],
    ['', '::', 8080, 'http://[::1]:8080'],
    ['', 'fd00::5', 8080, 'http://[fd00::5]:8080'],
  ])('configured %p, bind %p, port %p → %p', (configured, bind, port, expected) => {
    expect(publicBaseUrl(configured, bind, port)).toBe(expected);
  });
});
