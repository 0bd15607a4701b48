import { t } from '../t';
import type { Kernel } from '../../kernel';
import { FileStore, MAX_JSON_READ_BYTES, MAX_UPLOAD_BYTES, UPLOAD_OVERHEAD_BYTES, type RawFile } from '../../core/files/file-store';
import { attachment } from '../../core/files/content-disposition';
import { parseRequestPath, WINDOWS_RULES } from '../../core/files/path-syntax';
import { askedForm } from '../../core/files/read-form';
import { assertWritable, fileScopes, SCOPE_NAMES, type FileScope } from '../../core/files/scopes';
import { ApiError } from '../../errors';
import { parseBody } from '../body';
import { splitUrl } from '../request';
import { DEFAULT_BODY_LIMIT, defineRoute, type AnyRoute } from '../route';
import { ErrorBodySchema } from '../schemas';

const PREFIX = '/api/files/';

/**
 * `scope` is read again from the URL by the handler; the rest of the path (the route table's
 * `*`) is not declared: the object stays open (so validation keeps it), and the handler reads
 * the path from the request URL itself, exactly as received (see target()). The OpenAPI document declares it as `{path}`.
 */
const ScopeParams = t.Object({ scope: t.String({ description: SCOPE_NAMES.join(' | ') }) }, { additionalProperties: true });
const ReadQuery = t.Object({
  raw: t.Optional(
    t.Union([t.Literal('1'), t.Literal('true'), t.Literal('0'), t.Literal('false')], {
      description: '1 or true: stream the file itself (any size, its content type); 0 or false: JSON whatever the file (binary as base64). Left out: the file decides (text JSON, binary raw)',
    }),
  ),
});
const UploadQuery = t.Object({
  mkdir: t.Optional(
    t.Union([t.Literal(''), t.Literal('1'), t.Literal('true')], { description: 'present (`?mkdir`): create the directory at the path; the body is empty, {} or {"type":"directory"}' }),
  ),
});

const Entry = t.Object({
  name: t.String(),
  path: t.String({ description: 'relative to the scope root' }),
  isDirectory: t.Boolean(),
  size: t.Integer({ description: 'bytes; 0 for a directory' }),
  lastModified: t.String({ description: 'ISO 8601' }),
});
const Listing = t.Object({ scope: t.String(), path: t.String(), entries: t.Array(Entry), total: t.Integer() });
const FileContent = t.Object({
  scope: t.String(),
  path: t.String(),
  content: t.String({ description: 'the file as UTF-8 text, or base64 for binary files (see encoding)' }),
  encoding: t.Union([t.Literal('utf8'), t.Literal('base64')]),
  size: t.Integer(),
  lastModified: t.String({ description: 'ISO 8601' }),
});
const WriteBody = t.Object({
  content: t.String({ description: 'the whole new content' }),
  encoding: t.Optional(t.Union([t.Literal('utf8'), t.Literal('base64')], { description: 'how content is encoded (default utf8); base64 for binary files' })),
});
const RawBytes = t.String({
  contentMediaType: 'application/octet-stream',
  description: "the file's bytes with its own Content-Type and Content-Disposition: attachment (binary files, files over the JSON limit, and ?raw=1)",
});
const Written = t.Object({
  success: t.Literal(true),
  message: t.String(),
  scope: t.String(),
  path: t.String(),
  size: t.Integer(),
  created: t.Boolean({ description: 'false when an existing file was replaced' }),
});
const Done = t.Object({ success: t.Literal(true), message: t.String(), scope: t.String(), path: t.String() });
const Err = ErrorBodySchema;
const ERRORS = { 400: Err, 401: Err, 403: Err, 404: Err, 409: Err } as const;

const READ_SUMMARY =
  'List a directory ({scope, path, entries, total}; directories first) or read a file. A text file answers JSON {scope, path, content, encoding:"utf8", size, lastModified}; ' +
  `a binary file (an image, svg included, an archive, a jar, world data...; or a NUL byte in the first 8 KiB, or invalid UTF-8) and a file over ${MAX_JSON_READ_BYTES} bytes answer its bytes, streamed, ` +
  'with its Content-Type and Content-Disposition: attachment. ?raw=1 streams any file; ?raw=0 or Accept: application/json always answers JSON (binary content as base64, ' +
  `413 over ${MAX_JSON_READ_BYTES} bytes). Scopes: templates, services, groups (read-only). ` +
  'PATH_TRAVERSAL for unsafe paths (dot segments, absolute, backslash, control characters, encoded separators, double encoding, links leading out), PATH_NOT_FOUND, INVALID_SCOPE';
