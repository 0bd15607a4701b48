/**
 * The controller's start and stop order, as its declared list gives it
 * (src/controller/parts.ts): the contract the end-to-end suites hold (restart in place,
 * self-update, faults). Recording stubs stand for the kernel, so nothing real starts.
 */
import { describe, expect, test } from 'bun:test';
import { Lifecycle } from '../../src/core/lifecycle/parts';
import { controllerParts, type PartsDeps, type StopHow } from '../../src/controller/parts';

function recordingDeps(calls: string[]): PartsDeps {
  const call = (name: string) => (...args: unknown[]) => {
    calls.push(args.length > 0 ? `${name}(${args.map((a) => (typeof a === 'object' ? 'kernel' : String(a))).join(', ')})` : name);
  };
  const kernel = {
    config: { api: { enabled: true }, loadbalancer: { enabled: true }, audit: { retention_days: 1 }, metrics: { retention_days: 1 } },
    log: { info: (_fields: unknown, message: string) => calls.push(`log: ${message}`), flush: call('log.flush'), error: call('log.error'), warn: call('log.warn') },
    db: { close: call('db.close') },
    manager: { stopAll: (reason: string) => (calls.push(`manager.stopAll(${reason})`), Promise.resolve()) },
    cluster: { stop: call('cluster.stop') },
    modpacks: { stop: () => (calls.push('modpacks.stop'), Promise.resolve()) },
    stress: { close: call('stress.close') },
    proxyUpdates: { stop: call('proxyUpdates.stop') },
    loadBalancer: { stop: call('loadBalancer.stop') },
    scaling: { stop: call('scaling.stop') },
    warmPool: { stop: call('warmPool.stop') },
    updates: { stop: call('updates.stop'), announceApplied: call('updates.announceApplied') },
    // What the starts use.
    audit: { prune: () => (calls.push('audit.prune'), Promise.resolve(0)) },
    history: { sample: call('history.sample'), prune: () => (calls.push('history.prune'), Promise.resolve(0)) },
    dashboardMetrics: { sample: call('dashboardMetrics.sample'), prune: () => (calls.push('dashboardMetrics.prune'), Promise.resolve(0)) },
    bus: { subscribe: () => (calls.push('bus.subscribe (proxy sync)'), () => undefined) },
    services: { all: () => [] },
    groups: {},
    paths: { data: '/nowhere' },
    isolation: { uid: null, bwrap: false },
    version: 'test',
    dir: '/nowhere',
  };
  Object.assign(kernel.config, { proxy: { update_check: false }, software: { download_timeout: 1 } });
  Object.assign(kernel.log, { child: () => kernel.log });
  Object.assign(kernel.manager, {
    recover: () => (calls.push('manager.recover'), Promise.resolve()),
    bootGroups: () => (calls.push('manager.bootGroups'), Promise.resolve()),
  });
  Object.assign(kernel.modpacks, { start: call('modpacks.start') });
  return {
    kernel,
    modules: {
      start: () => (calls.push('modules.start'), Promise.resolve()),
      ready: () => (calls.push('modules.ready'), Promise.resolve()),
      stop: () => (calls.push('modules.stop'), Promise.resolve()),
      list: () => [],
    },
    api: {
      listen: call('api.listen'),
      listening: true,
      url: 'http://127.0.0.1:1',
      close: (reason: string, keep: boolean) => (calls.push(`api.close(${reason}, keep runtime file: ${keep})`), Promise.resolve()),
    },
    checkpoints: { stop: call('checkpoints.stop') },
    software: { upstreams: {} },
    restartedInPlace: undefined,
    stopped: () => true,
  } as unknown as PartsDeps;
}

async function stopOrder(how: StopHow): Promise<string[]> {
  const calls: string[] = [];
  const lifecycle = new Lifecycle(controllerParts(recordingDeps(calls)), (part, error) => calls.push(`failed ${part}: ${String(error)}`));
  await lifecycle.stop(how);
  return calls;
}

describe("the controller's start order", () => {
  test('modules, the timers, modpacks, proxy sync, services re-attached, proxy updates, modules ready, the API, the banner, the boot', async () => {
    const calls: string[] = [];
    const deps = recordingDeps(calls);
    (deps.kernel.config.loadbalancer as { enabled: boolean }).enabled = false;
    await new Lifecycle(controllerParts(deps), () => undefined).start({ reason: 'start failed', keepServices: false });
    expect(calls.filter((c) => !c.startsWith('log'))).toEqual([
      'modules.start',
      'audit.prune',
      'history.prune',
      'dashboardMetrics.prune',
      'modpacks.start',
      'bus.subscribe (proxy sync)',
      'manager.recover',
      'modules.ready',
      'api.listen',
      'updates.announceApplied',
      'manager.bootGroups',
    ]);
    expect(calls.some((c) => c.startsWith('log: svc test started'))).toBe(true);
    // The proxy-update checker is made and kept on the kernel (its first check is a minute off).
    expect(deps.kernel.proxyUpdates?.constructor.name).toBe('ProxyUpdates');
  });
});

describe("the controller's stop order", () => {
  test('a stop: nothing can start a service, the balancer closes, services stop while the API answers, then the API, the modules, the database', async () => {
    expect(await stopOrder({ reason: 'signal SIGTERM', keepServices: false })).toEqual([
      'scaling.stop',
      'warmPool.stop',
      'updates.stop',
      'loadBalancer.stop(signal SIGTERM)',
      'proxyUpdates.stop',
      'manager.stopAll(signal SIGTERM)',
      'stress.close',
      'modpacks.stop',
      'cluster.stop',
      'api.close(signal SIGTERM, keep runtime file: false)',
      'modules.stop',
      'checkpoints.stop',
      'db.close',
      'log: controller stopped',
      'log.flush',
    ]);
  });

  test('a restart in place stops no service and keeps the runtime file for the next process', async () => {
    const calls = await stopOrder({ reason: 'update', keepServices: true });
    expect(calls.some((c) => c.startsWith('manager.stopAll'))).toBe(false);
    expect(calls).toContain('api.close(update, keep runtime file: true)');
    expect(calls.at(-2)).toBe('log: controller stopped for a restart in place; every service left running');
  });
});
