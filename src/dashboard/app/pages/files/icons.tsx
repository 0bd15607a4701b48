/** The page's few icons, drawn inline (nothing fetched; the CSP allows no other images anyway). */
const PATHS = {
  folder: 'M3 6.5A1.5 1.5 0 0 1 4.5 5h4l2 2h9A1.5 1.5 0 0 1 21 8.5v9a1.5 1.5 0 0 1-1.5 1.5h-15A1.5 1.5 0 0 1 3 17.5z',
  file: 'M6 3h8l4 4v13a1 1 0 0 1-1 1H6a1 1 0 0 1-1-1V4a1 1 0 0 1 1-1zm8 0v4h4',
  download: 'M12 4v11m0 0-4.5-4.5M12 15l4.5-4.5M5 19h14',
  trash: 'M4 7h16M9 7V4h6v3m-8 0 1 13h8l1-13',
} as const;

export function Icon({ name }: { name: keyof typeof PATHS }) {
  return (
    <svg class={`fm-icon fm-icon-${name}`} viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">
      <path d={PATHS[name]} />
    </svg>
  );
}
