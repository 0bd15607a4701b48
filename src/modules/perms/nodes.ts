/**
 * Permission nodes: what a valid node is, and which stored nodes answer a question about one.
 *
 * A stored node answers a question about `a.b.c` when it is `a.b.c` itself, the wildcard of a
 * proper ancestor (`a.*`, `a.b.*`; `a.b.c.*` covers only what lies below `a.b.c`), or `*`.
 * The same holds for negations (`-a.*` denies `a.b`).
 */

export const NODE_MAX = 256;
export const GROUP_NAME_PATTERN = '^[a-zA-Z0-9_-]{1,64}$';
export const NODE_PATTERN = '^-?[a-zA-Z0-9_.#*-]+$';
const NODE_RE = new RegExp(NODE_PATTERN);
const GROUP_NAME_RE = new RegExp(GROUP_NAME_PATTERN);

export const isGroupName = (name: string): boolean => GROUP_NAME_RE.test(name);

/**
 * Why `node` cannot be stored, or undefined when it can. A wildcard must be a whole last
 * segment: `a*` or `a.*.b` would be kept but never match anything, so they are refused.
 */
export function nodeProblem(node: string): string | undefined {
  if (node.length === 0) return 'a permission node cannot be empty';
  if (node.length > NODE_MAX) return `a permission node has at most ${NODE_MAX} characters`;
  if (!NODE_RE.test(node)) return `"${node}" is not a permission node (letters, digits and _ . # * -, an optional leading - to negate)`;
  const bare = node.startsWith('-') ? node.slice(1) : node;
  if (bare.length === 0) return '"-" alone negates nothing';
  if (bare.startsWith('-')) return `"${node}": one leading - negates; a node itself cannot start with -`;
  const segments = bare.split('.');
  if (segments.some((s) => s.length === 0)) return `"${node}" has an empty segment (two dots, or a dot at an end)`;
  if (segments.some((s, i) => s.includes('*') && (s !== '*' || i !== segments.length - 1))) {
    return `"${node}": a wildcard must be the whole last segment, as in a.b.* or *`;
  }
  return undefined;
}

/** The one spelling nodes are stored and compared in. */
export const normalizeNode = (node: string): string => node.trim().toLowerCase();

/**
 * The stored nodes (without a leading `-`) that answer a question about `node`, most specific
 * first: the node, its proper ancestors' wildcards from the nearest, then `*`.
 */
export function candidatesFor(node: string): string[] {
  const out = [node];
  let end = node.lastIndexOf('.');
  while (end > 0) {
    const wildcard = `${node.slice(0, end)}.*`;
    if (wildcard !== node) out.push(wildcard);
    end = node.lastIndexOf('.', end - 1);
  }
  if (node !== '*') out.push('*');
  return out;
}
