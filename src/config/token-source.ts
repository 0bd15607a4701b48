/** Where the master token came from: SVC_API_TOKEN, `[api] token`, or generated into data/api-token on first start. */
export type TokenSource = 'environment' | 'config' | 'generated';
