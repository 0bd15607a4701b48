/**
 * The controller's stop order, as its declared list gives it (src/controller/parts.ts): the
 * contract the end-to-end suites hold (restart in place, self-update, faults). Recording stubs
 * stand for the kernel; only the stops run, so nothing here starts.
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
    updates: { stop: call('updates.stop') },
  };
  return {
    kernel,
    modules: { stop: () => (calls.push('modules.stop'), Promise.resolve()) },
    api: { close: (reason: string, keep: boolean) => (calls.push(`api.close(${reason}, keep runtime file: ${keep})`), Promise.resolve()) },
    checkpoints: { stop: call('checkpoints.stop') },
    software: {},
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