const UPLOAD_SUMMARY =
  `Into the directory at the path: multipart/form-data with a "file" part (named by its filename, or a "filename" field sent before it) is streamed to disk and renamed into place, ` +
  `at most ${MAX_UPLOAD_BYTES} bytes (413, checked against Content-Length first and while streaming); ` +
  'or ?mkdir (the body empty, {} or {"type":"directory"}), or JSON {"type":"directory"} alone, creates the directory at the path (its parent must exist). ' +
  '201; 409 when a directory is in the way or already exists; READ_ONLY in the groups scope';

/**
 * The files API (admin; JWTs with files:read / files:write): list, read, overwrite, mkdir,
 * upload and delete inside the templates, services and groups scopes. Path safety lives in
 * src/core/files (path-syntax.ts for the text, confine.ts for links on disk).
 */
export function fileRoutes(kernel: Kernel): AnyRoute[] {
  const store = new FileStore(fileScopes(kernel.paths), kernel.log.child({ area: 'files' }));

  const read = defineRoute({
    method: 'GET',
    path: '/api/files/:scope/*',
    auth: 'admin',
    permission: 'svc.dashboard.services.edit_config',
    scopes: ['files:read'],
    tag: 'files',
    summary: READ_SUMMARY,
    params: ScopeParams,
    query: ReadQuery,
    response: { 200: t.Union([Listing, FileContent, RawBytes]), ...ERRORS, 413: Err },
    handler: async ({ request, query, set }) => {
      const { scope, segments } = target(store, request);
      const result = await store.read(scope, segments, askedForm(query.raw, request.headers.get('accept')));
      // Which form a file comes in can depend on Accept (beside what CORS varies on).
      set.headers.vary = set.headers.vary ? `${set.headers.vary}, Accept` : 'Accept';
      return 'kind' in result ? rawResponse(result, String(set.headers.vary)) : result;
    },
  });
  const upload = defineRoute({
    method: 'POST',
    path: '/api/files/:scope/*',
    auth: 'admin',
    permission: 'svc.dashboard.services.edit_config',
    scopes: ['files:write'],
    tag: 'files',
    summary: UPLOAD_SUMMARY,
    params: ScopeParams,
    query: UploadQuery,
    bodyLimit: MAX_UPLOAD_BYTES + UPLOAD_OVERHEAD_BYTES,
    rawBody: { contentType: 'multipart/form-data' },
    response: { 201: t.Union([Written, Done]), ...ERRORS, 413: Err, 507: Err },
    handler: async ({ request, query, set, actor }) => {
      const { scope, segments } = target(store, request);
      assertWritable(scope); // before any of the body is read
      const contentType = request.headers.get('content-type');
      const mkdir = query.mkdir !== undefined;
      if (!mkdir && mediaType(contentType) === 'multipart/form-data') {
        const written = await store.upload(scope, segments, { body: request.body, contentType }, actor);
        set.status = 201;
        return { success: true as const, message: `uploaded ${written.path} (${written.size} bytes)`, ...written };
      }
      await requireDirectoryBody(request, mkdir);
      const made = await store.makeDirectory(scope, segments, actor);
      set.status = 201;
      return { success: true as const, message: `created directory ${made.path}`, ...made };
    },
  });

  return [
    read,
    // The scope root without a trailing slash: the same handlers, the path is empty.
    { ...read, path: '/api/files/:scope' },
    defineRoute({
      method: 'PUT',
      path: '/api/files/:scope/*',
      auth: 'admin',
      permission: 'svc.dashboard.services.edit_config',
      scopes: ['files:write'],
      tag: 'files',
      summary:
        'Create or replace a file (its parent must exist: PATH_NOT_FOUND) from JSON {content, encoding?: "utf8" | "base64"}; written atomically (temp file, fsync, rename), keeping the mode of the file it replaces. 201 when created, 200 when replaced; 409 on a directory; READ_ONLY in the groups scope',
      params: ScopeParams,
      body: WriteBody,
      response: { 200: Written, 201: Written, ...ERRORS, 413: Err, 507: Err },
      handler: async ({ request, body, set, actor }) => {
        const { scope, segments } = target(store, request);
        const written = await store.write(scope, segments, body, actor);
        set.status = written.created ? 201 : 200;
        return { success: true as const, message: `${written.created ? 'created' : 'replaced'} ${written.path} (${written.size} bytes)`, ...written };
      },
    }),
    upload,
    { ...upload, path: '/api/files/:scope' },
    defineRoute({
      method: 'DELETE',
      path: '/api/files/:scope/*',
      auth: 'admin',
      permission: 'svc.dashboard.services.edit_config',
      scopes: ['files:write'],
      tag: 'files',
      summary: 'Delete a file, a link (never its target) or an empty directory; 409 VALIDATION_FAILED for a directory that is not empty; the scope root is never deleted; READ_ONLY in the groups scope',
      params: ScopeParams,
      response: { 200: Done, ...ERRORS },
      handler: async ({ request, actor }) => {
        const { scope, segments } = target(store, request);
        const removed = await store.remove(scope, segments, actor);
        return { success: true as const, message: `deleted ${removed.path}`, ...removed };
      },
    }),
  ];
}

