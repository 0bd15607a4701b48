/**
 * The check/debug box: may this player do this, here, and why. The answer is the check route's
 * (what plugins get); the reason and the rows behind it are the debug route's, in its words:
 * every row of the player's counting groups that answers the node (exact, wildcard, negated,
 * inherited through a parent, or context-filtered where its server, world or time does not
 * apply), with the one that decided. Asked again whenever permissions change.
 */
import { useState } from 'preact/hooks';
import { useQuery } from '@tanstack/preact-query';
import { Link } from 'wouter-preact';
import { ExpiryText, Field, inputText, ReadFailure, type Access } from './common';
import { groupHref, playerHref } from './links';
import { check, debug, getPlayer, KEYS, searchPlayers, type ChainStep, type ChainType, type Where } from './requests';
import { askedProblem, normalizeUuid, scopeNameProblem, SEARCH_MAX } from './rules';

interface Question {
  uuid: string;
  permission: string;
  where: Where;
}

const TYPE_WORDS: Record<ChainType, string> = {
  exact: 'exact match',
  wildcard: 'wildcard match',
  negated: 'negation',
  inherited: 'inherited from a parent',
  'context-filtered': 'does not apply here',
};

export function CheckView({ preset, access }: { preset: string | null; access: Access }) {
  const [who, setWho] = useState(preset ?? access.me?.uuid ?? '');
  const [permission, setPermission] = useState('');
  const [server, setServer] = useState('');
  const [world, setWorld] = useState('');
  const [problems, setProblems] = useState<Record<string, string>>({});
  const [finding, setFinding] = useState(false);
  const [question, setQuestion] = useState<Question | null>(null);

  const submit = async (event: Event) => {
    event.preventDefault();
    const found: Record<string, string> = {};
    const why = askedProblem(permission.trim());
    if (why) found.permission = why;
    const s = scopeNameProblem('server', server);
    const w = scopeNameProblem('world', world);
    if (s) found.server = s;
    if (w) found.world = w;
    const typed = who.trim();
    let uuid = normalizeUuid(typed);
    if (!uuid) {
      if (typed === '') found.player = 'give a player: their name as the module knows it, or their UUID';
      else if (typed.length > SEARCH_MAX) found.player = `a name has at most ${SEARCH_MAX} characters; or give the UUID`;
      else {
        setFinding(true);
        try {
          const matches = await searchPlayers(typed);
          uuid = matches.find((m) => m.name.toLowerCase() === typed.toLowerCase())?.uuid;
          if (!uuid) found.player = `no player named “${typed}” is known to the permissions module; give their UUID`;
        } catch (error) {
          found.player = `the players could not be searched: ${error instanceof Error ? error.message : String(error)}`;
        } finally {
          setFinding(false);
        }
      }
    }
    setProblems(found);
    if (Object.keys(found).length || !uuid) return;
    setQuestion({ uuid, permission: permission.trim(), where: { ...(server.trim() ? { server: server.trim() } : {}), ...(world.trim() ? { world: world.trim() } : {}) } });
  };

  return (
    <>
      <section class="op-card" aria-labelledby="perm-check-title">
        <h2 id="perm-check-title">Check a permission</h2>
        <p class="op-muted">Asks the controller what a plugin would get for this player, and why. Without a server or world, rows scoped to one do not apply.</p>
        <form class="perm-form" aria-label="Check a permission" onSubmit={(e) => void submit(e)} noValidate>
          <div class="gd-grid">
            <Field id="perm-check-player" label="Player" hint="A name the module knows, or a UUID." problem={problems.player}>
              {(a) => <input {...a} type="text" value={who} autoComplete="off" spellcheck={false} aria-required="true" onInput={(e) => setWho(inputText(e))} />}
            </Field>
            <Field id="perm-check-node" label="Permission" hint="As a plugin asks it, e.g. essentials.fly." problem={problems.permission}>
              {(a) => <input {...a} type="text" value={permission} autoComplete="off" spellcheck={false} aria-required="true" onInput={(e) => setPermission(inputText(e))} />}
            </Field>
            <Field id="perm-check-server" label="On server" hint="Optional." problem={problems.server}>
              {(a) => <input {...a} type="text" value={server} autoComplete="off" spellcheck={false} onInput={(e) => setServer(inputText(e))} />}
            </Field>
            <Field id="perm-check-world" label="In world" hint="Optional." problem={problems.world}>
              {(a) => <input {...a} type="text" value={world} autoComplete="off" spellcheck={false} onInput={(e) => setWorld(inputText(e))} />}
            </Field>
          </div>
          <div class="op-actions">
            <button type="submit" disabled={finding}>
              {finding ? 'Finding the player…' : 'Check'}
            </button>
          </div>
        </form>
      </section>
      {question && <Answer question={question} />}
    </>
  );
}

