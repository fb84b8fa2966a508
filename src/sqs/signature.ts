/**
 * AWS Signature Version 4 checking. The Authorization header is parsed here;
 * the canonical request and string to sign are rebuilt by Smithy's own signer
 * (@smithy/signature-v4, the code the AWS SDKs sign with) over exactly the
 * headers the client signed, with the client's date and credential scope, and
 * the two signatures are compared in constant time.
 */
import crypto from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';
import { SqsError } from './errors';

/** How far X-Amz-Date may be from the server's clock, as in AWS. */
export const MAX_CLOCK_SKEW_MS = 15 * 60 * 1000;

export interface SignedHeaderAuthorization {
  accessKeyId: string;
  /** YYYYMMDD of the credential scope */
  scopeDate: string;
  region: string;
  service: string;
  signedHeaders: string[];
  signature: string;
}

export interface IncomingSignedRequest {
  method: string;
  /** the path as sent (still percent-encoded) */
  path: string;
  query: Record<string, string | string[]>;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

const incomplete = (message: string) => new SqsError('IncompleteSignature', message);

/** Parses `AWS4-HMAC-SHA256 Credential=..., SignedHeaders=..., Signature=...`. */
export function parseAuthorization(header: string | undefined): SignedHeaderAuthorization {
  if (header === undefined || header.trim() === '') {
    throw new SqsError(
      'MissingAuthenticationToken',
      'Request is missing Authentication Token: sign it with AWS Signature Version 4',
    );
  }
  const match = /^AWS4-HMAC-SHA256\s+(.*)$/s.exec(header.trim());
  if (!match) {
    throw incomplete('Authorization header must use the AWS4-HMAC-SHA256 algorithm');
  }
  const parts = new Map<string, string>();
  for (const part of match[1].split(',')) {
    const eq = part.indexOf('=');
    if (eq > 0) parts.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  const credential = parts.get('Credential');
  const signedHeaders = parts.get('SignedHeaders');
  const signature = parts.get('Signature');
  if (!credential || !signedHeaders || !signature) {
    throw incomplete('Authorization header requires Credential, SignedHeaders and Signature');
  }
  const scope = credential.split('/');
  if (scope.length !== 5 || scope[4] !== 'aws4_request' || !/^\d{8}$/.test(scope[1])) {
    throw incomplete(
      'Credential must be <access key id>/<YYYYMMDD>/<region>/<service>/aws4_request',
    );
  }
  if (!/^[0-9a-f]{64}$/.test(signature)) {
    throw incomplete('Signature must be 64 lower-case hex digits');
  }
  return {
    accessKeyId: scope[0],
    scopeDate: scope[1],
    region: scope[2],
    service: scope[3],
    signedHeaders: signedHeaders.split(';').map((h) => h.toLowerCase()),
    signature,
  };
}

/** The request's X-Amz-Date, checked against the credential scope and the clock. */
export function signingDate(
  auth: SignedHeaderAuthorization,
  headers: IncomingHttpHeaders,
  nowMs: number,
): Date {
  const raw = headers['x-amz-date'];
  if (typeof raw !== 'string' || !auth.signedHeaders.includes('x-amz-date')) {
    throw incomplete('the X-Amz-Date header is required and must be signed');
  }
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(raw);
  if (!m) throw incomplete(`X-Amz-Date must read YYYYMMDDTHHMMSSZ, got ${raw}`);
  const date = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]));
  if (raw.slice(0, 8) !== auth.scopeDate) {
    throw new SqsError(
      'SignatureDoesNotMatch',
      `Credential should be scoped to a valid date: ${auth.scopeDate} is not the date of X-Amz-Date ${raw}`,
    );
  }
  if (Math.abs(nowMs - date.getTime()) > MAX_CLOCK_SKEW_MS) {
    throw new SqsError(
      'SignatureDoesNotMatch',
      `Signature expired: ${raw} is more than 15 minutes from the server's time ${amzDate(new Date(nowMs))}`,
    );
  }
  return date;
}

function amzDate(date: Date): string {
  return date
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}Z$/, 'Z');
}

const sha256Hex = (data: Buffer) => crypto.hash('sha256', data, 'hex');

/** Throws SignatureDoesNotMatch unless the request was signed with this secret. */
export async function verifySignature(
  auth: SignedHeaderAuthorization,
  request: IncomingSignedRequest,
  date: Date,
  secretAccessKey: string,
): Promise<void> {
  if (!auth.signedHeaders.includes('host')) throw incomplete('the Host header must be signed');
  const headers: Record<string, string> = {};
  for (const name of auth.signedHeaders) {
    const value = request.headers[name];
    if (value === undefined) throw incomplete(`signed header ${name} is missing from the request`);
    headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const bodyHash = sha256Hex(request.body);
  const declared = request.headers['x-amz-content-sha256'];
  if (declared !== undefined && declared !== bodyHash) {
    throw new SqsError(
      'SignatureDoesNotMatch',
      'X-Amz-Content-SHA256 does not match the SHA-256 of the request body',
    );
  }
  const signer = new SignatureV4({
    credentials: { accessKeyId: auth.accessKeyId, secretAccessKey },
    region: auth.region,
    service: auth.service,
    sha256: Hash.bind(null, 'sha256'),
    applyChecksum: false,
  });
  const signed = await signer.sign(
    {
      method: request.method,
      protocol: 'http:',
      hostname: headers.host,
      path: request.path,
      query: request.query,
      headers,
      body: request.body,
    },
    {
      signingDate: date,
      signingRegion: auth.region,
      signingService: auth.service,
      signableHeaders: new Set(auth.signedHeaders),
    },
  );
  const expected = /Signature=([0-9a-f]{64})/.exec(String(signed.headers.authorization))?.[1];
  if (
    !expected ||
    !crypto.timingSafeEqual(Buffer.from(expected, 'hex'), Buffer.from(auth.signature, 'hex'))
  ) {
    throw new SqsError(
      'SignatureDoesNotMatch',
      'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method.',
    );
  }
}
