/** What a verifier looks at: the exact body and the request's headers (lower-case names). */
export interface Delivery {
  body: Buffer;
  headers: Record<string, string>;
  /** the pod's clock, for the timestamp tolerance of stripe and standard-webhooks */
  nowMs: number;
}
