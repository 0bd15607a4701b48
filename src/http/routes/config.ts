import { t } from '../t';
import { ApiError } from '../../errors';
import type { Kernel } from '../../kernel';
import { svcToml } from '../../config/load';
import type { TomlUpdate } from '../../config/patch';
import { SECRET_KEYS, type Config } from '../../config/schema';
import { FileWriteError } from '../../config/write';
import { defineRoute, type AnyRoute } from '../route';
import { cachedJson } from '../cached-json';

const ConfigView = t.Object({
  networkName: t.String(),
  consoleColored: t.Boolean(),
  consoleLogEvents: t.Boolean(),
  hasToken: t.Boolean(),
  jwtEnabled: t.Boolean(),
  configFile: t.String(),
  sections: t.Record(t.String(), t.Record(t.String(), t.Unknown()), {
    description: 'every svc.toml section; secrets are replaced by has_<key> booleans',
  }),
});

const ConfigPatch = t.Object({
  networkName: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
  consoleColored: t.Optional(t.Boolean()),
  consoleLogEvents: t.Optional(t.Boolean()),
});

/** The live-changeable fields and where they live in svc.toml. */
const PATCHABLE = {
  networkName: ['network', 'name'],
  consoleColored: ['console', 'colored'],
  consoleLogEvents: ['console', 'log_events'],
} as const;

type ConfigViewValue = ReturnType<typeof buildConfigView>;
const views = new WeakMap<Kernel, ConfigViewValue>();

/** The GET /api/config body; rebuilt only after the live config changes (a PATCH, or a reload: CONFIG_RELOADED). */
export function configView(kernel: Kernel): ConfigViewValue {
  let view = views.get(kernel);
  if (!view) {
    view = buildConfigView(kernel);
    views.set(kernel, view);
  }
  return view;
}

function buildConfigView(kernel: Kernel) {
  const { config } = kernel;
  return {
    networkName: config.network.name,
    consoleColored: config.console.colored,
    consoleLogEvents: config.console.log_events,
    hasToken: config.api.token.length > 0,
    jwtEnabled: config.api.jwt_enabled,
    configFile: kernel.configPath,
    sections: withoutSecrets(config),
  };
}

function withoutSecrets(config: Config): Record<string, Record<string, unknown>> {
  const out = structuredClone(config) as unknown as Record<string, Record<string, unknown>>;
  for (const [section, key] of SECRET_KEYS) {
    const value = out[section]![key];
    delete out[section]![key];
    out[section]![`has_${key}`] = typeof value === 'string' && value.length > 0;
  }
  return out;
}

/** Text a TOML file and a terminal can hold as is. */
const printable = (text: string): boolean => text.isWellFormed() && !/[\u0000-\u001f\u007f]/.test(text);

export function configRoutes(kernel: Kernel): AnyRoute[] {
  // The view changes only with the configuration: checked and serialised once per view. A
  // reload (POST /api/reload, the console's reload) may apply live keys: the view is built again.
  const answerView = cachedJson(ConfigView);
  kernel.bus.subscribe((event) => {
    if (event.type === 'CONFIG_RELOADED') views.delete(kernel);
  });
  return [
    defineRoute({
      method: 'GET',
      path: '/api/config',
      auth: 'admin',
      permission: 'svc.dashboard.admin',
      scopes: ['config:read'],
      tag: 'config',
      summary: 'The running configuration without secrets',
      response: { 200: ConfigView },
      handler: () => answerView(configView(kernel)),
    }),
    defineRoute({
      method: 'PATCH',
      path: '/api/config',
      auth: 'admin',
      permission: 'svc.dashboard.admin',
      scopes: ['config:write'],
      tag: 'config',
      summary: 'Change networkName, consoleColored or consoleLogEvents live; svc.toml is rewritten atomically',
      body: ConfigPatch,
      response: { 200: t.Object({ success: t.Literal(true), message: t.String(), updated: t.Array(t.String()), config: ConfigView }) },
      handler: ({ body, actor }) => {
        const updates: (TomlUpdate & { field: string })[] = [];
        for (const [field, [section, key]] of Object.entries(PATCHABLE)) {
          const value = body[field as keyof typeof body];
          if (value !== undefined) updates.push({ field, section, key, value });
        }
        if (body.networkName !== undefined && !printable(body.networkName)) {
          throw new ApiError('VALIDATION_FAILED', 'body "networkName" must be printable text: no control characters or unpaired surrogates');
        }
        if (updates.length === 0) {
          throw new ApiError(
            'NO_FIELDS_TO_UPDATE',
            'nothing to update: PATCH /api/config changes networkName, consoleColored and consoleLogEvents; other keys need an edit of svc.toml and a restart',
          );
        }
        try {
          // Only the keys named change; every comment and other byte of the file stays.
          svcToml.patch(kernel.configPath, updates);
        } catch (error) {
          // A failed write (a full disk, a read-only folder) is answered like every other write.
          if (error instanceof FileWriteError) throw error;
          kernel.log.error({ err: error, file: kernel.configPath }, 'svc.toml could not be patched in place');
          throw new ApiError('INTERNAL_ERROR', 'svc.toml could not be patched in place; the controller log says why. Edit the file by hand');
        }
        const live = kernel.config as unknown as Record<string, Record<string, unknown>>;
        for (const u of updates) live[u.section]![u.key] = u.value;
        views.delete(kernel);
        const updated = updates.map((u) => u.field);
        kernel.audit.record({ actor, action: 'CONFIG_UPDATED', target: 'svc.toml', details: updates.map((u) => `${u.field}=${u.value}`).join(', ') });
        return { success: true as const, message: `updated ${updated.join(', ')}`, updated, config: configView(kernel) };
      },
    }),
  ];
}
