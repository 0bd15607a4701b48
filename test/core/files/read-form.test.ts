/** How a file GET answers: what the caller asked for, else what the file is. */
import { describe, expect, test } from 'bun:test';
import { attachment } from '../../../src/core/files/content-disposition';
import { askedForm, binaryByName } from '../../../src/core/files/read-form';

describe('askedForm', () => {
  test.each([
    ['1', null, 'raw'],
    ['true', 'application/json', 'raw'],
    ['0', null, 'json'],
    ['false', '*/*', 'json'],
    [undefined, 'application/json', 'json'],
    [undefined, 'text/html, application/json;q=0.9', 'json'],
    [undefined, 'Application/JSON; charset=utf-8', 'json'],
    [undefined, 'application/json;q=0', null],
    [undefined, '*/*', null],
    [undefined, 'application/*', null],
    [undefined, 'application/octet-stream', null],
    [undefined, null, null],
    [undefined, '', null],
  ] as const)('raw=%p, Accept %p → %p', (raw, accept, form) => {
    expect(askedForm(raw, accept)).toBe(form);
  });
});

describe('binaryByName', () => {
  test.each(['a.png', 'A.PNG', 'logo.svg', 'x.jar', 'level.dat', 'r.0.0.mca', 'pack.zip', 'world.tar.gz', 'players.mv.db', 'photo.jpeg'])('%s is binary', (name) => {
    expect(binaryByName(name)).toBe(true);
  });
  test.each(['server.properties', 'config.yml', 'a.json', 'README', '.png', 'png', 'latest.log', 'start.sh', 'db'])('%s is left to its content', (name) => {
    expect(binaryByName(name)).toBe(false);
  });
});

describe('attachment', () => {
  test.each([
    ['plugin.jar', `attachment; filename="plugin.jar"; filename*=UTF-8''plugin.jar`],
    ['Bild "ä" (1).png', `attachment; filename="Bild ___ (1).png"; filename*=UTF-8''Bild%20%22%C3%A4%22%20%281%29.png`],
    ["it's*100%.txt", `attachment; filename="it's*100_.txt"; filename*=UTF-8''it%27s%2A100%25.txt`],
    ['back\\slash.txt', `attachment; filename="back_slash.txt"; filename*=UTF-8''back%5Cslash.txt`],
    ['a\r\nb.txt', `attachment; filename="a__b.txt"; filename*=UTF-8''a%0D%0Ab.txt`],
    ['🎮.png', `attachment; filename="_.png"; filename*=UTF-8''%F0%9F%8E%AE.png`],
  ])('%p', (name, header) => {
    expect(attachment(name)).toBe(header);
  });
});
