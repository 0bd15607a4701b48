/**
 * agent.toml's commented default file is rendered from AgentConfigSchema and its words
 * (AGENT_TOML_TEXT, src/agent/config.ts); config/agent.toml is the shipped copy, captured from the
 * hand-written default text this replaced: the render must give its bytes exactly.
 */
import { describe, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentToml, loadAgentConfig } from '../../src/agent/config';
import { patchToml } from '../../src/config/patch';

const SHIPPED = readFileSync(join(import.meta.dir, '../../config/agent.toml'), 'utf8');

describe('agent.toml rendered from its schema', () => {
  test('the default file is config/agent.toml byte for byte, and is what a first start writes', () => {
    expect(agentToml.render()).toBe(SHIPPED);
    const dir = mkdtempSync(join(tmpdir(), 'svc-agent-toml-'));
    try {
      const file = join(dir, 'agent.toml');
      const { created } = loadAgentConfig(file, { SVC_CLUSTER_TOKEN: 'from-env' });
      expect(created).toBe(true);
      expect(readFileSync(file, 'utf8')).toBe(SHIPPED);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a value other than the defaults: the same file with those values, as patching the default file gives it', () => {
    const config = agentToml.defaults();
    config.agent.node_name = 'node-7';
    config.agent.max_services = 0;
    config.java.java_21 = '/opt/java 21/bin/java';
    config.services.isolation = 'bwrap';
    expect(agentToml.render(config)).toBe(
      patchToml(SHIPPED, [
        { section: 'agent', key: 'node_name', value: 'node-7' },
        { section: 'agent', key: 'max_services', value: 0 },
        { section: 'java', key: 'java_21', value: '/opt/java 21/bin/java' },
        { section: 'services', key: 'isolation', value: 'bwrap' },
      ]),
    );
    expect(agentToml.parse(agentToml.render(config), 'agent.toml')).toEqual({ value: config, warnings: [] });
  });
});
