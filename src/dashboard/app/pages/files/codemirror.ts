/**
 * The editor itself: CodeMirror 6 with the syntax of the file's kind. This module is loaded
 * with import() the first time a file is opened (editor.tsx), so CodeMirror never weighs on
 * the dashboard's first page: the bundler puts it, and all it imports, in a chunk of its own.
 */
import { basicSetup } from 'codemirror';
import { EditorState, type Extension } from '@codemirror/state';
import { EditorView, keymap } from '@codemirror/view';
import { json } from '@codemirror/lang-json';
import { yaml } from '@codemirror/lang-yaml';
import { HighlightStyle, StreamLanguage, syntaxHighlighting } from '@codemirror/language';
import { properties } from '@codemirror/legacy-modes/mode/properties';
import { toml } from '@codemirror/legacy-modes/mode/toml';
import { tags } from '@lezer/highlight';

export interface EditorHandle {
  text: () => string;
  focus: () => void;
  destroy: () => void;
}

export interface EditorOptions {
  doc: string;
  fileName: string;
  readOnly: boolean;
  /** Called on every change of the text. */
  onChange: () => void;
  /** Ctrl-S / Cmd-S. */
  onSave: () => void;
}

/** The syntax for a file name (by extension); none for other files, which are edited as plain text. */
export function languageFor(fileName: string): Extension | null {
  const extension = fileName.toLowerCase().split('.').pop() ?? '';
  if (extension === 'json' || extension === 'mcmeta') return json();
  if (extension === 'yml' || extension === 'yaml') return yaml();
  if (extension === 'properties' || extension === 'ini' || extension === 'cfg') return StreamLanguage.define(properties);
  if (extension === 'toml') return StreamLanguage.define(toml);
  return null;
}

/** The page's own colours (files.css variables), light and dark alike. */
const look = EditorView.theme({
  '&': { height: '100%', color: 'var(--fg)', backgroundColor: 'var(--card)' },
  '.cm-scroller': { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace', fontSize: '0.875rem' },
  '.cm-gutters': { backgroundColor: 'var(--bg)', color: 'var(--muted)', borderRight: '1px solid var(--line)' },
  '.cm-activeLine, .cm-activeLineGutter': { backgroundColor: 'color-mix(in srgb, var(--accent) 8%, transparent)' },
  '&.cm-focused': { outline: '2px solid var(--accent)' },
  '.cm-content': { caretColor: 'var(--fg)' },
  '&.cm-focused .cm-cursor': { borderLeftColor: 'var(--fg)' },
});

/** Colours for the dark scheme (the default highlight style is for light backgrounds). */
const darkHighlight = HighlightStyle.define([
  { tag: [tags.keyword, tags.bool, tags.null], color: '#c792ea' },
  { tag: [tags.string, tags.special(tags.string)], color: '#c3e88d' },
  { tag: [tags.number], color: '#f78c6c' },
  { tag: [tags.propertyName, tags.definition(tags.propertyName), tags.attributeName], color: '#82aaff' },
  { tag: [tags.comment, tags.lineComment, tags.blockComment], color: '#8a8f98', fontStyle: 'italic' },
  { tag: [tags.heading, tags.typeName, tags.labelName], color: '#ffcb6b' },
  { tag: [tags.meta, tags.punctuation, tags.separator], color: '#a0a3ab' },
]);

/**
 * Mounts the editor in `host`, inside a shadow root of its own. The reason is the dashboard's
 * CSP (style-src 'self', nothing inline): CodeMirror's styles (style-mod) go into a <style>
 * element when mounted in the document, which the browser refuses; in a shadow root they go
 * into a constructed stylesheet (adoptedStyleSheets), which CSP allows. The page's colour
 * variables are inherited through the shadow boundary.
 */
export function mountEditor(host: HTMLElement, options: EditorOptions): EditorHandle {
  const root = host.shadowRoot ?? host.attachShadow({ mode: 'open' });
  const dark = matchMedia('(prefers-color-scheme: dark)').matches;
  const language = languageFor(options.fileName);
  const view = new EditorView({
    root,
    parent: root,
    state: EditorState.create({
      doc: options.doc,
      extensions: [
        keymap.of([
          {
            key: 'Mod-s',
            preventDefault: true,
            run: () => {
              options.onSave();
              return true;
            },
          },
        ]),
        basicSetup,
        look,
        ...(dark ? [EditorView.darkTheme.of(true), syntaxHighlighting(darkHighlight)] : []),
        ...(language ? [language] : []),
        EditorState.readOnly.of(options.readOnly),
        EditorView.contentAttributes.of({ 'aria-label': `Content of ${options.fileName}` }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) options.onChange();
        }),
      ],
    }),
  });
  return { text: () => view.state.doc.toString(), focus: () => view.focus(), destroy: () => view.destroy() };
}
