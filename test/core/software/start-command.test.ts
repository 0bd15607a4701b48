import { describe, expect, test } from 'bun:test';
import { aikarFlags } from '../../../src/core/software/aikar-flags';
import {
  buildStartCommand,
  memoryMaxMb,
  parseMemory,
  usesForgeArgsFile,
  type StartCommandInput,
} from '../../../src/core/software/start-command';
import { parseGameVersion } from '../../../src/core/software/version';
import { catchApiError } from './catch-error';

const JAVA = { java_16: '/jdk16/java', java_17: '/jdk17/java', java_21: '/jdk21/java' };

function input(overrides: Partial<StartCommandInput>): StartCommandInput {
  return {
    software: 'PAPER',
    version: '1.21',
    memory: '2G',
    jvmArgs: [],
    jvmOptimize: false,
    javaConfig: JAVA,
    serviceName: 'Lobby-1',
    groupName: 'Lobby',
    port: 30001,
    apiPort: 8080,
    ...overrides,
  };
}

/** The -D block every built command carries for the `input()` defaults. */
const SVC_PROPS = [
  '-Dsvc.service.name=Lobby-1',
  '-Dsvc.service.group=Lobby',
  '-Dsvc.service.port=30001',
  '-Dsvc.api.url=http://127.0.0.1:8080',
];

const FORGE_ARGS = 'libraries/net/minecraftforge/forge/1.20.1-47.2.0/unix_args.txt';
const NEOFORGE_ARGS = 'libraries/net/neoforged/neoforge/21.1.77/unix_args.txt';

describe('buildStartCommand: one row per kind and version band', () => {
  const rows: [string, Partial<StartCommandInput>, string[]][] = [
    ['Velocity 3.x', { software: 'VELOCITY', version: '3.4.0-SNAPSHOT' }, ['/jdk21/java', '-Xmx2G', ...SVC_PROPS, '-jar', 'server.jar']],
    ['PAPER 1.21', { version: '1.21' }, ['/jdk21/java', '-Xmx2G', ...SVC_PROPS, '-jar', 'server.jar', '--nogui']],
    ['PAPER 1.20.4', { version: '1.20.4' }, ['/jdk17/java', '-Xmx2G', ...SVC_PROPS, '-jar', 'server.jar', '--nogui']],
    ['PAPER 1.16.5', { version: '1.16.5' }, ['/jdk16/java', '-Xmx2G', ...SVC_PROPS, '-jar', 'server.jar', '--nogui']],
    ['PAPER 1.14 (first --nogui)', { version: '1.14' }, ['/jdk16/java', '-Xmx2G', ...SVC_PROPS, '-jar', 'server.jar', '--nogui']],
    ['PAPER 1.13.2', { version: '1.13.2' }, ['/jdk16/java', '-Xmx2G', ...SVC_PROPS, '-jar', 'server.jar', 'nogui']],
    ['PAPER 1.12.2', { version: '1.12.2' }, ['/jdk16/java', '-Xmx2G', ...SVC_PROPS, '-jar', 'server.jar', 'nogui']],
    ['PAPER 1.8.8', { version: '1.8.8' }, ['/jdk16/java', '-Xmx2G', ...SVC_PROPS, '-jar', 'server.jar', 'nogui']],
    ['PURPUR 1.21.4', { software: 'PURPUR', version: '1.21.4' }, ['/jdk21/java', '-Xmx2G', ...SVC_PROPS, '-jar', 'server.jar', '--nogui']],
    ['FABRIC 1.21.1', { software: 'FABRIC', version: '1.21.1' }, ['/jdk21/java', '-Xmx2G', ...SVC_PROPS, '-jar', 'server.jar', 'nogui']],
    [
      'FORGE 1.20.1 with unix_args',
      { software: 'FORGE', version: '1.20.1', forgeArgsFile: FORGE_ARGS },
      ['/jdk17/java', '-Xmx2G', ...SVC_PROPS, `@${FORGE_ARGS}`, 'nogui'],
    ],
    [
      'FORGE 1.20.1 without an args file falls back to the jar',
      { software: 'FORGE', version: '1.20.1' },
      ['/jdk17/java', '-Xmx2G', ...SVC_PROPS, '-jar', 'server.jar', 'nogui'],
    ],
    [
      'FORGE 1.12.2 with -jar, even when an args file is passed',
      { software: 'FORGE', version: '1.12.2', forgeArgsFile: FORGE_ARGS },
      ['/jdk16/java', '-Xmx2G', ...SVC_PROPS, '-jar', 'server.jar', 'nogui'],
    ],
    [
      'FORGE 1.17.1 (first args-file band)',
      { software: 'FORGE', version: '1.17.1', forgeArgsFile: FORGE_ARGS },
      ['/jdk16/java', '-Xmx2G', ...SVC_PROPS, `@${FORGE_ARGS}`, 'nogui'],
    ],
    [
      'FORGE 1.16.5 (last -jar band)',
      { software: 'FORGE', version: '1.16.5', forgeArgsFile: FORGE_ARGS },
      ['/jdk16/java', '-Xmx2G', ...SVC_PROPS, '-jar', 'server.jar', 'nogui'],
    ],
    [
      'NEOFORGE 1.21.1',
      { software: 'NEOFORGE', version: '1.21.1', forgeArgsFile: NEOFORGE_ARGS },
      ['/jdk21/java', '-Xmx2G', ...SVC_PROPS, `@${NEOFORGE_ARGS}`, 'nogui'],
    ],
    [
      'CUSTOM with jarName',
      { software: 'CUSTOM', version: '1.20.4', jarName: 'my-server.jar' },
      ['/jdk17/java', '-Xmx2G', ...SVC_PROPS, '-jar', 'my-server.jar', '--nogui'],
    ],
    [
      'CUSTOM 1.12.2 in a subfolder',
      { software: 'CUSTOM', version: '1.12.2', jarName: 'bin/spigot.jar' },
      ['/jdk16/java', '-Xmx2G', ...SVC_PROPS, '-jar', 'bin/spigot.jar', 'nogui'],
    ],
    ['PAPER with its own jarName', { jarName: 'paper-1.21-130.jar' }, ['/jdk21/java', '-Xmx2G', ...SVC_PROPS, '-jar', 'paper-1.21-130.jar', '--nogui']],
  ];

  for (const [name, overrides, expected] of rows) {
    test(name, () => {
      expect(buildStartCommand(input(overrides))).toEqual(expected);
    });
  }
});

