/** Names as SQS reads them in attribute name lists. */

/** `All`, in any case (kombu 5.5 sends `ALL`): every attribute. */
export function isAll(name: string): boolean {
  return name.toLowerCase() === 'all';
}
