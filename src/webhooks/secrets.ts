/** Verification secrets at rest: sealed and opened in src/auth/webhookSecrets.ts (replays sign with them too). */
export { openSecret, sealSecret } from '../auth/webhookSecrets';
