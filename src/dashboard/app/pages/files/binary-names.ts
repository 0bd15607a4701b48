/**
 * File names the files API treats as binary whatever their bytes (src/core/files/read-form.ts,
 * BINARY_EXTENSIONS): the editor does not fetch these to find out. The API stays the judge of
 * every other file; should the lists ever differ, a file is only fetched once for nothing.
 */
const BINARY_EXTENSIONS: ReadonlySet<string> = new Set(
  (
    'png jpg jpeg gif webp svg bmp ico avif tif tiff jar zip gz tgz tar rar 7z xz bz2 zst mrpack class so dll exe dylib ' +
    'dat dat_old mca mcr nbt schematic schem litematic db sqlite sqlite3 mv.db ogg mp3 wav mp4 webm pdf ttf otf woff woff2'
  ).split(' '),
);

export function binaryByName(name: string): boolean {
  const lower = name.toLowerCase();
  const dot = lower.lastIndexOf('.');
  if (dot <= 0) return false;
  if (BINARY_EXTENSIONS.has(lower.slice(dot + 1))) return true;
  const second = lower.lastIndexOf('.', dot - 1); // two-part extensions (mv.db)
  return second > 0 && BINARY_EXTENSIONS.has(lower.slice(second + 1));
}
