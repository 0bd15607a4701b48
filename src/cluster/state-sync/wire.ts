/** Names of the push body's parts, shared by the controller and the agent's client. */
export const MANIFEST_PART = 'manifest';
/** A file part is named `file:<relative path>`. */
export const FILE_PART_PREFIX = 'file:';
