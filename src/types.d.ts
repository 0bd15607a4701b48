// Files Bun embeds as text at build time (`with { type: 'text' }`).
declare module '*.sql' {
  const text: string;
  export default text;
}

// The dashboard's files, embedded by build.ts (src/build/dashboard-embed.ts); absent when run from source.
declare module 'svc:dashboard-files' {
  export const INDEX: string;
  export const ASSETS: readonly { path: string; file: string; type: string }[];
}
