/** relayq/client: the same SDK as the @relayq/client package, for code that imports it from the server package. */
export * from '@relayq/client';
