/**
 * svc.toml's commented default file is rendered from ConfigSchema and its words
 * (src/config/svc-toml-text.ts); config/svc.toml is the shipped copy, once laid out by hand and
 * now the golden expectation: the render must give its bytes exactly.
 */
import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { DEFAULT_CONFIG_TEXT, parseConfigText, svcToml } from '../../src/config/load';
import { patchToml } from '../../src/config/patch';
import { defaultConfig } from '../../src/config/schema';

const SHIPPED = readFileSync(join(import.meta.dir, '../../config/svc.toml'), 'utf8');

describe('svc.toml rendered from its schema', () => {
  test('the default file is config/svc.toml byte for byte, and is what a first launch writes', () => {
    expect(svcToml.render()).toBe(SHIPPED);
    expect(DEFAULT_CONFIG_TEXT).toBe(SHIPPED);
  });

  test('a value other than the defaults: the same file with those values, as patching the default file gives it', () => {
    const config = defaultConfig();
    config.network.name = 'Sky "block"';
    config.api.port = 9090;
    config.controller.strict_config = true;
    config.cluster.sync_disk_quota_bytes = 0;
    const text = svcToml.render(config);
    expect(text).toBe(
      patchToml(SHIPPED, [
        { section: 'network', key: 'name', value: 'Sky "block"' },
        { section: 'api', key: 'port', value: 9090 },
        { section: 'controller', key: 'strict_config', value: true },
        { section: 'cluster', key: 'sync_disk_quota_bytes', value: 0 },
      ]),
    );
    expect(parseConfigText(text, 'svc.toml')).toEqual({ config, warnings: [] });
  });

  test('lists stay on their line, written as the shipped file writes them', () => {
    const config = defaultConfig();
    config.api.allowed_origins = ['https://a.example', 'https://b.example'];
    config.cluster.extra_sans = ['node.example'];
    const text = svcToml.render(config);
    expect(text).toBe(
      SHIPPED.replace('allowed_origins = ["http://localhost:3000"]', 'allowed_origins = ["https://a.example", "https://b.example"]').replace('extra_sans = []', 'extra_sans = ["node.example"]'),
    );
    expect((parse(text) as { api: { allowed_origins: string[] } }).api.allowed_origins).toEqual(config.api.allowed_origins);
  });
});
