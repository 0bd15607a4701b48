/**
 * The software, version and modloader-version fields of the group and dedicated forms, as
 * RecordForm `controls`: the software from GET /api/software (what each kind means said under
 * it), the version from its upstream's list (releases first, snapshots apart, the latest chosen
 * on create), the loader version from the loader's list for that version. A list that cannot be
 * had (the upstream is down: 503) is said in words next to the field, which becomes a text box:
 * the form never waits on a public service. CUSTOM has no list: its version is typed.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { useQuery } from '@tanstack/preact-query';
import { ApiFailure } from '../api';
import { FieldInput } from './field-input';
import type { RawValue, RawValues } from './fields';
import type { FieldControlProps } from './record-form';
import {
  canListLoaders,
  listLoaderVersions,
  listSoftware,
  listVersions,
  loaderVersionsKey,
  offeredVersions,
  SOFTWARE_KEY,
  SOFTWARE_STALE_MS,
  softwareHint,
  softwareInfo,
  versionsKey,
} from './software';
import './software.css';

/** The select's last option: the operator types a version the list lacks. */
const TYPE_IT = '(type)';

/** Why a list is missing, in the controller's words (a 503 names the upstream and what went wrong). */
function whyMissing(error: Error): string {
  return error instanceof ApiFailure && error.status !== 0 ? error.message : 'the controller cannot be reached';
}

function useSoftwareList() {
  return useQuery({ queryKey: SOFTWARE_KEY, queryFn: listSoftware, staleTime: SOFTWARE_STALE_MS });
}

/** The software select: every kind GET /api/software lists (the built-in ones until it answers), what the chosen one means under it. */
function SoftwareField({ where, ...props }: FieldControlProps & { where: 'group' | 'dedicated' }) {
  const { id, spec, value, problem, readOnly, onChange } = props;
  const list = useSoftwareList();
  const entries = list.data?.software;
  const chosen = softwareInfo(entries, value);
  const names = entries ? entries.map((entry) => entry.name) : spec.kind === 'choice' ? [...spec.options] : [];
  const labelOf = (name: string) => {
    const info = softwareInfo(entries, name);
    if (!info) return name;
    if (info.isProxy) return `${name} (proxy)`;
    if (info.needsModloaderVersion) return `${name} (mod loader)`;
    if (info.needsCustomJar) return `${name} (your own jar)`;
    return name;
  };
  return (
    <FieldInput
      id={id}
      spec={spec}
      value={value}
      problem={problem}
      readOnly={readOnly}
      onChange={onChange}
      hint={softwareHint(chosen, where)}
      note={list.isError ? <p>The list of software could not be loaded ({whyMissing(list.error)}); these are the kinds this dashboard knows.</p> : undefined}
      control={(attributes) => (
        <select {...attributes} value={String(value)} disabled={readOnly} onChange={(e) => onChange((e.currentTarget as HTMLSelectElement).value)}>
          {!names.includes(String(value)) && <option value={String(value)}>{value === '' ? 'Choose…' : String(value)}</option>}
          {names.map((name) => (
            <option key={name} value={name}>
              {labelOf(name)}
            </option>
          ))}
        </select>
      )}
    />
  );
}

interface ListedProps extends FieldControlProps {
  /** The list: loading, failed, or its versions (releases and the rest, newest first). */
  list: { pending: boolean; error: Error | null; stable: string[]; snapshots: string[]; leftOut: number } | null;
  /** What the list is of, for the words: "PAPER versions", "FABRIC loader versions for 1.21.4". */
  what: string;
  /** A first option besides the versions (the loader's "Automatic"), with its label. */
  blank?: string;
  /** Labels of some versions ("1.21.4 (latest)"). */
  mark?: (version: string) => string;
  hint?: ComponentChildren;
  refetch: () => void;
}

/**
 * A version field over a list: a select of the list when there is one, else (loading, the
 * list failed, or the operator asked to type) a text box, the reason said under it.
 */
