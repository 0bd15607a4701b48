import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { normalizeUuid } from '../../core/players/uuid';
import { ApiError } from '../../errors';
import type { EventBus } from '../../events/bus';
import type { Actor } from '../../events/catalogue';
import type { Logger } from '../../log';
import { ASSIGNMENT_SCOPES, LIMITS, localPackPath, type AssignBody, type Assignment, type AssignmentScope, type CreatePackBody, type Pack, type ResolvedPack } from './model';
import { resolveStack } from './stack';
import type { PackStore } from './store';
import { receivePack } from './upload';

export interface PackServiceDeps {
  store: PackStore;
  bus: EventBus;
  log: Logger;
  /** data/resourcepacks: where LOCAL packs live as <pack_uuid>.zip. */
  dir: string;
  maxUploadBytes: () => number;
  /** The base LOCAL pack URLs are made absolute with, asked at every stack request. */
  baseUrl: () => string;
  now?: () => number;
}

/** Who registered a pack, as stored (at most 128 characters). */
const uploaderOf = (actor: Actor) => actor.slice(0, LIMITS.uploadedBy);

/** An absolute http(s) URL with a host, or RESOURCE_PACK_INVALID_URL. */
export function requirePackUrl(raw: string): string {
  const text = raw.trim();
  // The URL travels to backends and into console lines: no control characters (URL parsing would silently drop some).
  if (/[\x00-\x1f\x7f]/.test(text)) throw new ApiError('RESOURCE_PACK_INVALID_URL', 'url must not contain control characters (line breaks, tabs, NUL)');
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ApiError('RESOURCE_PACK_INVALID_URL', `url "${text.slice(0, 100)}" is not an absolute URL; give the full http:// or https:// address clients download the pack from`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') {
    throw new ApiError('RESOURCE_PACK_INVALID_URL', `url must be an http:// or https:// address with a host, got ${url.protocol}//…`);
  }
  return text;
}

export function parseScope(raw: string): AssignmentScope {
  const upper = raw.trim().toUpperCase();
  const scope = ASSIGNMENT_SCOPES.find((s) => s === upper);
  if (!scope) throw new ApiError('VALIDATION_FAILED', `scope must be one of ${ASSIGNMENT_SCOPES.join(', ')} (any case), got "${raw}"`);
  return scope;
}

/**
 * The pack registry: URL packs and uploaded (LOCAL) ones, where they are assigned, and the
 * stack a backend applies. Events go out once the change is stored.
 */
export class PackService {
  private readonly now: () => number;

  constructor(private readonly deps: PackServiceDeps) {
    this.now = deps.now ?? Date.now;
  }

  list(): Pack[] {
    return this.deps.store.packs();
  }

  packByUuid(packUuid: string): Pack | undefined {
    return this.deps.store.packByUuid(packUuid);
  }

  get(id: number): Pack {
    const pack = this.deps.store.pack(id);
    if (!pack) throw new ApiError('RESOURCE_PACK_NOT_FOUND', `no resource pack with id ${id}`);
    return pack;
  }

  /** Registers a pack hosted elsewhere; the hash is what clients check the download against. */
  createUrlPack(body: CreatePackBody, actor: Actor): Pack {
    const name = body.name.trim();
    if (name === '') throw new ApiError('VALIDATION_FAILED', 'name must not be blank');
    const pack = this.deps.store.insertPack({
      packUuid: crypto.randomUUID(),
      name,
      source: 'URL',
      url: requirePackUrl(body.url),
      sha1Hash: body.sha1Hash.toLowerCase(),
      promptMessage: body.promptMessage ?? '',
      force: body.force ?? false,
      fileSize: 0,
      uploadedAt: this.now(),
      uploadedBy: uploaderOf(actor),
    });
    this.deps.bus.publish('RESOURCE_PACK_CREATED', { id: String(pack.id), name: pack.name, source: pack.source }, actor);
    return pack;
  }