describe('JVM flags', () => {
  test('jvmOptimize without jvmArgs adds Aikar flags after -Xmx, starting with -Xms', () => {
    const argv = buildStartCommand(input({ memory: '4G', jvmOptimize: true }));
    expect(argv.slice(0, 3)).toEqual(['/jdk21/java', '-Xmx4G', '-Xms4G']);
    expect(argv).toEqual(['/jdk21/java', '-Xmx4G', ...aikarFlags('4G'), ...SVC_PROPS, '-jar', 'server.jar', '--nogui']);
  });

  test('the Aikar list is the documented base set', () => {
    expect(aikarFlags('10G').join(' ')).toBe(
      '-Xms10G -XX:+UseG1GC -XX:+ParallelRefProcEnabled -XX:MaxGCPauseMillis=200 -XX:+UnlockExperimentalVMOptions ' +
        '-XX:+DisableExplicitGC -XX:+AlwaysPreTouch -XX:G1NewSizePercent=30 -XX:G1MaxNewSizePercent=40 ' +
        '-XX:G1HeapRegionSize=8M -XX:G1ReservePercent=20 -XX:G1HeapWastePercent=5 -XX:G1MixedGCCountTarget=4 ' +
        '-XX:InitiatingHeapOccupancyPercent=15 -XX:G1MixedGCLiveThresholdPercent=90 ' +
        '-XX:G1RSetUpdatingPauseTimePercent=5 -XX:SurvivorRatio=32 -XX:+PerfDisableSharedMem ' +
        '-XX:MaxTenuringThreshold=1 -Dusing.aikars.flags=https://mcflags.emc.gs -Daikars.new.flags=true',
    );
  });

  test('jvmOptimize with jvmArgs uses only the group flags', () => {
    const argv = buildStartCommand(input({ jvmOptimize: true, jvmArgs: ['-XX:+UseZGC', '-Dfoo=bar baz'] }));
    expect(argv).toEqual(['/jdk21/java', '-Xmx2G', '-XX:+UseZGC', '-Dfoo=bar baz', ...SVC_PROPS, '-jar', 'server.jar', '--nogui']);
  });

  test('jvmArgs without jvmOptimize are used as given', () => {
    const argv = buildStartCommand(input({ jvmArgs: ['-XX:+UseZGC'] }));
    expect(argv).toEqual(['/jdk21/java', '-Xmx2G', '-XX:+UseZGC', ...SVC_PROPS, '-jar', 'server.jar', '--nogui']);
  });

  test('blank jvmArgs are dropped, so jvmOptimize still applies', () => {
    const argv = buildStartCommand(input({ jvmOptimize: true, jvmArgs: ['', '  '] }));
    expect(argv[2]).toBe('-Xms2G');
    expect(argv).not.toContain('');
  });

  test('no jvmOptimize and no jvmArgs: nothing between -Xmx and the svc properties', () => {
    const argv = buildStartCommand(input({ memory: '512M' }));
    expect(argv.slice(0, 3)).toEqual(['/jdk21/java', '-Xmx512M', '-Dsvc.service.name=Lobby-1']);
  });
});