function ListedVersion({ list, what, blank, mark = (v) => v, hint, refetch, ...props }: ListedProps) {
  const { id, spec, value, problem, readOnly, onChange } = props;
  const [typing, setTyping] = useState(false);
  const refocus = useRef(false);
  const text = typeof value === 'string' ? value : '';
  // The control changes from select to text box (or back) under the operator's hand: keep the focus on it.
  useLayoutEffect(() => {
    if (!refocus.current) return;
    refocus.current = false;
    document.getElementById(id)?.focus();
  });
  const switchTo = (typed: boolean) => {
    refocus.current = true;
    setTyping(typed);
  };

  const common = { id, spec, value, problem, readOnly, onChange, hint };
  if (list === null || readOnly) return <FieldInput {...common} />;
  if (list.pending) return <FieldInput {...common} readOnly placeholder="Loading the list…" note={<p role="status">Loading the {what}…</p>} />;
  if (list.error) {
    return (
      <FieldInput
        {...common}
        note={
          <p role="status" class="gd-missing">
            The {what} could not be loaded: {whyMissing(list.error)}. Type the version by hand.{' '}
            <button type="button" class="link" onClick={refetch}>
              Try again
            </button>
          </p>
        }
      />
    );
  }
  if (typing) {
    return (
      <FieldInput
        {...common}
        note={
          <p>
            Typed by hand.{' '}
            <button type="button" class="link" onClick={() => switchTo(false)}>
              Choose from the list
            </button>
          </p>
        }
      />
    );
  }

  const known = new Set([...list.stable, ...list.snapshots]);
  const empty = list.stable.length === 0 && list.snapshots.length === 0;
  return (
    <FieldInput
      {...common}
      note={
        empty ? <p>The upstream lists no {what}{blank ? '' : ': type the version by hand (the last choice)'}.</p> : list.leftOut > 0 ? <p>{list.leftOut} snapshot(s) svc cannot take as a version are not listed.</p> : undefined
      }
      control={(attributes) => (
        <select
          {...attributes}
          value={text}
          onChange={(e) => {
            const chosen = (e.currentTarget as HTMLSelectElement).value;
            if (chosen === TYPE_IT) {
              (e.currentTarget as HTMLSelectElement).value = text;
              switchTo(true);
            } else onChange(chosen);
          }}
        >
          {blank !== undefined && <option value="">{blank}</option>}
          {blank === undefined && text === '' && <option value="">Choose a version…</option>}
          {text !== '' && !known.has(text) && <option value={text}>{text} (not in the upstream’s list)</option>}
          {list.stable.length > 0 && (
            <optgroup label="Releases">
              {list.stable.map((v) => (
                <option key={v} value={v}>
                  {mark(v)}
                </option>
              ))}
            </optgroup>
          )}
          {list.snapshots.length > 0 && (
            <optgroup label="Snapshots and pre-releases">
              {list.snapshots.map((v) => (
                <option key={v} value={v}>
                  {mark(v)}
                </option>
              ))}
            </optgroup>
          )}
          <option value={TYPE_IT}>Another version: type it…</option>
        </select>
      )}
    />
  );
}