  /** Stores the request body as a LOCAL pack (streamed, hashed, checked to be a zip), then registers it. */
  async upload(request: Request, meta: { name: string; force?: boolean; prompt?: string }, actor: Actor): Promise<Pack> {
    const name = meta.name.trim();
    if (name === '') throw new ApiError('VALIDATION_FAILED', 'query "name" must not be blank');
    if (/[\r\n]/.test(name) || /[\r\n]/.test(meta.prompt ?? '')) throw new ApiError('VALIDATION_FAILED', 'name and prompt must be one line each');
    const packUuid = crypto.randomUUID();
    const received = await receivePack(request, this.deps.dir, packUuid, this.deps.maxUploadBytes());
    let pack: Pack;
    try {
      pack = this.deps.store.insertPack({
        packUuid,
        name,
        source: 'LOCAL',
        url: localPackPath(packUuid),
        sha1Hash: received.sha1,
        promptMessage: meta.prompt ?? '',
        force: meta.force ?? false,
        fileSize: received.size,
        uploadedAt: this.now(),
        uploadedBy: uploaderOf(actor),
      });
    } catch (error) {
      await rm(received.file, { force: true });
      throw error;
    }
    this.deps.bus.publish('RESOURCE_PACK_CREATED', { id: String(pack.id), name: pack.name, source: pack.source }, actor);
    return pack;
  }

  /** Deletes the pack, its assignments (each announced as unassigned) and, for a LOCAL pack, its file. */
  async delete(id: number, actor: Actor): Promise<Pack> {
    const pack = this.get(id);
    const assignments = this.deps.store.deletePack(id);
    if (pack.source === 'LOCAL') {
      // Best effort: the pack is gone either way; a file left behind is an orphan the doctor reports.
      await rm(this.fileOf(pack.packUuid), { force: true }).catch((error: unknown) => this.deps.log.warn({ err: error, pack: pack.packUuid }, 'could not remove the file of a deleted resource pack'));
    }
    for (const a of assignments) this.publishAssignment('RESOURCE_PACK_UNASSIGNED', a, actor);
    this.deps.bus.publish('RESOURCE_PACK_DELETED', { id: String(pack.id), name: pack.name }, actor);
    return pack;
  }

  assignments(packId?: number): Assignment[] {
    return this.deps.store.assignments(packId);
  }

  assign(packId: number, body: AssignBody, actor: Actor): Assignment {
    const scope = parseScope(body.scope);
    const target = scope === 'GLOBAL' ? '' : (body.target ?? '').trim();
    if (scope !== 'GLOBAL' && target === '') throw new ApiError('VALIDATION_FAILED', `target is required for a ${scope} assignment: the ${scope.toLowerCase()} name`);
    const pack = this.get(packId);
    const created = this.deps.store.insertAssignment({ packId: pack.id, scope, target, priority: body.priority ?? 0 });
    if (!created) {
      const where = scope === 'GLOBAL' ? 'globally' : `to ${scope.toLowerCase()} "${target}"`;
      throw new ApiError('RESOURCE_PACK_ALREADY_EXISTS', `pack ${pack.id} ("${pack.name}") is already assigned ${where}; remove that assignment to change its priority`);
    }
    this.publishAssignment('RESOURCE_PACK_ASSIGNED', created, actor);
    return created;
  }

  unassign(id: number, actor: Actor): Assignment {
    const removed = this.deps.store.deleteAssignment(id);
    if (!removed) throw new ApiError('RESOURCE_PACK_ASSIGNMENT_NOT_FOUND', `no resource pack assignment with id ${id}`);
    this.publishAssignment('RESOURCE_PACK_UNASSIGNED', removed, actor);
    return removed;
  }

  stack(group: string, service: string | undefined): ResolvedPack[] {
    return resolveStack(this.deps.store.applying(group, service), this.deps.baseUrl());
  }

  /** A backend's report of what a player's client did with a pack. */
  status(playerUuid: string, packUuid: string, status: string, actor: Actor): void {
    const player = normalizeUuid(playerUuid);
    if (player === undefined) throw new ApiError('VALIDATION_FAILED', `playerUuid "${playerUuid}" is not a uuid`);
    const pack = normalizeUuid(packUuid);
    if (pack === undefined) throw new ApiError('VALIDATION_FAILED', `packUuid "${packUuid}" is not a uuid (the zero uuid when the client named none)`);
    this.deps.bus.publish('RESOURCE_PACK_STATUS', { player, pack, status: status.toUpperCase() }, actor);
  }

  fileOf(packUuid: string): string {
    return join(this.deps.dir, `${packUuid}.zip`);
  }

  private publishAssignment(type: 'RESOURCE_PACK_ASSIGNED' | 'RESOURCE_PACK_UNASSIGNED', a: Assignment, actor: Actor): void {
    this.deps.bus.publish(type, { packId: String(a.packId), scope: a.scope, target: a.target }, actor);
  }
}
