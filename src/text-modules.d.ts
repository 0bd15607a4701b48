/** Markdown files imported `with { type: 'text' }` (the embedded CHANGELOG.md) are strings. */
declare module '*.md' {
  const text: string;
  export default text;
}
