/** What a verifier looks at: the exact body and the request's headers (lower-case names). */
export interface Delivery {
  body: Buffer;
  headers: Record<string, string>;
  /** the pod's clock, for the timestamp tolerance of stripe and standard-webhooks */
  nowMs: number;
}

/**
 * A verifier's answer: null when the delivery is signed as it should be, else the one check
 * that failed, as the sender's developer needs to read it (`signature does not match`,
 * `timestamp 412 s old; at most 300 s`); never the secret, the body or the expected value.
 */
export type Refusal = string | null;
