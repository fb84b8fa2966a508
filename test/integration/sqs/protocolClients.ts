/**
 * Raw SQS calls in either protocol, signed with Smithy's SigV4 signer, for the
 * tests that run one table of cases through both of relayq's translators. The
 * query side is written here from SQS's API reference, apart from relayq's own
 * code: parameters flattened (`Attribute.1.Name`, `AttributeName.1`,
 * `SendMessageBatchRequestEntry.1.Id`), answers read as an XML parser reads
 * them (line ends normalized, entities decoded) into the JSON protocol's shape.
 */
import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';
import type { ListeningApp } from '../../helpers/app';
import type { AwsKeys } from './support';

export type Protocol = 'json' | 'query';

export interface SqsAnswer {
  status: number;
  contentType: string;
  /** the output, in the JSON protocol's shape (200 only) */
  output?: Record<string, unknown>;
  /** the error: the query code (x-amzn-query-error's, or the XML's Code), its fault and message */
  error?: { code: string; type: string; message: string };
  raw: string;
}

const LISTS: Record<string, string> = {
  AttributeNames: 'AttributeName',
  MessageAttributeNames: 'MessageAttributeName',
  MessageSystemAttributeNames: 'MessageSystemAttributeName',
  TagKeys: 'TagKey',
};
const ENTRIES: Record<string, string> = {
  SendMessageBatch: 'SendMessageBatchRequestEntry',
  DeleteMessageBatch: 'DeleteMessageBatchRequestEntry',
  ChangeMessageVisibilityBatch: 'ChangeMessageVisibilityBatchRequestEntry',
};
const MAPS: Record<string, [string, string, string]> = {
  Attributes: ['Attribute', 'Name', 'Value'],
  tags: ['Tag', 'Key', 'Value'],
  Tags: ['Tag', 'Key', 'Value'],
  MessageAttributes: ['MessageAttribute', 'Name', 'Value'],
  MessageSystemAttributes: ['MessageSystemAttribute', 'Name', 'Value'],
};

function scalar(value: unknown): string {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  return String(value);
}

/** A JSON input's members as query parameters under `prefix` ('' or ending with a dot). */
function flatten(
  action: string,
  input: Record<string, unknown>,
  prefix: string,
  out: [string, string][],
): void {
  for (const [name, value] of Object.entries(input)) {
    if (value === undefined) continue;
    // an empty list: its member's name with no value, as botocore sends it
    if (Array.isArray(value) && value.length === 0) out.push([`${prefix}${name}`, '']);
    else if (name === 'Entries' && Array.isArray(value)) {
      value.forEach((entry, i) =>
        flatten(
          action,
          entry as Record<string, unknown>,
          `${prefix}${ENTRIES[action]}.${i + 1}.`,
          out,
        ),
      );
    } else if (Array.isArray(value)) {
      value.forEach((item, i) => out.push([`${prefix}${LISTS[name]}.${i + 1}`, scalar(item)]));
    } else if (value !== null && typeof value === 'object' && !(value instanceof Uint8Array)) {
      const [entry, key, val] = MAPS[name];
      Object.entries(value).forEach(([k, v], i) => {
        const at = `${prefix}${entry}.${i + 1}`;
        out.push([`${at}.${key}`, k]);
        if (v !== null && typeof v === 'object' && !(v instanceof Uint8Array)) {
          for (const [m, mv] of Object.entries(v)) out.push([`${at}.${val}.${m}`, scalar(mv)]);
        } else {
          out.push([`${at}.${val}`, scalar(v)]);
        }
      });
    } else {
      out.push([`${prefix}${name}`, scalar(value)]);
    }
  }
}

export function queryBody(action: string, input: Record<string, unknown>): string {
  const params: [string, string][] = [
    ['Action', action],
    ['Version', '2012-11-05'],
  ];
  flatten(action, input, '', params);
  return new URLSearchParams(params).toString();
}

interface XmlNode {
  name: string;
  children: XmlNode[];
  text: string;
}

const ENTITY: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeText(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|\w+);/g, (_, e: string) =>
    e.startsWith('#x')
      ? String.fromCodePoint(parseInt(e.slice(2), 16))
      : e.startsWith('#')
        ? String.fromCodePoint(Number(e.slice(1)))
        : ENTITY[e],
  );
}

/** A small XML reader for SQS's answers (elements and text; what any XML parser yields). */
export function parseXml(xml: string): XmlNode {
  const source = xml.replace(/\r\n?/g, '\n').replace(/^<\?xml[^>]*\?>/, '');
  const root: XmlNode = { name: '#root', children: [], text: '' };
  const stack = [root];
  for (const m of source.matchAll(/<(\/?)([A-Za-z][A-Za-z0-9]*)[^>]*?(\/?)>|([^<]+)/g)) {
    const top = stack[stack.length - 1];
    if (m[4] !== undefined) top.text += decodeText(m[4]);
    else if (m[1] === '/') {
      if (top.name !== m[2]) throw new Error(`XML: </${m[2]}> closes <${top.name}>`);
      stack.pop();
    } else {
      const node: XmlNode = { name: m[2], children: [], text: '' };
      top.children.push(node);
      if (m[3] !== '/') stack.push(node);
    }
  }
  if (stack.length !== 1 || root.children.length !== 1) throw new Error('XML: not one root');
  return root.children[0];
}

