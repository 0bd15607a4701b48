/**
 * What the proxy shows: the server-list MOTD, the tab list and the network chat format, each
 * read and saved through its own route (GET/PUT /api/proxy/motd|tablist|chat). A PUT answers
 * the whole setting, which replaces the query's; the *_UPDATED events read it again.
 */
import { useQuery, useQueryClient } from '@tanstack/preact-query';
import { useLiveRefresh } from '../../live-refresh';
import { FieldsForm, type FieldSpec } from './fields-form';
import { LoadFailure } from './outcome';
import { getProxy, proxyKey, putProxy } from './requests';

type Part = 'motd' | 'tablist' | 'chat';

const PARTS: { part: Part; title: string; event: string; fields: FieldSpec[] }[] = [
  {
    part: 'motd',
    title: 'MOTD',
    event: 'MOTD_UPDATED',
    fields: [
      { key: 'line1', label: 'MOTD line 1', kind: 'text', maxLength: 1024 },
      { key: 'line2', label: 'MOTD line 2', kind: 'text', maxLength: 1024, hint: 'MiniMessage; {online} and {max} are replaced.' },
      { key: 'maxPlayers', label: 'Slots shown', kind: 'int', min: -1, max: 1_000_000, hint: '-1 shows the real maximum.' },
      { key: 'playerCountOffset', label: 'Player count offset', kind: 'int', min: -1_000_000, max: 1_000_000, hint: 'Added to the online count shown.' },
    ],
  },
  {
    part: 'tablist',
    title: 'Tab list',
    event: 'TABLIST_UPDATED',
    fields: [
      { key: 'header', label: 'Header', kind: 'textarea', maxLength: 4096 },
      { key: 'footer', label: 'Footer', kind: 'textarea', maxLength: 4096 },
      { key: 'playerFormat', label: 'Player format', kind: 'text', maxLength: 256, hint: '{prefix}, {player}, {suffix}, {server}, {group}.' },
      { key: 'updateInterval', label: 'Refresh every (seconds)', kind: 'int', min: 1, max: 3600 },
    ],
  },
  {
    part: 'chat',
    title: 'Chat',
    event: 'CHAT_FORMAT_UPDATED',
    fields: [
      { key: 'format', label: 'Chat format', kind: 'text', maxLength: 1024, hint: '{prefix}, {player}, {suffix}, {message}.' },
      { key: 'enabled', label: 'The proxy formats chat', kind: 'bool' },
    ],
  },
];

export function ProxySection() {
  return (
    <section class="op-card" aria-labelledby="st-proxy">
      <h2 id="st-proxy">Proxy</h2>
      <p class="op-muted">Sent to every proxy at once; texts are MiniMessage.</p>
      <div class="st-proxy-grid">
        {PARTS.map((p) => (
          <ProxyPart key={p.part} {...p} />
        ))}
      </div>
    </section>
  );
}

function ProxyPart({ part, title, event, fields }: (typeof PARTS)[number]) {
  const queries = useQueryClient();
  const key = proxyKey(part);
  const setting = useQuery({ queryKey: key, queryFn: () => getProxy<Record<string, unknown>>(part) });
  useLiveRefresh([key], (type) => type === event);
  if (setting.isPending) return <p>Loading…</p>;
  if (setting.isError) return <LoadFailure error={setting.error} />;
  const save = async (body: Record<string, unknown>) => {
    const { success: _ok, message, ...value } = await putProxy<Record<string, unknown>>(part, body);
    queries.setQueryData(key, value);
    return `Saved: ${message}.`;
  };
  return <FieldsForm title={title} fields={fields} values={setting.data} save={save} />;
}
