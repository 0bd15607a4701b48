import type { Logger } from '../../log';
import { SOFTWARE, type SoftwareName } from '../software/kinds';
import type { ForwardingMode } from './forwarding-mode';
import { setProperties } from './properties-text';
import { RefusedEntry, TenantTree } from '../tenancy/fs';
import { SkipReport } from '../tenancy/fs/report';
import { FORWARDING_SECRET_FILE_NAME, patchVelocityToml, type ProxyServer } from './velocity-toml';
import { setYamlValues } from './yaml-block';

/**
 * The files svc rewrites in a freshly provisioned work dir so the server listens where the
 * controller expects and trusts the proxy. Each edit keeps the rest of the file; every write
 * replaces the file (temp + rename), so a file shared with a template is never written into.
 *
 * The work dir is the server's (see tenancy/fs), and proxies are patched while they run. A
 * file that is a link, a FIFO, a file with other hard links or larger than MAX_PATCHED_BYTES is
 * not read: it is reported and replaced by a fresh file built as if it were absent. A folder on
 * the way that is a link (`config -> /etc`) is refused: the patch throws, naming it, and nothing
 * is written.
 */

/** Largest file a patch reads: server configuration files are kilobytes. */
export const MAX_PATCHED_BYTES = 8 * 1024 * 1024;

/** One patch run over a work dir. */
interface Work {
  tree: TenantTree;
  report: SkipReport;
}

/** Runs `fn` over the work dir, opened as a tenant's tree; the skip report is logged at the end. */
function inWorkDir<T>(workDir: string, log: Logger | undefined, fn: (work: Work) => T): T {
  const tree = TenantTree.open(workDir, { create: true });
  if (!tree) throw new Error(`the work dir ${workDir} could not be created`);
  const report = new SkipReport('patch', workDir, log);
  try {
    return fn({ tree, report });
  } finally {
    tree.close();
    report.finish();
  }
}

/** Servers that read Paper's and Spigot's configuration files. */
const PAPER_FAMILY: ReadonlySet<SoftwareName> = new Set(['PAPER', 'PURPUR', 'FOLIA', 'PUFFERFISH', 'LEAF']);

export interface ServicePatchOptions {
  software: SoftwareName;
  /** Port the service listens on. */
  port: number;
  forwarding: ForwardingMode;
  /** The network's forwarding secret (see forwarding-secret.ts). */
  secret: string;
  /** Proxies only: the backends for `[servers]`. */
  servers?: readonly ProxyServer[];
  /** Proxies only: whether a load balancer in front sends the PROXY header (absent: no load balancer). */
  haproxyProtocol?: boolean;
  /** Where files that were not read are named (see tenancy/fs/report.ts). */
  log?: Logger;
}

/**
 * Everything a service needs before its first start. Backends: `eula.txt`,
 * `server.properties`, and for the Paper family the forwarding settings (modded and custom
 * servers forward through mods or their own configuration, which svc does not know).
 * Proxies: `velocity.toml` and `forwarding.secret`. Returns the files written, relative.
 */
export function applyServicePatches(workDir: string, options: ServicePatchOptions): string[] {
  return inWorkDir(workDir, options.log, (work) => {
    if (SOFTWARE[options.software].isProxy) {
      return proxyPatch(work, { port: options.port, forwarding: options.forwarding, servers: options.servers ?? [], secret: options.secret, haproxyProtocol: options.haproxyProtocol });
    }
    const written = [eula(work), serverProperties(work, { 'server-port': String(options.port), 'online-mode': 'false' })];
    if (PAPER_FAMILY.has(options.software)) written.push(...backendForwarding(work, options.forwarding, options.secret));
    return written.filter((file): file is string => file !== null);
  });
}

/** `eula=true`, keeping the file's comments. Backends only: the proxy has no EULA file. */
export function acceptEula(workDir: string, log?: Logger): string | null {
  return inWorkDir(workDir, log, eula);
}

/**
 * `server-port` and `online-mode=false` (the proxy authenticates players), every other line
 * kept; the server fills in the rest of a new file on first start.
 */
export function patchServerProperties(workDir: string, port: number, log?: Logger): string | null {
  return inWorkDir(workDir, log, (work) => serverProperties(work, { 'server-port': String(port), 'online-mode': 'false' }));
}

