/**
 * SQS's XML answers for the query protocol: `<XResponse xmlns=...><XResult>
 * ...</XResult><ResponseMetadata><RequestId>` written from the action's JSON
 * output by the names in queryShapes.ts, and `<ErrorResponse>` for errors.
 */
import type { SqsError } from '../errors';
import { HAS_RESULT, MAP_ELEMENTS, listElement } from './queryShapes';

export const XML_NAMESPACE = 'http://queue.amazonaws.com/doc/2012-11-05/';
const DECLARATION = '<?xml version="1.0"?>';

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
  // a literal CR would reach the client as LF (XML normalizes line ends), so SQS writes it so
  '\r': '&#xD;',
};

/**
 * Text as XML character data. Characters XML 1.0 cannot carry at all (control
 * characters other than tab, LF and CR, lone surrogates, U+FFFE and U+FFFF: only a
 * relay API sender can store them) become U+FFFD, so that the answer stays readable.
 */
export function escapeXml(text: string): string {
  return text
    .replace(/[&<>"'\r]/g, (c) => ENTITIES[c])
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '\uFFFD');
}

function element(name: string, content: string): string {
  return `<${name}>${content}</${name}>`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A value's content: text, or the members of a structure. */
function content(value: unknown, action: string): string {
  return isObject(value) ? members(value, action) : escapeXml(String(value));
}

/** A structure's members, lists and maps flattened as SQS writes them. */
function members(output: Record<string, unknown>, action: string): string {
  let xml = '';
  for (const [name, value] of Object.entries(output)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) {
      const item = listElement(name, action);
      for (const v of value) xml += element(item, content(v, action));
    } else if (isObject(value)) {
      const names = MAP_ELEMENTS[name];
      if (!names) throw new Error(`no XML names for the output map ${name} of ${action}`);
      const [entry, key, val] = names;
      for (const [k, v] of Object.entries(value)) {
        xml += element(entry, element(key, escapeXml(k)) + element(val, content(v, action)));
      }
    } else {
      xml += element(name, escapeXml(String(value)));
    }
  }
  return xml;
}

/** The answer to a query request. */
export function xmlResponse(
  action: string,
  output: Record<string, unknown>,
  requestId: string,
): string {
  const result = HAS_RESULT.has(action) ? element(`${action}Result`, members(output, action)) : '';
  const metadata = element('ResponseMetadata', element('RequestId', escapeXml(requestId)));
  return `${DECLARATION}<${action}Response xmlns="${XML_NAMESPACE}">${result}${metadata}</${action}Response>`;
}

/** An error as the query protocol answers it (the code is SQS's query code). */
export function xmlError(error: SqsError, requestId: string): string {
  const detail =
    element('Type', error.fault) +
    element('Code', escapeXml(error.queryCode)) +
    element('Message', escapeXml(error.message)) +
    '<Detail/>';
  return `${DECLARATION}<ErrorResponse xmlns="${XML_NAMESPACE}">${element('Error', detail)}${element('RequestId', escapeXml(requestId))}</ErrorResponse>`;
}