/** The game version: the software's list; on create (`preselect`) its latest is chosen while the field is empty. */
function VersionField({ preselect, ...props }: FieldControlProps & { preselect: boolean }) {
  const software = String(props.values.software ?? '');
  const softwareList = useSoftwareList();
  const info = softwareInfo(softwareList.data?.software, software);
  const listed = info !== null && !info.needsCustomJar && !props.readOnly;
  const versions = useQuery({ queryKey: versionsKey(software), queryFn: () => listVersions(software), enabled: listed, staleTime: SOFTWARE_STALE_MS });
  const latest = versions.data?.latest ?? null;
  const offered = versions.data ? offeredVersions(versions.data) : null;
  const { value, onChange } = props;

  useEffect(() => {
    if (preselect && value === '' && latest !== null && offered && [...offered.stable, ...offered.snapshots].includes(latest)) onChange(latest);
  }, [preselect, value, latest]);

  if (!listed) {
    const hint = info?.needsCustomJar ? 'CUSTOM has no version list: type the Minecraft version your jar runs.' : undefined;
    return <ListedVersion {...props} list={null} what="versions" hint={hint} refetch={() => undefined} />;
  }
  return (
    <ListedVersion
      // A list of another software starts as a list again, not as the text box the last one was typed in.
      key={software}
      {...props}
      what={`${software} versions`}
      list={{ pending: versions.isPending, error: versions.error, stable: offered?.stable ?? [], snapshots: offered?.snapshots ?? [], leftOut: offered?.leftOut ?? 0 }}
      mark={(v) => (v === latest ? `${v} (latest)` : v)}
      refetch={() => void versions.refetch()}
    />
  );
}

/** The loader version, shown only for a software that takes one: its list for the chosen game version, "Automatic" first (empty: the upstream's recommended one). */
function LoaderField(props: FieldControlProps) {
  const software = String(props.values.software ?? '');
  const mcVersion = String(props.values.version ?? '').trim();
  const softwareList = useSoftwareList();
  const info = softwareInfo(softwareList.data?.software, software);
  const needed = info?.needsModloaderVersion === true;
  const askable = needed && canListLoaders(mcVersion) && !props.readOnly;
  const loaders = useQuery({ queryKey: loaderVersionsKey(software, mcVersion), queryFn: () => listLoaderVersions(software, mcVersion), enabled: askable, staleTime: SOFTWARE_STALE_MS });
  // A stale value of another software (a group moved off FABRIC) stays visible, so it can be cleared.
  if (!needed && props.value === '') return null;
  if (!needed) return <FieldInput {...props} hint={`${software} takes no loader version: leave it empty.`} />;
  if (!askable) return <ListedVersion {...props} list={null} what="loader versions" hint="Choose the version above first: its loader versions are listed then. Empty: the upstream's recommended one." refetch={() => undefined} />;
  const recommended = loaders.data?.recommended ?? null;
  const offered = loaders.data ? { stable: loaders.data.stable, snapshots: loaders.data.snapshots, leftOut: 0 } : null;
  return (
    <ListedVersion
      key={`${software} ${mcVersion}`}
      {...props}
      what={`${software} loader versions for Minecraft ${mcVersion}`}
      blank={recommended ? `Automatic (recommended today: ${recommended})` : 'Automatic (the upstream’s recommended one)'}
      mark={(v) => (v === recommended ? `${v} (recommended)` : v)}
      list={{ pending: loaders.isPending, error: loaders.error, stable: offered?.stable ?? [], snapshots: offered?.snapshots ?? [], leftOut: 0 }}
      refetch={() => void loaders.refetch()}
    />
  );
}

/**
 * The controls for RecordForm and the rule that follows a change: another software clears the
 * loader version and, on create, the version (the new list's latest is chosen then); another
 * version clears the loader version (a loader build belongs to one game version). Made once per
 * form (RecordForm wants stable components).
 */
export function softwareControls(where: 'group' | 'dedicated', creating: boolean) {
  const controls = {
    software: (props: FieldControlProps) => <SoftwareField {...props} where={where} />,
    version: (props: FieldControlProps) => <VersionField {...props} preselect={creating} />,
    modloaderVersion: LoaderField,
  };
  const follow = (key: string, next: RawValues, previous: RawValues): RawValues => {
    const changed = (k: string) => key === k && next[k] !== previous[k];
    const out: Record<string, RawValue> = { ...next };
    if (changed('software')) {
      if (creating) out.version = '';
      if ('modloaderVersion' in out) out.modloaderVersion = '';
    }
    if (changed('version') && 'modloaderVersion' in out && softwareInfo(undefined, out.software)?.needsModloaderVersion) out.modloaderVersion = '';
    return out;
  };
  return { controls, follow };
}
