import type { Kernel } from '../../../kernel';
import type { Upstreams } from '../../software/upstream/upstreams';
import { ProxyUpdates, type ProxyUpdatesDeps } from './updater';

export { ProxyUpdates, type ProxyUpdateOutcome, type ProxyUpdateResult, type ProxyUpdatesDeps } from './updater';

/**
 * Builds the proxy updater from the kernel and starts its background checks (`[proxy]`);
 * returns at once: the first check runs later, off the start path. The caller keeps the
 * handle to stop it (`kernel.proxyUpdates`) and for `proxy update`.
 */
export function startProxyUpdates(kernel: Kernel, upstreams: Upstreams, timing?: ProxyUpdatesDeps['timing']): ProxyUpdates {
  const updates = new ProxyUpdates({
    config: () => kernel.config.proxy,
    upstreams,
    stores: { groups: kernel.groups, dedicated: kernel.dedicated },
    templatesRoot: kernel.paths.templates,
    bus: kernel.bus,
    log: kernel.log.child({ area: 'proxy-updates' }),
    downloadTimeoutSeconds: () => kernel.config.software.download_timeout,
    timing,
  });
  updates.start();
  return updates;
}
