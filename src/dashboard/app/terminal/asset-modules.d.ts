/**
 * A stylesheet imported `with { type: 'file' }` is its URL under /assets/ (Bun copies the file
 * and hands back its path). Used for the styles of parts loaded when first needed: a CSS import
 * proper would be folded into the first page's stylesheet by the bundler.
 */
declare module '*.css' {
  const href: string;
  export default href;
}
