import type { ComponentType } from 'preact';
import { useQueryClient, type QueryKey } from '@tanstack/preact-query';
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

/** A dialog opened from the page's head beside the create button (Import a modpack). */
export interface RecordDialogProps {
  /** Closes it with what the controller answered (the notice); the list reloads. */
  onDone(message: string): void;
  onClose(): void;
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
  /** Another way to make a record, as a dialog (its button before the create one). */
  dialog?: { label: string; Dialog: ComponentType<RecordDialogProps> };
}) {
  const { path, title, newLabel, listKey, touches, Form, List, dialog } = props;
  const queries = useQueryClient();
  const [dialogOpen, setDialogOpen] = useState(false);
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
        <div class="gd-actions">
          {dialog && (
            <button
              type="button"
              class="gd-secondary"
              onClick={() => {
                setNotice(null);
                setDialogOpen(true);
              }}
            >
              {dialog.label}
            </button>
          )}
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
      {dialog && dialogOpen && (
        <dialog.Dialog
          onDone={(message) => {
            setDialogOpen(false);
            setNotice(message);
            void queries.invalidateQueries({ queryKey: listKey });
          }}
          onClose={() => setDialogOpen(false)}
        />
      )}
    </section>
  );
}
