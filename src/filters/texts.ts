/**
 * A cheap test before the full one, for a search that reads many stored messages and
 * matches few: the texts a message's stored JSON must contain for the filter to hold.
 * In JSON text without a backslash every string is written as it is, so a body whose
 * filter needs `"kind": "rare"` must contain `"rare"`; a text that lacks it is no match
 * without parsing it. The test only ever says "no": a message that passes it is matched
 * in full (compile.ts), so the answers are those of the full test.
 */
import type { Condition, Json } from './language';

/** The texts each stored JSON part must contain: the body's, and the metadata's (headers too). */
export interface TextNeeds {
  body: string[];
  metadata: string[];
}

/** The stored form of a message: its JSON texts and content type. */
export interface MessageTexts {
  contentType: string;
  bodyJson: string;
  metadataJson: string;
}

/** Texts any value that passes the condition holds in its JSON text (none when unsure). */
function valueNeeds(condition: Condition, out: string[]): void {
  switch (condition.kind) {
    case 'literal':
      if (typeof condition.value === 'string') out.push(`"${condition.value}"`);
      return;
    case 'operator':
      operatorNeeds(condition.operator, condition.operand, out);
      return;
    case 'fields':
      // on an object or an array's element: each field's value is part of the value's text
      for (const field of condition.fields) valueNeeds(field.condition, out);
      return;
    case 'every':
      for (const item of condition.items) valueNeeds(item, out);
      return;
    case 'and':
      for (const c of condition.conditions) valueNeeds(c, out);
      return;
    // an $or holds on either side, a $not on an absent value: nothing certain
    case 'or':
    case 'not':
    case 'parts':
      return;
  }
}

function operatorNeeds(operator: string, operand: Json, out: string[]): void {
  if (typeof operand !== 'string') return;
  switch (operator) {
    case '$eq':
      out.push(`"${operand}"`);
      return;
    case '$startsWith':
      out.push(`"${operand}`);
      return;
    case '$endsWith':
      out.push(`${operand}"`);
      return;
    case '$contains':
      out.push(operand);
      return;
  }
}

/** The texts a filter (its validated condition tree) needs in the stored body and metadata. */
export function textNeeds(condition: Condition): TextNeeds {
  const needs: TextNeeds = { body: [], metadata: [] };
  const top = (c: Condition): void => {
    if (c.kind === 'and') {
      for (const inner of c.conditions) top(inner);
    } else if (c.kind === 'parts') {
      for (const { part, condition } of c.parts) {
        // header values are stored in the metadata (metadata.webhook.headers); the query
        // is stored encoded, so its values may be written otherwise
        if (part === 'body') valueNeeds(condition, needs.body);
        else if (part === 'metadata' || part === 'headers') valueNeeds(condition, needs.metadata);
      }
    }
  };
  top(condition);
  return needs;
}

/** False when the JSON text has no backslash (no escapes) and lacks one of the texts. */
function mayHold(json: string, texts: string[]): boolean {
  if (texts.length === 0 || json.includes('\\')) return true;
  for (const text of texts) if (!json.includes(text)) return false;
  return true;
}

/**
 * False only when the message cannot match: its JSON body (a text body is stored as a JSON
 * string, escaped: never ruled out here) or its metadata lacks a text the filter needs.
 */
export function mayMatchTexts(needs: TextNeeds, message: MessageTexts): boolean {
  if (message.contentType === 'json' && !mayHold(message.bodyJson, needs.body)) return false;
  return mayHold(message.metadataJson, needs.metadata);
}
