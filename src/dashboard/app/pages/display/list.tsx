/**
 * Every group's display (GET /api/displays), one card each: its sign and NPC name with the
 * colour codes drawn and the placeholders as written (the editor's preview fills them), its
 * floating item, picker size and number of state labels, and the link that opens it in the
 * editor below (an address of its own: ?group=<name>, so a reload or the back button keeps it).
 */
import type { UseQueryResult } from '@tanstack/preact-query';
import { Link } from 'wouter-preact';
import { refusalWords } from './access';
import { displayHref, type DisplayList } from './model';
import { McLine, SignBoard } from './render';

export function Displays({ list, selected }: { list: UseQueryResult<DisplayList>; selected: string | null }) {
  return (
    <section class="dp-card" aria-labelledby="dp-list-title">
      <h2 id="dp-list-title">Groups</h2>
      {list.isPending && <p class="dp-muted">Loading…</p>}
      {list.isError && (
        <p role="alert" class="dp-error">
          {refusalWords(list.error, 'The displays could not be read')}
        </p>
      )}
      {list.data && list.data.displays.length === 0 && (
        <p class="dp-muted">
          No display yet: every group that is not a proxy group gets one when it is created (on the Groups page), with the defaults. Proxy groups have none.
        </p>
      )}
      {list.data && list.data.displays.length > 0 && (
        <>
          <p class="dp-muted">
            {list.data.total === 1 ? 'One group has a display' : `${list.data.total} groups have a display`} (proxy groups have none). The lines show their colours, with the placeholders as written; open one to
            edit it and see it filled in.
          </p>
          <ul class="dp-groups">
            {list.data.displays.map((d) => {
              const current = selected !== null && d.name.toLowerCase() === selected.toLowerCase();
              const titleId = `dp-group-${d.name}`;
              return (
                <li key={d.name} class={current ? 'dp-group dp-group-current' : 'dp-group'} aria-labelledby={titleId} data-group={d.name}>
                  <h3 id={titleId}>{d.name}</h3>
                  <SignBoard lines={[d.sign.line1, d.sign.line2, d.sign.line3, d.sign.line4Online]} label={`Sign of ${d.name}`} />
                  <dl class="dp-facts">
                    <div>
                      <dt>NPC</dt>
                      <dd class="dp-mc-inline">
                        <McLine text={d.npc.displayName.split('||')[0] ?? ''} />
                      </dd>
                    </div>
                    <div>
                      <dt>Floating item</dt>
                      <dd>
                        <code>{d.npc.floatingItem}</code>
                      </dd>
                    </div>
                    <div>
                      <dt>Server picker</dt>
                      <dd>{d.npc.inventory.size} slots</dd>
                    </div>
                    <div>
                      <dt>State labels</dt>
                      <dd>{Object.keys(d.states).length}</dd>
                    </div>
                  </dl>
                  <Link href={displayHref(d.name)} class="dp-open" aria-current={current ? 'true' : undefined}>
                    {current ? 'Editing' : 'Edit'}
                    <span class="dp-hidden"> the display of {d.name}</span>
                  </Link>
                </li>
              );
            })}
          </ul>
        </>
      )}
    </section>
  );
}
