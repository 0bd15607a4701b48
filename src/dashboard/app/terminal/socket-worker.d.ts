/** socket-worker.js imported `with { type: 'file' }`: its URL under /assets/. */
declare const href: string;
export default href;
