import { parseRelease } from '../info/update-check';

/** One release as the feed describes it (GitHub releases API shape). */
export interface Release {
  version: string;
  pageUrl: string | null;
  assets: ReleaseAsset[];
}

export interface ReleaseAsset {
  name: string;
  url: string;
  /** Bytes, as the feed lists them; the download must be exactly this long. */
  size: number;
}

export class ReleaseError extends Error {}

export interface FetchReleaseOptions {
  /** `[controller] update_check_url`: the latest-release JSON. */
  feedUrl: string;
  /** A release other than the latest (`svc update --version 0.15.1`). */
  version?: string;
  userAgent: string;
  fetch?: typeof fetch;
}

/**
 * The release to install: the feed's latest, or the one tagged `version`. GitHub serves a tag's
 * release beside the latest one (`…/releases/latest` → `…/releases/tags/v0.15.1`), so a pinned
 * version needs a feed URL of that form; the tag is tried with and without its `v`.
 */
export async function fetchRelease(options: FetchReleaseOptions): Promise<Release> {
  const wanted = options.version?.replace(/^v/, '');
  if (wanted !== undefined && !parseRelease(wanted)) throw new ReleaseError(`"${options.version}" is not a release version (like 0.15.1)`);
  if (wanted === undefined) return readRelease(options.feedUrl, options);
  const latest = /\/releases\/latest\/?$/;
  if (!latest.test(options.feedUrl)) {
    const release = await readRelease(options.feedUrl, options);
    if (release.version === wanted) return release;
    throw new ReleaseError(`the update feed names only its latest release (${release.version}); to install ${wanted}, point update_check_url at a GitHub-style …/releases/latest URL`);
  }
  let notFound: ReleaseError | undefined;
  for (const tag of [`v${wanted}`, wanted]) {
    try {
      const release = await readRelease(options.feedUrl.replace(latest, `/releases/tags/${encodeURIComponent(tag)}`), options);
      if (release.version !== wanted) throw new ReleaseError(`the release tagged ${tag} is version ${release.version}`);
      return release;
    } catch (error) {
      if (!(error instanceof NotFound)) throw error;
      notFound = new ReleaseError(`there is no release ${wanted} (tag v${wanted} or ${wanted})`);
    }
  }
  throw notFound!;
}

class NotFound extends ReleaseError {}

async function readRelease(url: string, options: FetchReleaseOptions): Promise<Release> {
  let response: Response;
  try {
    response = await (options.fetch ?? fetch)(url, { headers: { accept: 'application/json', 'user-agent': options.userAgent }, signal: AbortSignal.timeout(15_000) });
  } catch (error) {
    throw new ReleaseError(`the update feed ${url} did not answer: ${(error as Error).message}`);
  }
  if (response.status === 404) throw new NotFound(`${url} answered 404: no such release (a repository without releases answers this for …/releases/latest)`);
  if (!response.ok) throw new ReleaseError(`the update feed ${url} answered ${response.status} ${response.statusText}`);
  let parsed: unknown;
  try {
    parsed = await response.json();
  } catch {
    throw new ReleaseError(`the update feed ${url} did not answer JSON`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new ReleaseError(`the update feed ${url} did not answer a release object`);
  const body = parsed as { tag_name?: unknown; html_url?: unknown; assets?: unknown };
  const version = String(body.tag_name ?? '').replace(/^v/, '');
  if (!parseRelease(version)) throw new ReleaseError(`the update feed ${url} names no release version (tag_name ${JSON.stringify(body.tag_name)})`);
  const assets: ReleaseAsset[] = [];
  for (const item of Array.isArray(body.assets) ? body.assets : []) {
    if (typeof item !== 'object' || item === null) continue;
    const asset = item as { name?: unknown; browser_download_url?: unknown; size?: unknown };
    if (typeof asset.name !== 'string' || typeof asset.browser_download_url !== 'string') continue;
    let assetUrl: URL;
    try {
      assetUrl = new URL(asset.browser_download_url, url);
    } catch {
      continue;
    }
    if (assetUrl.protocol !== 'https:' && assetUrl.protocol !== 'http:') continue;
    assets.push({ name: asset.name, url: assetUrl.href, size: typeof asset.size === 'number' && Number.isSafeInteger(asset.size) ? asset.size : -1 });
  }
  return { version, pageUrl: typeof body.html_url === 'string' ? body.html_url : null, assets };
}