const child = (node: XmlNode, name: string) => node.children.find((c) => c.name === name);

/** An XML structure in the JSON protocol's shape (SQS's flattened lists and maps). */
function structure(action: string, node: XmlNode, top = false): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const push = (name: string, value: unknown) =>
    ((out[name] as unknown[] | undefined) ?? (out[name] = [])) &&
    (out[name] as unknown[]).push(value);
  const put = (name: string, key: string, value: unknown) => {
    (out[name] ??= {}) as Record<string, unknown>;
    (out[name] as Record<string, unknown>)[key] = value;
  };
  for (const c of node.children) {
    if (c.name === 'Attribute') put('Attributes', child(c, 'Name')!.text, child(c, 'Value')!.text);
    else if (c.name === 'Tag') put('Tags', child(c, 'Key')!.text, child(c, 'Value')!.text);
    else if (c.name === 'MessageAttribute')
      put('MessageAttributes', child(c, 'Name')!.text, structure(action, child(c, 'Value')!));
    else if (c.name === 'Message' && top) push('Messages', structure(action, c));
    else if (c.name === 'QueueUrl' && action === 'ListQueues') push('QueueUrls', c.text);
    else if (c.name === 'QueueUrl' && action === 'ListDeadLetterSourceQueues')
      push('queueUrls', c.text);
    else if (c.name === `${action}ResultEntry`) push('Successful', structure(action, c));
    else if (c.name === 'BatchResultErrorEntry') {
      const failed = structure(action, c);
      push('Failed', { ...failed, SenderFault: failed.SenderFault === 'true' });
    } else out[c.name] = c.text;
  }
  return out;
}

function xmlOutput(action: string, xml: string): Record<string, unknown> {
  const root = parseXml(xml);
  if (root.name !== `${action}Response`) throw new Error(`XML: root ${root.name}`);
  if (!child(root, 'ResponseMetadata')) throw new Error('XML: no ResponseMetadata');
  const result = child(root, `${action}Result`);
  const out = result ? structure(action, result, true) : {};
  // SQS's batch results always have both lists (JSON sends them even when empty)
  if (ENTRIES[action]) return { Successful: [], Failed: [], ...out };
  if (action === 'ListDeadLetterSourceQueues') return { queueUrls: [], ...out };
  return out;
}

function xmlError(xml: string): SqsAnswer['error'] {
  const root = parseXml(xml);
  const error = child(root, 'Error')!;
  if (root.name !== 'ErrorResponse' || !child(root, 'RequestId')) throw new Error('XML: error');
  return {
    code: child(error, 'Code')!.text,
    type: child(error, 'Type')!.text,
    message: child(error, 'Message')!.text,
  };
}

export interface CallOptions {
  /** the path posted to (default /sqs) */
  path?: string;
  method?: 'POST' | 'GET';
}

/** One SQS call in the protocol, signed with the keys. */
export async function callSqs(
  protocol: Protocol,
  app: ListeningApp,
  keys: AwsKeys,
  action: string,
  input: Record<string, unknown>,
  options: CallOptions = {},
): Promise<SqsAnswer> {
  const url = new URL(`${app.baseUrl}${options.path ?? '/sqs'}`);
  const method = options.method ?? 'POST';
  const query = protocol === 'query' && method === 'GET' ? queryBody(action, input) : '';
  const body =
    method === 'GET' ? '' : protocol === 'json' ? JSON.stringify(input) : queryBody(action, input);
  const headers: Record<string, string> =
    protocol === 'json'
      ? { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': `AmazonSQS.${action}` }
      : method === 'POST'
        ? { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' }
        : {};
  const signer = new SignatureV4({
    credentials: keys,
    region: 'us-east-1',
    service: 'sqs',
    sha256: Hash.bind(null, 'sha256'),
  });
  const signed = await signer.sign({
    method,
    protocol: 'http:',
    hostname: url.hostname,
    port: Number(url.port),
    path: url.pathname,
    query: Object.fromEntries(new URLSearchParams(query)),
    headers: { host: url.host, ...headers },
    body,
  });
  const res = await fetch(`${url.origin}${url.pathname}${query ? `?${query}` : ''}`, {
    method,
    headers: signed.headers as Record<string, string>,
    ...(method === 'POST' ? { body } : {}),
  });
  const raw = await res.text();
  const answer: SqsAnswer = {
    status: res.status,
    contentType: res.headers.get('content-type') ?? '',
    raw,
  };
  if (protocol === 'json') {
    const parsed = raw === '' ? {} : JSON.parse(raw);
    if (res.status === 200) answer.output = parsed;
    else {
      const [code, type] = (res.headers.get('x-amzn-query-error') ?? '').split(';');
      answer.error = { code, type, message: parsed.message };
    }
  } else if (res.status === 200) answer.output = xmlOutput(action, raw);
  else answer.error = xmlError(raw);
  return answer;
}
