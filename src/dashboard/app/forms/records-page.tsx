import type { ComponentType } from 'preact';
import type { QueryKey } from '@tanstack/preact-query';
import { useState } from 'preact/hooks';
import { useLocation, useSearchParams } from 'wouter-preact';
import { useLiveRefresh } from '../live-refresh';

export interface RecordFormProps {
  /** The record edited; null for a new one. */
  name: string | null;
  onDone(message: string): void;
  onCancel(): void;
}

export interface RecordListProps {
  onEdit(name: string): void;
  onNotice(message: string): void;
}

/**
 * A page of records edited through forms (Groups, Dedicated): the list at `path`, `?new` the
 * create form, `?edit=<name>` the edit form (links that survive a reload and work with the back
 * button). Events `touches` accepts reload the list, so counts and states follow starts and
 * stops as they happen (the list also polls, in case the socket is down).
 */
export function RecordsPage(props: {
  path: string;
  title: string;
  newLabel: string;
  listKey: QueryKey;
  touches: (type: string) => boolean;
  Form: ComponentType<RecordFormProps>;
  List: ComponentType<RecordListProps>;
}) {
  const { path, title, newLabel, listKey, touches, Form, List } = props;
  const [params] = useSearchParams();
  const [, navigate] = useLocation();
  const [notice, setNotice] = useState<string | null>(null);
  useLiveRefresh([listKey], touches);

  const editing = params.get('edit');
  if (params.has('new') || editing !== null) {
    return (
      <Form
        key={editing ?? '(new)'}
        name={editing}
        onDone={(message) => {
          setNotice(message);
          navigate(path);
        }}
        onCancel={() => navigate(path)}
      />
    );
  }

  return (
    <section>
      <div class="gd-head">
        <h1>{title}</h1>
        <button
          type="button"
          onClick={() => {
            setNotice(null);
            navigate(`${path}?new`);
          }}
        >
          {newLabel}
        </button>
      </div>
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      <List
        onEdit={(name) => {
          setNotice(null);
          navigate(`${path}?edit=${encodeURIComponent(name)}`);
        }}
        onNotice={setNotice}
      />
    </section>
  );
}