function Answer({ question }: { question: Question }) {
  const { uuid, permission, where } = question;
  const answer = useQuery({
    queryKey: KEYS.question(uuid, permission, where),
    queryFn: async () => {
      const [allowed, why, player] = await Promise.all([check(uuid, permission, where), debug(uuid, permission, where), getPlayer(uuid)]);
      return { allowed, why, player };
    },
  });
  if (answer.isPending) return <p>Asking…</p>;
  if (answer.isError) return <ReadFailure error={answer.error} what="The answer" />;
  const { allowed, why, player } = answer.data;
  const name = player.name === 'unknown' ? uuid : player.name;
  const place = [where.server && `on ${where.server}`, where.world && `in ${where.world}`].filter(Boolean).join(' ');
  return (
    <section class="op-card perm-answer" aria-labelledby="perm-answer-title" aria-live="polite">
      <h2 id="perm-answer-title" class="perm-answer-head">
        <span class={`op-pill ${allowed.allowed ? 'perm-pill-grant' : 'perm-pill-deny'}`}>{allowed.allowed ? 'Allowed' : 'Denied'}</span>{' '}
        <span>
          <code>{allowed.permission}</code> for <Link href={playerHref(uuid)}>{name}</Link>
          {place && ` ${place}`}
        </span>
      </h2>
      <p class="perm-reason">{why.reason}</p>
      {why.result !== allowed.allowed && <p class="op-error">The check and the explanation differ: permissions changed between the two questions. Check again.</p>}
      {why.chain.length === 0 ? (
        <p class="op-muted">None of the groups that count for {name} holds a node that answers {allowed.permission}: nothing grants it, so it is denied.</p>
      ) : (
        <table class="gd-table perm-table perm-chain" aria-label={`Rows that answer ${allowed.permission}`}>
          <thead>
            <tr>
              <th scope="col">Group</th>
              <th scope="col">Node</th>
              <th scope="col">Kind</th>
              <th scope="col">Weight</th>
              <th scope="col">Here</th>
              <th scope="col">Scope</th>
            </tr>
          </thead>
          <tbody>
            {why.chain.map((step, i) => (
              <ChainRow key={i} step={step} />
            ))}
          </tbody>
        </table>
      )}
      <p class="op-muted">The heaviest group among the rows that apply decides; at equal weight a negation wins over a grant.</p>
    </section>
  );
}

function ChainRow({ step }: { step: ChainStep }) {
  const scoped = step.server || step.world || step.expiresAt;
  return (
    <tr class={step.decisive ? 'perm-decisive' : undefined}>
      <th scope="row" data-label="Group">
        <Link href={groupHref(step.source)}>{step.source}</Link>
        {step.inheritedFrom && <span class="op-muted"> (through {step.inheritedFrom})</span>}
        {step.decisive && <span class="op-pill perm-pill-decides">decides</span>}
      </th>
      <td data-label="Node">
        <code class={step.permission.startsWith('-') ? 'perm-negated' : undefined}>{step.permission}</code>
      </td>
      <td data-label="Kind">{TYPE_WORDS[step.type] ?? step.type}</td>
      <td data-label="Weight">{step.weight}</td>
      <td data-label="Here">{step.type === 'context-filtered' ? 'not applied' : step.granted ? 'grants' : 'denies'}</td>
      <td data-label="Scope" class="gd-wrap">
        {scoped ? (
          <>
            {[step.server && `server ${step.server}`, step.world && `world ${step.world}`].filter(Boolean).join(', ')}
            {step.expiresAt && (
              <>
                {step.server || step.world ? '; ' : ''}until <ExpiryText iso={step.expiresAt} />
              </>
            )}
          </>
        ) : (
          <span class="op-muted">everywhere, always</span>
        )}
      </td>
    </tr>
  );
}
