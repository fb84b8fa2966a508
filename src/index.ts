/** The relayq package's main entry: the client SDK (the server starts from `relayq serve`). */
export * from './client/index';
