import { VERSION } from '../../version';

/** Modrinth asks API clients for a User-Agent that identifies them; every pack request sends this one. */
export const USER_AGENT = `svc/${VERSION} (self-hosted Minecraft network controller; modpack import)`;
