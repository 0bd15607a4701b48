/** One file of the dashboard: its bytes and its content type. */
export interface DashboardFile {
  body: Blob;
  type: string;
}

/** The built dashboard: its page, and every asset by its path (`/assets/<name>-<hash>.<ext>`). */
export interface DashboardFiles {
  index: string;
  assets: ReadonlyMap<string, DashboardFile>;
}

/** What build.ts embeds as the module `svc:dashboard-files` (see src/build/dashboard-embed.ts). */
export interface EmbeddedDashboard {
  INDEX: string;
  ASSETS: readonly { path: string; file: string; type: string }[];
}
