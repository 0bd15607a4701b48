// Files Bun embeds as text at build time (`with { type: 'text' }`).
declare module '*.sql' {
  const text: string;
  export default text;
}
