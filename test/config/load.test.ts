import { afterEach, describe, expect, test } from 'bun:test';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { ConfigError, DEFAULT_CONFIG_TEXT, loadConfig, parseConfigText } from '../../src/config/load';
import { ConfigSchema, defaultConfig } from '../../src/config/schema';
import { tempDir } from '../support/controller';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((f) => f()));
function dirWith(content?: string): string {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  if (content !== undefined) writeFileSync(join(dir, 'svc.toml'), content);
  return join(dir, 'svc.toml');
}

describe('the embedded default svc.toml', () => {
  test('parses to exactly the schema defaults, without warnings', () => {
    const { config, warnings } = parseConfigText(DEFAULT_CONFIG_TEXT, 'svc.toml');
    expect(warnings).toEqual([]);
    expect(config).toEqual(defaultConfig());
  });

  test('spells out every key of every section', () => {
    const raw = parseToml(DEFAULT_CONFIG_TEXT) as Record<string, Record<string, unknown>>;
    for (const [section, schema] of Object.entries(ConfigSchema.properties)) {
      expect(Object.keys(raw[section] ?? {}).sort()).toEqual(Object.keys(schema.properties).sort());
    }
  });

  test('holds the reference defaults', () => {
    const d = defaultConfig();
    expect(d.api).toMatchObject({ enabled: true, bind: '127.0.0.1', port: 8080, token: '', jwt_enabled: false, rate_limit: 120, service_rate_limit: 6000 });
    expect(d.controller).toMatchObject({ max_memory: '10G', max_services: 20, scaling_tick_interval: 10, service_stale_timeout: 300, backend_port_start: 30000 });
    expect(d.cluster).toMatchObject({ enabled: false, agent_port: 8443, node_timeout: 15000, placement_strategy: 'least-services', tls_enabled: true });
    expect(d.audit).toEqual({ enabled: true, retention_days: 90 });
    expect(d.loadbalancer.strategy).toBe('least-players');
    expect(d.resourcepacks.max_upload_bytes).toBe(262144000);
  });
});

describe('loadConfig', () => {
  test('an empty svc.toml (0 bytes or only blanks) runs on the defaults with a loud warning first; the commented default file and a real one get none', () => {
    for (const text of ['', '\n  \n\t']) {
      const file = dirWith(text);
      const { config, warnings } = loadConfig(file, {});
      expect(config).toEqual(defaultConfig());
      expect(warnings[0]).toBe(
        `${file} is EMPTY (${text.length} bytes): every setting is at its default, whatever this controller was configured with before. If it was truncated, restore it from a backup; to get the commented default file instead, delete it and start once (or run svc init)`,
      );
      expect(readFileSync(file, 'utf8')).toBe(text);
    }
    expect(loadConfig(dirWith(DEFAULT_CONFIG_TEXT), {}).warnings).toEqual([]);
    expect(loadConfig(dirWith('# only a comment\n'), {}).warnings).toEqual([]);
    // strict_config refuses unknown keys, not an empty file (there is nothing to refuse).
    expect(loadConfig(dirWith(''), {}).config.controller.strict_config).toBe(false);
  });

  test('first launch writes the commented default file', () => {
    const file = dirWith();
    const { config, created } = loadConfig(file, {});
    expect(created).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe(DEFAULT_CONFIG_TEXT);
    expect(config).toEqual(defaultConfig());
    expect(loadConfig(file, {}).created).toBe(false);
  });

  test('file values override defaults; absent keys keep theirs', () => {
    const file = dirWith('[api]\nport = 9090\n[network]\nname = "Skyblock"\n');
    const { config } = loadConfig(file, {});
    expect(config.api.port).toBe(9090);
    expect(config.api.bind).toBe('127.0.0.1');
    expect(config.network.name).toBe('Skyblock');
  });

  test('environment overrides win over the file', () => {
    const file = dirWith('[api]\ntoken = "from-file"\n[cluster]\ntoken = "cluster-file"\n[database]\nport = 1\n');
    const { config } = loadConfig(file, {
      SVC_API_TOKEN: 'from-env',
      SVC_CLUSTER_TOKEN: 'cluster-env',
      SVC_DB_HOST: 'db.internal',
      SVC_DB_PORT: '5432',
      SVC_DB_NAME: 'net',
      SVC_DB_USERNAME: 'u',
      SVC_DB_PASSWORD: 'p',
    });
    expect(config.api.token).toBe('from-env');
    expect(config.cluster.token).toBe('cluster-env');
    expect(config.database).toMatchObject({ host: 'db.internal', port: 5432, name: 'net', username: 'u', password: 'p' });
  });

  test('a bad environment value names the variable', () => {
    const file = dirWith('');
    expect(() => loadConfig(file, { SVC_DB_PORT: 'abc' })).toThrow('environment SVC_DB_PORT: expected an integer between 0 and 65535, got "abc"');
    expect(() => loadConfig(file, { SVC_DB_TYPE: 'oracle' })).toThrow('environment SVC_DB_TYPE: expected "sqlite", got "oracle"');
  });

  test('malformed TOML names the file, line and column; the file is not rewritten', () => {
    const text = '[api]\nport = 80\n[network\nname = "x"\n';
    const file = dirWith(text);
    const before = statSync(file).mtimeMs;
    let error: unknown;
    try {
      loadConfig(file, {});
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toStartWith(`${file}:3:`);
    expect((error as Error).message).toContain('malformed TOML');
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(statSync(file).mtimeMs).toBe(before);
  });

  test.each([
    ['[api]\nport = "x"\n', '[api] port: expected an integer between 0 and 65535, got "x"'],
    ['[api]\nport = 70000\n', '[api] port: expected an integer between 0 and 65535, got 70000'],
    ['[controller]\nmax_memory = "lots"\n', '[controller] max_memory: expected a string matching ^\\d+[MmGg]$, got "lots"'],
    ['[cluster]\nplacement_strategy = "random"\n', '[cluster] placement_strategy: expected one of "least-services", "least-memory", "round-robin", got "random"'],
    ['[api]\nallowed_origins = "x"\n', '[api] allowed_origins: expected a list of strings, got "x"'],
    ['[console]\ncolored = 1\n', '[console] colored: expected true or false, got 1'],
    ['api = 3\n', 'api: expected a [api] table, got 3'],
  ])('a bad value is one clear line: %p', (text, message) => {
    const file = dirWith(text);
    expect(() => loadConfig(file, {})).toThrow(`${file}: ${message}`);
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  test('unknown keys and sections warn, with a suggestion', () => {
    const file = dirWith('[api]\nprot = 1\n[netwrok]\nname = "x"\nstray = 1\n');
    const { warnings, config } = loadConfig(file, {});
    expect(warnings).toContain(`${file}: unknown key [api] prot (ignored); did you mean "port"?`);
    expect(warnings).toContain(`${file}: unknown section [netwrok] (ignored); did you mean "network"?`);
    expect(config.api.port).toBe(8080);
  });

  test('strict_config turns an unknown key into an error', () => {
    const file = dirWith('[controller]\nstrict_config = true\n[api]\nprot = 1\n');
    expect(() => loadConfig(file, {})).toThrow(/unknown key \[api\] prot .*strict_config = true/);
  });
});
