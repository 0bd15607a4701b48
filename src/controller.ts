import type { Actor } from './events/catalogue';
import type { Kernel } from './kernel';
import type { Logger } from './log';
import type { AnyRoute, SocketSpec } from './http/route';
import type { SoftwareServices } from './core/software/software-services';
import { Lifecycle, type Part } from './core/lifecycle/parts';
import { Heartbeat, SPEC_HEARTBEAT } from './ws/heartbeat';
import { ControllerApi } from './controller/api';
import { buildController } from './controller/build';
import { controllerParts, type StopHow } from './controller/parts';
import type { ControllerOptions } from './controller/options';

export type { ControllerOptions } from './controller/options';

const SHUTDOWN_DELAY_MS = 250;

/**
 * The composition root. buildController (controller/build.ts) makes the kernel: config → log
 * → db → bus/audit → auth → services, cluster, scaling. Its lifecycle (controller/parts.ts),
 * one ordered list, then starts modules → timers → services re-attached → API → load balancer
 * → boot, and stops backward; stop is idempotent.
 */
export class Controller {
  private readonly lifecycle: Lifecycle<StopHow>;

  private constructor(
    readonly kernel: Kernel,
    /** Upstream version lists, server jars and plugins (their routes, and tests). */
    readonly software: SoftwareServices,
    private readonly api: ControllerApi,
    /** The API sockets' heartbeat (the API part stops it); tests reach it to watch a socket's signs of life. */
    private readonly heartbeat: Heartbeat,
    private readonly options: ControllerOptions,
    parts: readonly Part<StopHow>[],
  ) {
    this.lifecycle = new Lifecycle(parts, (part, error) => kernel.log.error({ err: error, part }, `stopping ${part} failed`));
  }

  /** Reads config, opens storage and starts serving. Throws ConfigError for operator mistakes. */
  static async start(options: ControllerOptions): Promise<Controller> {
    let controller: Controller | undefined;
    const built = await buildController(options, {
      port: () => controller?.port,
      url: () => controller?.url,
      restartInPlace: (reason) => controller?.restartInPlace(reason),
      requestShutdown: (reason, actor) => controller?.requestShutdown(reason, actor),
    });
    const heartbeat = new Heartbeat(options.heartbeat ?? SPEC_HEARTBEAT);
    const api = new ControllerApi(built.kernel, built.software, built.modules, heartbeat);
    const parts = controllerParts({ ...built, api, restartedInPlace: options.restartedInPlace, stopped: () => controller?.lifecycle.stopped ?? false });
    controller = new Controller(built.kernel, built.software, api, heartbeat, options, parts);
    await controller.lifecycle.start({ reason: 'start failed', keepServices: false });
    return controller;
  }

  /** The bound API address, e.g. http://127.0.0.1:8080. */
  get url(): string {
    return this.api.url;
  }

  get port(): number {
    return this.api.port;
  }

  /** Remote consoles (/api/console/stream) that said hello and are still connected. */
  get consoleSessions(): number {
    return this.api.consoleSessions;
  }

  /** Sockets subscribed to /api/events right now. */
  get eventSubscribers(): number {
    return this.api.eventSubscribers;
  }

  /** Every HTTP route this controller serves, core and modules. */
  get routes(): AnyRoute[] {
    return this.api.routes;
  }

  get sockets(): SocketSpec[] {
    return this.api.sockets;
  }

  /** Every way to ask for a shutdown (route, console command) is audited here, once. */
  private requestShutdown(reason: string, actor: Actor): void {
    try {
      this.kernel.audit.record({ actor, action: 'SHUTDOWN_REQUESTED', target: 'controller' });
    } catch (error) {
      // A full disk must not keep the controller from stopping (a stop is how one gets out of it).
      this.kernel.log.error({ err: error, actor }, 'the shutdown goes ahead without its audit entry');
    }
    this.kernel.log.warn({ actor }, `shutdown: ${reason}`);
    if (this.options.onShutdownRequest) return this.options.onShutdownRequest(reason);
    setTimeout(() => {
      void this.stop(reason).then(() => (this.options.exit ?? process.exit)(0));
    }, SHUTDOWN_DELAY_MS);
  }

  /** Stops the services, the API, the modules, then closes the database. Safe to call more than once. */
  stop(reason: string): Promise<void> {
    return this.lifecycle.stop({ reason, keepServices: false });
  }

  /**
   * After a self-update: stops like `stop` but leaves every service running, then hands over
   * to the new binary, which re-attaches them as after a crash.
   */
  restartInPlace(reason: string): void {
    if (this.lifecycle.stopped) return;
    const running = this.kernel.services.all().filter((s) => s.pid !== null).length;
    this.kernel.log.warn({ reason, services: running }, `restarting in place (${reason}): the ${running} running service(s) keep running and are re-attached`);
    void this.lifecycle.stop({ reason, keepServices: true }).then(() => (this.options.restartInPlace ?? (() => (this.options.exit ?? process.exit)(75)))(reason));
  }
}

export type { Logger };
