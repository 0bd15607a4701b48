/**
 * Which template files a service may share with its template through a hardlink.
 *
 * A hardlink is the same inode: a server writing such a file in place would write into the
 * template and into every other service provisioned from it. Only files servers never write in
 * place qualify (jars, anything under `libraries/`), and they are made read-only before they
 * are shared, so an in-place write fails instead of corrupting the template. Replacing the
 * file (write elsewhere, rename over it) still works, as it should: it only swaps the
 * service's own directory entry.
 */
export function isHardlinkCandidate(rel: string): boolean {
  return rel.startsWith('libraries/') || rel.toLowerCase().endsWith('.jar');
}

/**
 * Whether hardlinks are safe when the caller does not say. Root (euid 0) ignores permission
 * bits, so a read-only hardlink protects nothing from a server that runs as root: a plain
 * copy is the only safe choice then. A caller that runs services under an unprivileged user
 * while svc itself is root may opt in explicitly.
 */
export function hardlinksSafeByDefault(): boolean {
  return process.geteuid?.() !== 0;
}