/**
 * Scope and path segments of a files request, from the URL as received (still percent-encoded):
 * INVALID_SCOPE first, then the path checks of parseRequestPath (decoded exactly once).
 */
function target(store: FileStore, request: Request): { scope: FileScope; segments: string[] } {
  const { pathname } = splitUrl(request.url);
  if (!pathname.startsWith(PREFIX)) throw new ApiError('INVALID_SCOPE', `no scope in ${pathname.slice(0, 200)}`);
  const rest = pathname.slice(PREFIX.length);
  const slash = rest.indexOf('/');
  const rawScope = slash < 0 ? rest : rest.slice(0, slash);
  let scopeName: string;
  try {
    scopeName = decodeURIComponent(rawScope);
  } catch {
    scopeName = rawScope;
  }
  const scope = store.scope(scopeName);
  return { scope, segments: parseRequestPath(slash < 0 ? '' : rest.slice(slash + 1), WINDOWS_RULES) };
}

const mediaType = (contentType: string | null) => (contentType ?? '').split(';')[0]!.trim().toLowerCase();

/**
 * A POST that is not an upload must ask for a directory: JSON {"type":"directory"}, or
 * `?mkdir` with no body, {} or that same object (what the dashboard's New Folder sends).
 */
async function requireDirectoryBody(request: Request, mkdir: boolean): Promise<void> {
  if (mkdir && mediaType(request.headers.get('content-type')) === 'multipart/form-data') {
    throw new ApiError('VALIDATION_FAILED', '?mkdir creates a directory and takes no file; upload without ?mkdir');
  }
  const body = await parseBody(request, DEFAULT_BODY_LIMIT, undefined);
  if (mkdir && body === undefined) return;
  const fields = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : null;
  if (fields?.type === 'directory') return;
  if (mkdir && fields !== null && Object.keys(fields).length === 0) return;
  if (mkdir) throw new ApiError('VALIDATION_FAILED', 'with ?mkdir the body must be empty, {} or {"type":"directory"}');
  throw new ApiError('VALIDATION_FAILED', 'send JSON {"type":"directory"} (or POST with ?mkdir) to create a directory, or multipart/form-data with a "file" part to upload a file');
}

/** The file's bytes, streamed from disk (sendfile where the platform has it), as a download named after the path's last segment. */
function rawResponse(file: RawFile, vary: string): Response {
  const blob = Bun.file(file.real);
  return new Response(blob, {
    headers: {
      'content-type': blob.type || 'application/octet-stream',
      'content-length': String(file.size),
      'content-disposition': attachment(file.name),
      vary,
      // Never rendered as a page of the API's origin, whatever the file holds.
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; sandbox",
    },
  });
}
