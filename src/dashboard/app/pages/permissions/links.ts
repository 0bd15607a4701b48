/** Where the Permissions page's views live: links that survive a reload and work with the back button. */
export const VIEWS = [
  ['groups', 'Groups'],
  ['tracks', 'Tracks'],
  ['players', 'Players'],
  ['check', 'Check'],
  ['changes', 'Changes'],
] as const;
export type View = (typeof VIEWS)[number][0];

export const viewHref = (view: View) => `/permissions?view=${view}`;
export const groupHref = (name: string) => `/permissions?view=groups&group=${encodeURIComponent(name)}`;
export const playerHref = (uuid: string) => `/permissions?view=players&player=${encodeURIComponent(uuid)}`;
export const checkHref = (uuid: string) => `/permissions?view=check&player=${encodeURIComponent(uuid)}`;
