/**
 * Saving a backup's archive (GET /api/backups/{id}/download, application/zstd): fetched with the
 * bearer token (a plain link could not send it, and a token never goes in a URL), read as it
 * arrives so the page can say how far it is, then handed to the browser as a blob URL under the
 * name the controller gives it (Content-Disposition).
 */
import { ApiFailure, signOut, storedToken } from '../../api';
import { BASE } from './model';

export interface DownloadProgress {
  received: number;
  /** From Content-Length; null when the controller did not say. */
  total: number | null;
}

/** The file name of an attachment, or null. */
export function attachmentName(disposition: string | null): string | null {
  const match = /filename="([^"]+)"/.exec(disposition ?? '');
  return match?.[1] ?? null;
}

async function failure(response: Response): Promise<ApiFailure> {
  let code = `HTTP_${response.status}`;
  let message = response.statusText;
  try {
    const body = (await response.json()) as { error?: string; message?: string };
    code = body.error ?? code;
    message = body.message ?? message;
  } catch {
    // Not the API's JSON error: the status says it.
  }
  const error = new ApiFailure(response.status, code, message);
  if (code === 'AUTH_FAILED' || code === 'AUTH_SESSION_EXPIRED' || code === 'AUTH_SESSION_INVALID') {
    signOut(code === 'AUTH_SESSION_EXPIRED' ? 'Your session has expired: sign in again.' : 'You were signed out: sign in again.');
  }
  return error;
}

/** Downloads the archive of backup `id`; resolves with the file's name once the browser has it. */
export async function downloadArchive(id: number, fallbackName: string, onProgress: (progress: DownloadProgress) => void): Promise<string> {
  const token = storedToken();
  const response = await fetch(`${BASE}/${id}/download`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  if (!response.ok) throw await failure(response);
  const length = Number(response.headers.get('content-length'));
  const total = Number.isFinite(length) && length > 0 ? length : null;
  const parts: Uint8Array[] = [];
  let received = 0;
  onProgress({ received, total });
  if (response.body) {
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
      received += value.byteLength;
      onProgress({ received, total });
    }
  }
  const name = attachmentName(response.headers.get('content-disposition')) ?? fallbackName;
  const url = URL.createObjectURL(new Blob(parts as BlobPart[], { type: 'application/zstd' }));
  try {
    const link = document.createElement('a');
    link.href = url;
    link.download = name;
    document.body.append(link);
    link.click();
    link.remove();
  } finally {
    // The click has started the download by now; the URL is no longer needed after it.
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
  }
  return name;
}