describe('Java binary', () => {
  test('a group javaPath wins over [java]', () => {
    expect(buildStartCommand(input({ javaPath: '/usr/lib/jvm/temurin-21/bin/java' }))[0]).toBe('/usr/lib/jvm/temurin-21/bin/java');
  });

  test('a blank javaPath falls back to [java]', () => {
    expect(buildStartCommand(input({ javaPath: ' ', version: '1.19.2' }))[0]).toBe('/jdk17/java');
  });

  test('blank [java] entries mean java on PATH', () => {
    const blank = { java_16: '', java_17: '', java_21: '' };
    expect(buildStartCommand(input({ javaConfig: blank }))[0]).toBe('java');
    expect(buildStartCommand(input({ javaConfig: blank, software: 'VELOCITY', version: '3.3.0' }))[0]).toBe('java');
  });
});

describe('startCommand replaces the built command', () => {
  test('all four placeholders, repeated and inside larger strings, in every element', () => {
    const argv = buildStartCommand(
      input({
        software: 'FORGE',
        version: '1.20.1',
        jvmOptimize: true,
        forgeArgsFile: FORGE_ARGS,
        startCommand: ['./start.sh', '--port={port}', '{memory}', '-Dn={name}@{group}:{port}', 'x{name}{name}x', '{port}'],
      }),
    );
    expect(argv).toEqual(['./start.sh', '--port=30001', '2G', '-Dn=Lobby-1@Lobby:30001', 'xLobby-1Lobby-1x', '30001']);
  });

  test('values are not expanded again and unknown placeholders stay', () => {
    const argv = buildStartCommand(input({ serviceName: 'odd-{port}', startCommand: ['{name}', '{java}', '{Port}'] }));
    expect(argv).toEqual(['odd-{port}', '{java}', '{Port}']);
  });

  test('applies to every kind and skips all other checks', () => {
    for (const software of ['VELOCITY', 'CUSTOM', 'NEOFORGE'] as const) {
      const argv = buildStartCommand(input({ software, version: 'not-a-version', memory: 'huge', startCommand: ['run', '{group}'] }));
      expect(argv).toEqual(['run', 'Lobby']);
    }
  });

  test('an empty startCommand is ignored', () => {
    expect(buildStartCommand(input({ startCommand: [] }))[0]).toBe('/jdk21/java');
    expect(buildStartCommand(input({ startCommand: null }))[0]).toBe('/jdk21/java');
  });
});

describe('values that cannot make a command: SERVICE_START_FAILED', () => {
  test.each<[string, Partial<StartCommandInput>, string]>([
    ['CUSTOM without jarName', { software: 'CUSTOM' }, 'needs jarName'],
    ['CUSTOM with a blank jarName', { software: 'CUSTOM', jarName: '  ' }, 'needs jarName'],
    ['a bad memory size', { memory: '2GB' }, 'memory "2GB"'],
    ['a backend without a Minecraft version', { version: 'latest' }, 'version "latest"'],
    ['a jar outside the work directory', { jarName: '../other/server.jar' }, 'inside the service directory'],
    ['an absolute jar path', { jarName: '/srv/server.jar' }, 'inside the service directory'],
    ['an args file outside the work directory', { software: 'FORGE', version: '1.20.1', forgeArgsFile: '/etc/args.txt' }, 'inside the service directory'],
  ])('%s', (_, overrides, message) => {
    const error = catchApiError(() => buildStartCommand(input(overrides)));
    expect(error.errorCode).toBe('SERVICE_START_FAILED');
    expect(error.message).toContain(message);
  });

  test('Velocity ignores its version', () => {
    expect(buildStartCommand(input({ software: 'VELOCITY', version: 'latest' }))).toContain('-jar');
  });
});

describe('helpers re-exported with the builder', () => {
  test('parseMemory and memoryMaxMb', () => {
    expect(parseMemory('512M')).toBe(512);
    expect(parseMemory('2G')).toBe(2048);
    expect(parseMemory('2g')).toBe(2048);
    expect(memoryMaxMb('512M')).toBe(896);
    expect(memoryMaxMb('2G')).toBe(3072);
  });

  test('usesForgeArgsFile: Forge and NeoForge from 1.17, unknown version counts as modern', () => {
    const v = (text: string) => parseGameVersion(text);
    expect(usesForgeArgsFile('FORGE', v('1.17'))).toBe(true);
    expect(usesForgeArgsFile('FORGE', v('1.16.5'))).toBe(false);
    expect(usesForgeArgsFile('NEOFORGE', v('1.20.1'))).toBe(true);
    expect(usesForgeArgsFile('FORGE', null)).toBe(true);
    expect(usesForgeArgsFile('FABRIC', v('1.21'))).toBe(false);
    expect(usesForgeArgsFile('PAPER', null)).toBe(false);
  });
});
