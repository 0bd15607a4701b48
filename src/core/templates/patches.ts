import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../../config/write';
import { SOFTWARE, type SoftwareName } from '../software/kinds';
import type { ForwardingMode } from './forwarding-mode';
import { setProperties } from './properties-text';
import { FORWARDING_SECRET_FILE_NAME, patchVelocityToml, type ProxyServer } from './velocity-toml';
import { setYamlValues } from './yaml-block';

/**
 * The files svc rewrites in a freshly provisioned work dir so the server listens where the
 * controller expects and trusts the proxy. Each edit keeps the rest of the file; every write
 * replaces the file (temp + rename), so a file shared with a template is never written into.
 */

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
}

/**
 * Everything a service needs before its first start. Backends: `eula.txt`,
 * `server.properties`, and for the Paper family the forwarding settings (modded and custom
 * servers forward through mods or their own configuration, which svc does not know).
 * Proxies: `velocity.toml` and `forwarding.secret`. Returns the files written, relative.
 */
export function applyServicePatches(workDir: string, options: ServicePatchOptions): string[] {
  if (SOFTWARE[options.software].isProxy) {
    return patchProxy(workDir, { port: options.port, forwarding: options.forwarding, servers: options.servers ?? [], secret: options.secret, haproxyProtocol: options.haproxyProtocol });
  }
  const written = [acceptEula(workDir), patchServerProperties(workDir, options.port)];
  if (PAPER_FAMILY.has(options.software)) written.push(...patchBackendForwarding(workDir, options.forwarding, options.secret));
  return written.filter((file): file is string => file !== null);
}

/** `eula=true`, keeping the file's comments. Backends only: the proxy has no EULA file. */
export function acceptEula(workDir: string): string | null {
  return editFile(workDir, 'eula.txt', (text) =>
    setProperties(text ?? '#By changing the setting below to TRUE you are indicating your agreement to our EULA (https://aka.ms/MinecraftEULA).\n', { eula: 'true' }),
  );
}

/**
 * `server-port` and `online-mode=false` (the proxy authenticates players), every other line
 * kept; the server fills in the rest of a new file on first start.
 */
export function patchServerProperties(workDir: string, port: number): string | null {
  return editFile(workDir, 'server.properties', (text) => setProperties(text ?? '', { 'server-port': String(port), 'online-mode': 'false' }));
}

/**
 * Modern: `config/paper-global.yml` `proxies.velocity` enabled, online-mode, secret.
 * Legacy: `spigot.yml` `settings.bungeecord: true`, and Velocity support switched off in an
 * existing paper-global.yml (with it on, Paper would reject the legacy handshake).
 */
export function patchBackendForwarding(workDir: string, forwarding: ForwardingMode, secret: string): string[] {
  const paperGlobal = join('config', 'paper-global.yml');
  if (forwarding === 'modern') {
    const file = editFile(workDir, paperGlobal, (text) => setYamlValues(text ?? '', ['proxies', 'velocity'], { enabled: true, 'online-mode': true, secret }));
    return file === null ? [] : [file];
  }
  const written = [editFile(workDir, 'spigot.yml', (text) => setYamlValues(text ?? '', ['settings'], { bungeecord: true }))];
  if (readText(join(workDir, paperGlobal)) !== null) {
    written.push(editFile(workDir, paperGlobal, (text) => setYamlValues(text ?? '', ['proxies', 'velocity'], { enabled: false })));
  }
  return written.filter((file): file is string => file !== null);
}

export interface ProxyPatch {
  port: number;
  forwarding: ForwardingMode;
  servers: readonly ProxyServer[];
  secret: string;
  haproxyProtocol?: boolean;
}

/** `velocity.toml` (created minimal if the templates had none) and `forwarding.secret` (mode 600). */
export function patchProxy(workDir: string, patch: ProxyPatch): string[] {
  const written = [editFile(workDir, 'velocity.toml', (text) => patchVelocityToml(text, patch))];
  // Always written: a copy from a template may hold another secret or a looser mode.
  writeFileAtomic(join(workDir, FORWARDING_SECRET_FILE_NAME), patch.secret, { mode: 0o600, durable: false });
  return [...written.filter((file): file is string => file !== null), FORWARDING_SECRET_FILE_NAME];
}

/** Applies `edit` to a work-dir file (null when absent); writes only if the text changed. */
function editFile(workDir: string, rel: string, edit: (text: string | null) => string): string | null {
  const path = join(workDir, rel);
  const before = readText(path);
  const after = edit(before);
  if (after === before) return null;
  writeFileAtomic(path, after, { durable: false }); // a work dir lives for this boot only
  return rel;
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}