/** Sets keys of `server.properties` (created when absent), every other line kept. */
export function setServerProperties(workDir: string, values: Readonly<Record<string, string>>, log?: Logger): string | null {
  return inWorkDir(workDir, log, (work) => serverProperties(work, values));
}

/**
 * Modern: `config/paper-global.yml` `proxies.velocity` enabled, online-mode, secret.
 * Legacy: `spigot.yml` `settings.bungeecord: true`, and Velocity support switched off in an
 * existing paper-global.yml (with it on, Paper would reject the legacy handshake).
 */
export function patchBackendForwarding(workDir: string, forwarding: ForwardingMode, secret: string, log?: Logger): string[] {
  return inWorkDir(workDir, log, (work) => backendForwarding(work, forwarding, secret));
}

export interface ProxyPatch {
  port: number;
  forwarding: ForwardingMode;
  servers: readonly ProxyServer[];
  secret: string;
  haproxyProtocol?: boolean;
}

/** `velocity.toml` (created minimal if the templates had none) and `forwarding.secret` (mode 600). */
export function patchProxy(workDir: string, patch: ProxyPatch, log?: Logger): string[] {
  return inWorkDir(workDir, log, (work) => proxyPatch(work, patch));
}

function eula(work: Work): string | null {
  return editFile(work, 'eula.txt', (text) =>
    setProperties(text ?? '#By changing the setting below to TRUE you are indicating your agreement to our EULA (https://aka.ms/MinecraftEULA).\n', { eula: 'true' }),
  );
}

function serverProperties(work: Work, values: Readonly<Record<string, string>>): string | null {
  return editFile(work, 'server.properties', (text) => setProperties(text ?? '', values));
}

function backendForwarding(work: Work, forwarding: ForwardingMode, secret: string): string[] {
  const paperGlobal = 'config/paper-global.yml';
  if (forwarding === 'modern') {
    const file = editFile(work, paperGlobal, (text) => setYamlValues(text ?? '', ['proxies', 'velocity'], { enabled: true, 'online-mode': true, secret }));
    return file === null ? [] : [file];
  }
  const written = [editFile(work, 'spigot.yml', (text) => setYamlValues(text ?? '', ['settings'], { bungeecord: true }))];
  if (readText(work, paperGlobal).text !== null) {
    written.push(editFile(work, paperGlobal, (text) => setYamlValues(text ?? '', ['proxies', 'velocity'], { enabled: false })));
  }
  return written.filter((file): file is string => file !== null);
}

function proxyPatch(work: Work, patch: ProxyPatch): string[] {
  const written = [editFile(work, 'velocity.toml', (text) => patchVelocityToml(text, patch))];
  // Always written: a copy from a template may hold another secret or a looser mode.
  writeFile(work, FORWARDING_SECRET_FILE_NAME, patch.secret, 0o600);
  return [...written.filter((file): file is string => file !== null), FORWARDING_SECRET_FILE_NAME];
}

/**
 * Applies `edit` to a work-dir file (null when absent, or not read by the rule above);
 * writes only if the text changed, or if what was there was not read (it is replaced).
 */
function editFile(work: Work, rel: string, edit: (text: string | null) => string): string | null {
  const before = readText(work, rel);
  const after = edit(before.text);
  if (!before.refused && after === before.text) return null;
  writeFile(work, rel, after);
  return rel;
}

/** A work dir's file as text; null when absent or refused (reported, with the reason). */
function readText(work: Work, rel: string): { text: string | null; refused: boolean } {
  try {
    const bytes = work.tree.readSmall(rel, MAX_PATCHED_BYTES);
    return { text: bytes === null ? null : bytes.toString('utf8'), refused: false };
  } catch (error) {
    if (!(error instanceof RefusedEntry)) throw error;
    work.report.skip(error.rel, `${error.reason}: not read; the patch writes a fresh ${rel} in its place`);
    return { text: null, refused: true };
  }
}

function writeFile(work: Work, rel: string, text: string, mode?: number): void {
  try {
    work.tree.writeFile(rel, text, mode === undefined ? {} : { mode });
  } catch (error) {
    if (!(error instanceof RefusedEntry)) throw error;
    throw new Error(`cannot write ${rel} in ${work.tree.root}: ${error.message}; replace it with a real folder`, { cause: error });
  }
}
